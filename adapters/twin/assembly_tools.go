package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

// assemblyTools derive what building and wiring an assembly needs from the
// joints it records: thin over twin's rules (build_order.go, bringup.go,
// firmware_scaffold.go, harness.go).
func assemblyTools() []tool {
	return []tool{createBringupChecklistTool(), createFirmwareScaffoldTool(), getHarnessEstimateTool()}
}

// assemblyArgs name the assembly whose joints a tool reads.
type assemblyArgs struct {
	project.Scope
	AssemblyRef string `json:"assembly_ref" jsonschema:"the assembly that records the joints: KEY, KEY@n or a node id (an assembly position of twin.record_hierarchy_node)"`
}

var assemblyRule = adapters.At("assembly_ref", adapters.MinLength(1), adapters.MaxLength(200))

func createBringupChecklistTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.create_bringup_checklist", Name: "Create a bring-up checklist", Capability: "twin_write",
		Description: "Order an assembly's recorded joints into a build sequence (each part attached after every part it is mounted on; " +
			"a part no joint moves is a root, and several roots are fine) and record it as a bringup_checklist, pinned to the assembly " +
			"revision it was derived from. Steps read \"Step n: attach <follower> to <base> via <joint> (<type> joint)\". A cyclic joint " +
			"graph is refused naming the cycle, and nothing is written.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, createBringupChecklist, assemblyRule)
}

func createBringupChecklist(ctx context.Context, b *Backend, a assemblyArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	cl, err := twin.CreateBringupChecklist(ctx, b.Store, p.ID, a.AssemblyRef, callID(ctx))
	if err != nil {
		return nil, err
	}
	steps := make([]map[string]any, 0, len(cl.Steps))
	for _, st := range cl.Steps {
		steps = append(steps, map[string]any{"step": st.Step, "text": st.Text(), "joint": st.Joint.Name, "type": st.Joint.Type,
			"base": st.Joint.Base, "follower": st.Joint.Follower})
	}
	return map[string]any{"node_id": cl.Node.ID, "project_id": p.ID, "name": cl.Node.Name, "assembly": cl.Assembly.RefOrID(),
		"steps": steps}, nil
}

func createFirmwareScaffoldTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.create_firmware_scaffold", Name: "Create a firmware scaffold", Capability: "twin_write",
		Description: "Derive an assembly's firmware scaffold from its recorded joints and a recorded pin mapping: a CAN node id per " +
			"moving joint in bring-up order (1 upwards; a placeholder scheme, fixed joints get none), the pin mapping as a CSV " +
			"(reference,pin,pin_name,net) and an include-guarded C header (a define per pin by net, one joint_config_t per moving joint " +
			"with can_id and limits). pin_mapping_ref is a document whose text is kicad.get_pin_mapping's result (record it with " +
			"twin.record_document). Both are recorded together as the next revisions of the documents \"<assembly> pin map\" " +
			"(document_type pinmap) and \"<assembly> firmware header\" (firmware_source), pinned to the assembly and the pin mapping. " +
			"The same twin gives the same bytes. A cyclic joint graph is refused as the bring-up checklist refuses it.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, createFirmwareScaffold,
		assemblyRule, adapters.At("pin_mapping_ref", adapters.MinLength(1), adapters.MaxLength(200)))
}

type createFirmwareScaffoldArgs struct {
	assemblyArgs
	PinMappingRef string `json:"pin_mapping_ref" jsonschema:"a document recording kicad.get_pin_mapping's result: KEY, KEY@n or a node id"`
}

func createFirmwareScaffold(ctx context.Context, b *Backend, a createFirmwareScaffoldArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	sc, err := twin.CreateFirmwareScaffold(ctx, b.Store, twin.ScaffoldWrite{ProjectID: p.ID, AssemblyRef: a.AssemblyRef,
		PinMappingRef: a.PinMappingRef, Author: author(ctx), IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	nodes := make([]map[string]any, 0, len(sc.Nodes))
	for _, n := range sc.Nodes {
		row := map[string]any{"joint": n.Joint.Name, "can_id": n.CANID, "type": n.Joint.Type}
		if n.Joint.LowerLimit != nil && n.Joint.UpperLimit != nil {
			row["lower_limit"], row["upper_limit"] = *n.Joint.LowerLimit, *n.Joint.UpperLimit
		}
		nodes = append(nodes, row)
	}
	fixed := sc.Fixed
	if fixed == nil {
		fixed = []string{}
	}
	return map[string]any{"project_id": p.ID, "assembly": sc.Assembly.RefOrID(), "pin_mapping": sc.PinMappingNode.RefOrID(),
		"can_nodes": nodes, "fixed_joints": fixed, "pinmap_csv": sc.CSV, "header": sc.Header,
		"pinmap":          map[string]any{"node_id": sc.PinMap.ID, "item_ref": sc.PinMap.Ref()},
		"firmware_header": map[string]any{"node_id": sc.HeaderDocument.ID, "item_ref": sc.HeaderDocument.Ref()}}, nil
}

func getHarnessEstimateTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.get_harness_estimate", Name: "Estimate an assembly's harness", Capability: "twin_read",
		Description: "Estimate the cable to each joint of an assembly: conductors (a joint's conductors, else 4 for a moving joint: a " +
			"power pair and a CAN pair; 0 for fixed) and a length routed along the links, the sum of the anchor offsets (anchor_mm, in " +
			"each base's frame) of the joints from the root down to it. An estimate of a routed length, not a routed path. A joint " +
			"without anchor_mm leaves its cable and every cable beyond it unknown, named, never counted as zero. power_tree is the " +
			"product the assembly is in, from its root: each branch's peak and average draw and dissipation in W, as " +
			"twin.compute_hierarchy_rollup rolls them up (a leaf with no power recorded is no_data, named). Writes nothing.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, getHarnessEstimate, assemblyRule)
}

func getHarnessEstimate(ctx context.Context, b *Backend, a assemblyArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	h, err := twin.HarnessEstimate(ctx, b.Store, p.ID, a.AssemblyRef)
	if err != nil {
		return nil, err
	}
	entries := make([]map[string]any, 0, len(h.Entries))
	for _, e := range h.Entries {
		row := map[string]any{"joint": e.Joint.Name, "base": e.Joint.Base, "follower": e.Joint.Follower, "conductors": e.Conductors,
			"routed_along": e.Chain}
		if e.LengthMM != nil {
			row["length_mm"] = *e.LengthMM
		} else {
			row["length_mm"], row["status"], row["detail"] = nil, "no_data", e.UnknownBecause
		}
		entries = append(entries, row)
	}
	out := map[string]any{"project_id": p.ID, "assembly": h.Assembly.RefOrID(), "harness": entries,
		"length_unknown_for": h.Unknown, "known_conductor_mm": *h.KnownConductorMM,
		"method": "sum of joint anchor offsets along the kinematic chain from the root: an estimate, not a routed path"}
	if h.ConductorMM != nil {
		out["total_conductor_mm"] = *h.ConductorMM
	} else {
		out["total_conductor_mm"] = nil
	}
	if h.PowerTree != nil {
		out["power_tree"] = h.PowerTree
	} else {
		out["power_tree"] = nil
		out["power_tree_note"] = "the assembly is not a position of a product hierarchy (twin.record_hierarchy_node), so there is no tree to roll power up"
	}
	return out, nil
}
