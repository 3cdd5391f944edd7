package twin

import "context"

// Part is one item in a project's product breakdown: the CONTAINS tree
// over the items' heads.
type Part struct {
	ItemRef, ItemType, Name string
	// Cycle marks an item met again below itself; nothing under it is
	// walked.
	Cycle    bool
	Children []Part
	// MassKg is the item's mass, or the sum of its children's, only when
	// every part below has one; MassUnknownFor names the cad_models
	// without one. An unknown mass is listed, never counted as zero.
	MassKg         *float64
	MassUnknownFor []string
}

// Breakdown is the CONTAINS tree of a project's items: the roots, each
// with what it contains, and mass rolled up where it is recorded.
func Breakdown(ctx context.Context, s Store, projectID string) ([]Part, error) {
	items, err := s.Items(ctx, projectID)
	if err != nil {
		return nil, err
	}
	type entry struct {
		ref, typ, name string
		mass           *float64
		children       []string
		hasParent      bool
	}
	entries := map[string]*entry{}
	var order []string
	for _, it := range items {
		head, err := s.GetNode(ctx, it.HeadNodeID)
		if err != nil {
			return nil, err
		}
		e := &entry{ref: it.HeadRef(), typ: it.ItemType, name: it.Name}
		if m, ok := head.Properties["mass_kg"].(float64); ok {
			e.mass = &m
		}
		entries[head.ID] = e
		order = append(order, head.ID)
	}
	for _, id := range order {
		kids, err := s.Neighbors(ctx, id, Outgoing, EdgeContains)
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			if c, ok := entries[k.Node.ID]; ok {
				entries[id].children = append(entries[id].children, k.Node.ID)
				c.hasParent = true
			}
		}
	}
	var build func(id string, seen map[string]bool) (Part, *float64, []string)
	build = func(id string, seen map[string]bool) (Part, *float64, []string) {
		e := entries[id]
		part := Part{ItemRef: e.ref, ItemType: e.typ, Name: e.name}
		if seen[id] {
			part.Cycle = true
			return part, nil, []string{e.ref}
		}
		seen[id] = true
		defer delete(seen, id)
		total, unknown := e.mass, []string(nil)
		if len(e.children) == 0 && e.mass == nil && e.typ == "cad_model" {
			unknown = append(unknown, e.ref)
		}
		for _, c := range e.children {
			kp, km, ku := build(c, seen)
			part.Children = append(part.Children, kp)
			unknown = append(unknown, ku...)
			if km != nil && e.mass == nil {
				sum := *km
				if total != nil {
					sum += *total
				}
				total = &sum
			}
		}
		if len(unknown) == 0 && total != nil {
			part.MassKg = total
		} else if len(unknown) > 0 {
			part.MassUnknownFor = unknown
		}
		return part, total, unknown
	}
	var roots []Part
	for _, id := range order {
		if !entries[id].hasParent {
			p, _, _ := build(id, map[string]bool{})
			roots = append(roots, p)
		}
	}
	return roots, nil
}
