package twin

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// BringupChecklistNodeType is the record a bring-up checklist leaves: the
// build order of an assembly's joints, pinned to the assembly revision it
// was derived from.
const BringupChecklistNodeType = "bringup_checklist"

// Assembly is a node that records joints, with its joints checked.
type Assembly struct {
	Node   Node
	Joints []Joint
}

// AssemblyJoints reads the joints an assembly records (ref: KEY, KEY@n or
// a node id). An assembly with no joints is refused saying how to record
// them; when the assembly contains positions, every joint's base and
// follower must name one of them (or the assembly itself).
func AssemblyJoints(ctx context.Context, s Store, projectID, ref string) (Assembly, error) {
	n, err := ResolveRef(ctx, s, projectID, ref)
	if err != nil {
		return Assembly{}, fmt.Errorf("assembly %s: %w", ref, err)
	}
	joints, err := JointsOf(n)
	if err != nil {
		return Assembly{}, err
	}
	if len(joints) == 0 {
		return Assembly{}, Refusef("%s (%s %q) records no joints: record the assembly's joints (base, follower, type, anchor_mm) "+
			"with twin.record_hierarchy_node on an assembly position", ref, n.Type, n.Name)
	}
	if err := CheckJoints(joints); err != nil {
		return Assembly{}, err
	}
	names, err := containedNames(ctx, s, n)
	if err != nil {
		return Assembly{}, err
	}
	if len(names) == 0 {
		return Assembly{Node: n, Joints: joints}, nil
	}
	parts := map[string]bool{strings.ToLower(n.Name): true}
	for _, name := range names {
		parts[strings.ToLower(name)] = true
	}
	for _, j := range joints {
		for _, part := range []string{j.Base, j.Follower} {
			if !parts[strings.ToLower(strings.TrimSpace(part))] {
				return Assembly{}, Refusef("joint %q names %q, which %s does not contain; its positions are %s",
					j.Name, part, n.Name, strings.Join(names, ", "))
			}
		}
	}
	return Assembly{Node: n, Joints: joints}, nil
}

// containedNames are the names of what an assembly contains, sorted: a
// hierarchy position's children as the hierarchy reads them (each at its
// head), or the nodes any other node CONTAINS.
func containedNames(ctx context.Context, s Store, n Node) ([]string, error) {
	var names []string
	if n.Type == HierarchyNodeType {
		kids, err := hierarchyChildren(ctx, s, n)
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			names = append(names, k.node.Name)
		}
	} else {
		kids, err := s.Neighbors(ctx, n.ID, Outgoing, EdgeContains)
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			names = append(names, k.Node.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Checklist is a recorded bring-up checklist.
type Checklist struct {
	Node     Node
	Assembly Node
	Steps    []BuildStep
}

// CreateBringupChecklist records the build order of an assembly's joints
// as a checklist, DEPENDS_ON the assembly revision it was derived from, so
// a revised assembly shows the checklist as derived from an older one. A
// cyclic joint graph is refused naming the cycle, and nothing is written.
func CreateBringupChecklist(ctx context.Context, s Store, projectID, assemblyRef, idempotencyKey string) (Checklist, error) {
	a, err := AssemblyJoints(ctx, s, projectID, assemblyRef)
	if err != nil {
		return Checklist{}, err
	}
	steps, err := BuildOrder(a.Joints)
	if err != nil {
		return Checklist{}, err
	}
	lines := make([]any, 0, len(steps))
	for _, st := range steps {
		lines = append(lines, st.Text())
	}
	props := map[string]any{"assembly": a.Node.RefOrID(), "steps": lines, "step_count": len(steps)}
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: projectID, Type: BringupChecklistNodeType, Name: a.Node.Name + " bring-up",
		Properties: props, IdempotencyKey: idempotencyKey,
		Links: []Link{{Type: EdgeDependsOn, To: a.Node.ID, Properties: map[string]any{"ref": a.Node.Ref(), "as": "assembly"}}}})
	if err != nil {
		return Checklist{}, err
	}
	return Checklist{Node: n, Assembly: a.Node, Steps: steps}, nil
}
