package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func commitSystemArchitectureTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.commit_system_architecture", Name: "Commit the system architecture", Capability: "twin_write",
		Description: "Commit the project's system architecture: its subsystems (each optionally the product-hierarchy position it is, " +
			"hierarchy_node: KEY, KEY@n or a node id) and the interfaces between them (from and to name subsystems; kind mechanical, " +
			"electrical, data, thermal or fluid), each carrying typed quantities (name, unit, and the prediction if there is one: predicted, " +
			"a number in the unit, and/or predicted_by, the node id of the evidence that predicted it, e.g. twin.evaluate_metric's). A project " +
			"has one architecture (ARCH-...): committing again is its next revision. An interface naming a subsystem not listed, a repeated " +
			"subsystem, interface or quantity name, a unit that does not parse, or predicted_by evidence that does not predict that quantity " +
			"is refused and nothing is written. twin.record_measurement measures built units against these quantities.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, commitSystemArchitecture, withItemRules(
		adapters.At("name", adapters.MaxLength(200)),
		adapters.At("description", adapters.MaxLength(20000)),
		adapters.At("subsystems", adapters.MinItems(1), adapters.MaxItems(200)),
		adapters.At("subsystems[].name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("subsystems[].description", adapters.MaxLength(4000)),
		adapters.At("subsystems[].hierarchy_node", adapters.MaxLength(200)),
		adapters.At("interfaces", adapters.MaxItems(500)),
		adapters.At("interfaces[].name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("interfaces[].from", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("interfaces[].to", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("interfaces[].kind", adapters.Enum(twin.InterfaceKinds...)),
		adapters.At("interfaces[].quantities", adapters.MaxItems(100)),
		adapters.At("interfaces[].quantities[].name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("interfaces[].quantities[].unit", adapters.MinLength(1), adapters.MaxLength(40)),
		adapters.At("interfaces[].quantities[].predicted_by", adapters.MaxLength(200)))...)
}

type commitSystemArchitectureArgs struct {
	project.Scope
	Name        string                       `json:"name,omitempty" jsonschema:"the architecture's name; System architecture when not given"`
	Description string                       `json:"description,omitempty"`
	Subsystems  []twin.ArchitectureSubsystem `json:"subsystems" jsonschema:"the subsystems, each named once"`
	Interfaces  []twin.ArchitectureInterface `json:"interfaces,omitempty" jsonschema:"the interfaces between subsystems, each named once, with the quantities they carry"`
	itemArgs
}

func commitSystemArchitecture(ctx context.Context, b *Backend, a commitSystemArchitectureArgs) (any, error) {
	w := twin.ArchitectureWrite{Name: a.Name, Description: a.Description, Subsystems: a.Subsystems, Interfaces: a.Interfaces,
		WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	arch, it, err := twin.CommitSystemArchitecture(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	quantities := 0
	for _, in := range arch.Interfaces {
		quantities += len(in.Quantities)
	}
	out := written(arch.Node, it)
	out["project_id"] = p.ID
	out["subsystems"], out["interfaces"] = arch.Subsystems, arch.Interfaces
	out["subsystem_count"], out["interface_count"], out["quantity_count"] = len(arch.Subsystems), len(arch.Interfaces), quantities
	return out, nil
}
