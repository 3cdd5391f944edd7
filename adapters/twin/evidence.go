package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

func recordEvidenceTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_evidence", Name: "Record evidence", Capability: "twin_write",
		Description: "Record a result (a simulation, a test, a hand calculation) as evidence, pinned to the exact revisions it was computed " +
			"against (valid_against: KEY@n, or KEY for the head). Evidence goes stale when a pinned item gets a newer revision. " +
			"verifies names the requirements (a constraint set ref) it bears on.",
		InputSchema: schema([]string{"name", "kind", "valid_against"}, projectIDProp+`,
"name":{"type":"string","minLength":1,"maxLength":200},
"kind":{"type":"string","enum":["simulation","test","analysis","inspection","calculation"]},
"metric":{"type":"string"},
"value":{"type":"number"},
"unit":{"type":"string"},
"valid_against":{"type":"array","minItems":1,"maxItems":50,"items":{"type":"string","minLength":1},"description":"item refs (KEY@n or KEY) or node ids it was computed against"},
"verifies":{"type":"array","maxItems":50,"items":{"type":"string","minLength":1},"description":"refs of the requirements (constraint sets) it bears on"},
"data":{"type":"object","description":"the result itself: fields, load case, solver, files"}`),
		Idempotent: true, TimeoutSeconds: 30}, recordEvidence}
}

func recordEvidence(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID    string         `json:"project_id"`
		Name         string         `json:"name"`
		Kind         string         `json:"kind"`
		Metric       string         `json:"metric"`
		Value        *float64       `json:"value"`
		Unit         string         `json:"unit"`
		ValidAgainst []string       `json:"valid_against"`
		Verifies     []string       `json:"verifies"`
		Data         map[string]any `json:"data"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	w := twin.EvidenceWrite{Name: a.Name, Kind: a.Kind, Metric: a.Metric, Value: a.Value, Unit: a.Unit, ValidAgainst: a.ValidAgainst,
		Verifies: a.Verifies, Data: a.Data, IdempotencyKey: callID(ctx)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	n, pinned, f, err := twin.RecordEvidence(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	return map[string]any{"node_id": n.ID, "project_id": p.ID, "valid_against": pinned, "stale": f.Stale, "stale_against": f.Against}, nil
}
