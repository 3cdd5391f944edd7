package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
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
	if a.Value != nil && a.Metric == "" {
		return nil, protocol.Refusal("value %v has no metric: say what was measured (metric) and in what unit", *a.Value)
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	var links []twin.Link
	var pinned []string
	for _, ref := range a.ValidAgainst {
		n, err := resolveRef(ctx, b, p.ID, ref)
		if err != nil {
			return nil, fmt.Errorf("valid_against %s: %w", ref, err)
		}
		if n.ItemKey == "" {
			return nil, protocol.Refusal("valid_against %s: that is a %s record, not a revision of an item; pin evidence to what it was computed against", ref, n.Type)
		}
		links = append(links, twin.Link{Type: twin.EdgeValidAgainst, To: n.ID, Properties: map[string]any{"ref": n.Ref()}})
		pinned = append(pinned, n.Ref())
	}
	for _, ref := range a.Verifies {
		n, err := resolveRef(ctx, b, p.ID, ref)
		if err != nil {
			return nil, fmt.Errorf("verifies %s: %w", ref, err)
		}
		links = append(links, twin.Link{Type: twin.EdgeVerifies, To: n.ID, Properties: map[string]any{"ref": n.Ref()}})
	}
	props := map[string]any{"kind": a.Kind}
	if a.Metric != "" {
		props["metric"] = a.Metric
	}
	if a.Value != nil {
		props["value"] = *a.Value
	}
	if a.Unit != "" {
		props["unit"] = a.Unit
	}
	if a.Data != nil {
		props["data"] = a.Data
	}
	n, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "evidence", Name: a.Name, Properties: props, Links: links,
		IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	st, err := staleness(ctx, b, n.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"node_id": n.ID, "project_id": p.ID, "valid_against": pinned, "stale": st.Stale, "stale_against": st.Against}, nil
}

// freshness says whether evidence still describes the current design.
type freshness struct {
	Stale   bool             `json:"stale"`
	Against []map[string]any `json:"stale_against"`
}

// staleness checks each revision the evidence is pinned to against its
// item's head: a newer head means the evidence describes an older design.
func staleness(ctx context.Context, b *Backend, evidenceID string) (freshness, error) {
	pins, err := b.Store.Neighbors(ctx, evidenceID, twin.Outgoing, twin.EdgeValidAgainst)
	if err != nil {
		return freshness{}, err
	}
	f := freshness{Against: []map[string]any{}}
	for _, pin := range pins {
		it, err := b.Store.ItemOfNode(ctx, pin.Node.ID)
		if err != nil {
			return freshness{}, err
		}
		if it.HeadRevision > pin.Node.Revision {
			f.Stale = true
			f.Against = append(f.Against, map[string]any{"pinned": pin.Node.Ref(), "head": it.HeadRef()})
		}
	}
	return f, nil
}

// evidenceEntry is how claims and twin.what_verifies show a piece of
// evidence.
func evidenceEntry(ev twin.Node, f freshness) map[string]any {
	e := map[string]any{"node_id": ev.ID, "name": ev.Name, "kind": ev.Properties["kind"], "metric": ev.Properties["metric"],
		"value": ev.Properties["value"], "unit": ev.Properties["unit"], "stale": f.Stale}
	if f.Stale {
		e["stale_against"] = f.Against
	}
	return e
}
