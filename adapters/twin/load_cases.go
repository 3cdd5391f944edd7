package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func recordLoadCaseTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_load_case", Name: "Record a load case", Capability: "twin_write",
		Description: "Record an FEA load case as the next revision of its item (keyed by name): the part (a cad_model item KEY, not a " +
			"revision: the case applies to whatever revision is current), the fixture and load faces picked by geometry (outward normal " +
			"and a point near the face, as gmsh.list_named_faces reports them, never a face number that changes with the mesh), the load as " +
			"force_n or pressure_mpa with its direction (default: into the load face), where the load comes from (source) and the " +
			"requirement it verifies. A design flow's analysis phase solves every ready load case against the part's current revision " +
			"and records the evidence against that revision; a draft is kept, not solved. A mass m that a part holds is a force m x 9.80665 N.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordLoadCase, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("part", adapters.MinLength(1)),
		adapters.At("force_n", adapters.ExclusiveMinimum(0)),
		adapters.At("pressure_mpa", adapters.ExclusiveMinimum(0)),
		adapters.At("source.kind", adapters.Enum(twin.LoadSourceKinds...)),
		adapters.At("status", adapters.Enum(twin.LoadCaseReady, twin.LoadCaseDraft), adapters.Default(twin.LoadCaseReady)),
		adapters.At("element_order", adapters.Enum(1, 2), adapters.Default(2)),
		adapters.At("mesh_size_mm", adapters.ExclusiveMinimum(0)))...)
}

type recordLoadCaseArgs struct {
	project.Scope
	twin.LoadCase
	itemArgs
}

func recordLoadCase(ctx context.Context, b *Backend, a recordLoadCaseArgs) (any, error) {
	c := a.LoadCase
	if err := c.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	n, it, err := twin.RecordLoadCase(ctx, b.Store, twin.LoadCaseWrite{Project: p, Case: c, WriteInfo: writeInfo(ctx, a.itemArgs)})
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"], out["status"] = p.ID, c.Status
	if _, err := b.Store.GetItem(ctx, p.ID, c.Part); c.Part != "" && err != nil {
		out["part_note"] = c.Part + " has no committed geometry yet: an analysis solves this case on its current revision once twin.commit_geometry commits one under item_key " + c.Part
	}
	if c.Status == twin.LoadCaseDraft {
		out["note"] = "a draft is kept, not solved: record it again with status ready once its faces (and load) are known"
	}
	return out, nil
}
