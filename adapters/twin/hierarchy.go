package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

// hierarchyTools are the product hierarchy's: record a position, realise
// it (replace what realises it), roll a branch up. The rules are
// twin.RecordHierarchyNode, twin.RealizeHierarchyNode and
// twin.ComputeRollup.
func hierarchyTools() []tool {
	return []tool{recordHierarchyNodeTool(), realizeHierarchyNodeTool(), computeHierarchyRollupTool()}
}

// positionRefRule describes a reference to a position, a model or a BOM
// item.
func positionRefRule(field, what string) adapters.SchemaRule {
	return adapters.At(field, adapters.MinLength(1), adapters.MaxLength(300), adapters.Describe(what))
}

func recordHierarchyNodeTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_hierarchy_node", Name: "Record a product hierarchy position", Capability: "twin_write",
		Description: "Record one position of the project's product hierarchy (level product, system, subsystem, assembly or part), nested " +
			"under an optional parent position by the parent's CONTAINS edge carrying quantity (how many of this the parent holds, " +
			"default 1) and placement (x/y/z mm and rx/ry/rz degrees in the parent's frame). realized_by (a cad_model: its measured " +
			"mass_kg is the position's mass) and instance_of (a BOM item from twin.record_component_selection: its unit_cost spec is the " +
			"position's cost) are linked at creation; replacing one is twin.realize_hierarchy_node's. power (peak_w, average_w, " +
			"dissipation_w) is a leaf's draw; joints are an assembly's. The same name (or item_key) records the next revision: it keeps " +
			"its children and, unless parent is given, its place; a field left out keeps its value. A parent that sits under the " +
			"position itself is refused, naming the cycle. twin.compute_hierarchy_rollup rolls a branch up.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordHierarchyNode, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("level", adapters.Enum(twin.HierarchyLevels...)),
		adapters.At("description", adapters.MaxLength(4000)),
		positionRefRule("parent", "the position that contains this one: KEY (HN-ARM), KEY@n or a node id"),
		adapters.At("quantity", adapters.Minimum(1), adapters.Maximum(1000000)),
		adapters.At("placement", adapters.Nullable()),
		adapters.At("power", adapters.Nullable()),
		adapters.At("power.peak_w", adapters.Minimum(0)),
		adapters.At("power.average_w", adapters.Minimum(0)),
		adapters.At("power.dissipation_w", adapters.Minimum(0)),
		adapters.At("joints", adapters.Nullable(), adapters.MaxItems(200)),
		adapters.At("joints[].name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("joints[].type", adapters.Enum(twin.JointTypes...)),
		adapters.At("joints[].base", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("joints[].follower", adapters.MinLength(1), adapters.MaxLength(200)),
		positionRefRule("realized_by", "the cad_model that realises the position: KEY, KEY@n or a node id (pinned as that revision)"),
		positionRefRule("instance_of", "the BOM item (component_selection) the position is an instance of: KEY, KEY@n or a node id"))...)
}

type recordHierarchyNodeArgs struct {
	project.Scope
	Name        string          `json:"name" jsonschema:"the position's name (\"Robot arm\", \"Wrist subsystem\", \"Base plate\"); the same name revises the same position"`
	Level       string          `json:"level,omitempty" jsonschema:"product, system, subsystem, assembly or part; required for a new position"`
	Description string          `json:"description,omitempty"`
	Parent      string          `json:"parent,omitempty"`
	Quantity    *int            `json:"quantity,omitempty" jsonschema:"how many of this position its parent holds; 1 when not given"`
	Placement   *twin.Placement `json:"placement,omitempty" jsonschema:"where it sits in its parent's frame"`
	Power       *twin.Power     `json:"power,omitempty" jsonschema:"a leaf's electrical draw and heat, W; a figure left out is unknown, not zero"`
	Joints      []twin.Joint    `json:"joints,omitempty" jsonschema:"an assembly's joints: each follower attaches to its base"`
	RealizedBy  string          `json:"realized_by,omitempty"`
	InstanceOf  string          `json:"instance_of,omitempty"`
	itemArgs
}

