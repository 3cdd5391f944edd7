package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func recordEvidenceTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_evidence", Name: "Record evidence", Capability: "twin_write",
		Description: "Record a result (a simulation, a test, a hand calculation) as evidence, pinned to the exact revisions it was computed " +
			"against (valid_against: KEY@n, or KEY for the head). Evidence goes stale when a pinned item gets a newer revision. " +
			"verifies names the requirements (a constraint set ref) it bears on. supersedes names stale evidence this result replaces " +
			"(after an engineering change): the old evidence is kept, linked SUPERSEDES.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordEvidence,
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("kind", adapters.Enum("simulation", "test", "analysis", "inspection", "calculation")),
		adapters.At("valid_against", adapters.MinItems(1), adapters.MaxItems(50)), adapters.At("valid_against[]", adapters.MinLength(1)),
		adapters.At("verifies", adapters.MaxItems(50)), adapters.At("verifies[]", adapters.MinLength(1)),
		adapters.At("data", anyObject),
		adapters.At("supersedes", adapters.MaxItems(50)), adapters.At("supersedes[]", adapters.MinLength(1)))
}

type recordEvidenceArgs struct {
	project.Scope
	Name         string         `json:"name"`
	Kind         string         `json:"kind"`
	Metric       string         `json:"metric,omitempty"`
	Value        *float64       `json:"value,omitempty"`
	Unit         string         `json:"unit,omitempty"`
	ValidAgainst []string       `json:"valid_against" jsonschema:"item refs (KEY@n or KEY) or node ids it was computed against"`
	Verifies     []string       `json:"verifies,omitempty" jsonschema:"refs of the requirements (constraint sets) it bears on"`
	Data         map[string]any `json:"data,omitempty" jsonschema:"the result itself: fields, load case, solver, files"`
	Supersedes   []string       `json:"supersedes,omitempty" jsonschema:"node ids of stale evidence this result replaces (a revalidation)"`
}

func recordEvidence(ctx context.Context, b *Backend, a recordEvidenceArgs) (any, error) {
	w := twin.EvidenceWrite{Name: a.Name, Kind: a.Kind, Metric: a.Metric, Value: a.Value, Unit: a.Unit, ValidAgainst: a.ValidAgainst,
		Verifies: a.Verifies, Supersedes: a.Supersedes, Data: a.Data, IdempotencyKey: callID(ctx)}
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