func recordHierarchyNode(ctx context.Context, b *Backend, a recordHierarchyNodeArgs) (any, error) {
	w := twin.HierarchyNodeWrite{Name: a.Name, Level: a.Level, Description: a.Description, Parent: a.Parent, Quantity: a.Quantity,
		Placement: a.Placement, Power: a.Power, Joints: a.Joints, RealizedBy: a.RealizedBy, InstanceOf: a.InstanceOf,
		WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	pos, err := twin.RecordHierarchyNode(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	return positionResult(p.ID, pos), nil
}

// positionResult is what the hierarchy writes return about a position.
func positionResult(projectID string, pos twin.HierarchyPosition) map[string]any {
	out := written(pos.Node, pos.Item)
	out["project_id"] = projectID
	out["level"] = pos.Node.Properties["level"]
	out["quantity"] = pos.Quantity
	out["children"] = pos.Children
	for k, v := range map[string]string{"parent": pos.Parent, "realized_by": pos.RealizedBy, "instance_of": pos.InstanceOf} {
		if v != "" {
			out[k] = v
		}
	}
	if pos.Placement != nil {
		out["placement"] = pos.Placement
	}
	return out
}

func realizeHierarchyNodeTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.realize_hierarchy_node", Name: "Realise a hierarchy position", Capability: "twin_write",
		Description: "Attach or replace what realises a product hierarchy position: realized_by (a cad_model, e.g. from twin.commit_geometry) " +
			"and/or instance_of (a BOM item from twin.record_component_selection). It replaces the position's existing link of that type, " +
			"so a position has at most one of each; it is written as the position's next revision (its place and children kept), so " +
			"twin.item_history shows what it was realised by before. node KEY@n asserts the position has not been revised since. " +
			"The result names the links it replaced (replaced_realized_by, replaced_instance_of).",
		Idempotent: true, Short: true, TimeoutSeconds: 30},
		realizeHierarchyNode,
		positionRefRule("node", "the position: KEY (its current revision), KEY@n (asserting it is still the head) or a node id"),
		positionRefRule("realized_by", "the cad_model that realises the position: KEY, KEY@n or a node id"),
		positionRefRule("instance_of", "the BOM item (component_selection) the position is an instance of: KEY, KEY@n or a node id"),
		adapters.At("change_reason", adapters.Nullable(), adapters.MaxLength(2000)))
}

type realizeHierarchyNodeArgs struct {
	project.Scope
	Node         string  `json:"node"`
	RealizedBy   string  `json:"realized_by,omitempty"`
	InstanceOf   string  `json:"instance_of,omitempty"`
	ChangeReason *string `json:"change_reason,omitempty" jsonschema:"why it is realised differently (default: what it is realised by now)"`
}

func realizeHierarchyNode(ctx context.Context, b *Backend, a realizeHierarchyNodeArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	re, err := twin.RealizeHierarchyNode(ctx, b.Store, twin.RealizeWrite{ProjectID: p.ID, Position: a.Node, RealizedBy: a.RealizedBy,
		InstanceOf: a.InstanceOf, WriteInfo: writeInfo(ctx, itemArgs{ChangeReason: a.ChangeReason})})
	if err != nil {
		return nil, err
	}
	out := positionResult(p.ID, re.HierarchyPosition)
	out["previous"] = re.Previous
	replaced := map[string]any{}
	if re.ReplacedRealizedBy != "" {
		replaced["realized_by"] = re.ReplacedRealizedBy
	}
	if re.ReplacedInstanceOf != "" {
		replaced["instance_of"] = re.ReplacedInstanceOf
	}
	out["replaced"] = replaced
	return out, nil
}

func computeHierarchyRollupTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.compute_hierarchy_rollup", Name: "Roll up a product hierarchy branch", Capability: "twin_read",
		Description: "Roll up mass, cost and power over one branch of the product hierarchy (root and everything it CONTAINS), weighted by " +
			"each edge's quantity down the tree; computed live from the graph, never stored. mass_kg comes from each position's " +
			"REALIZED_BY cad_model's measured mass_kg, cost_usd from its INSTANCE_OF BOM item's unit_cost spec, power (peak_w, " +
			"average_w, dissipation_w) from its own power. A position's own figure stands for its branch; without one, a position sums " +
			"its children and a leaf is no_data. Each figure's value is a total only when nothing below is unknown; otherwise no_data " +
			"names each leaf without one (name, ref, reason) on every position above it, and known_partial_sum is the sum of what is " +
			"known: a lower bound, never a total. Figures are for one of a position; total_quantity is how many one root holds. " +
			"budgets holds each of the project's budgets (mass, cost, peak_power, average_power, dissipation) against the product's " +
			"roll-up, and each allocation to a position against that branch times how many of it the product holds: pass, fail or no_data.",
		Idempotent: true, Short: true, TimeoutSeconds: 60}, computeHierarchyRollup,
		positionRefRule("root", "the position whose branch to roll up: KEY, KEY@n or a node id (read as its current revision)"))
}

type computeHierarchyRollupArgs struct {
	project.Scope
	Root string `json:"root"`
}

func computeHierarchyRollup(ctx context.Context, b *Backend, a computeHierarchyRollupArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	r, err := twin.ComputeRollup(ctx, b.Store, p.ID, a.Root)
	if err != nil {
		return nil, err
	}
	budgets, err := twin.HoldBudgets(ctx, b.Store, p.ID)
	if err != nil {
		return nil, err
	}
	return struct {
		twin.Rollup
		Budgets []twin.BudgetStatus `json:"budgets"`
	}{r, nonNilBudgets(budgets)}, nil
}

// nonNilBudgets lists budgets as a JSON array, empty when there are none.
func nonNilBudgets(b []twin.BudgetStatus) []twin.BudgetStatus {
	if b == nil {
		return []twin.BudgetStatus{}
	}
	return b
}
