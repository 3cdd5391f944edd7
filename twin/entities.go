package twin

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// EdgeRelatesTo links an engineering entity to what it traces to.
const EdgeRelatesTo = "RELATES_TO"

// The engineering entity types: definitions (items with revisions) and
// records (one node each).
var (
	definitionEntities = []string{"intent", "stakeholder_need", "objective"}
	recordEntities     = []string{"assumption", "question", "risk", "interface", "test_case", "verification_case", "budget",
		"waiver", "release_approval", "concept_option"}
	// controlRecords are the records only their own rules write (a
	// baseline, a release package, a maturity gate attempt, a bring-up
	// checklist), never twin.record_engineering_entity: a release package
	// recorded by hand would skip the G8 gate, a checklist by hand its
	// build order.
	controlRecords = []string{BaselineNodeType, ReleasePackageNodeType, MaturityGateNodeType, BringupChecklistNodeType}
)

// EntityTypes are the engineering entity types: the definitions, then the
// records.
func EntityTypes() []string { return slices.Concat(definitionEntities, recordEntities) }

// RecordTypes are the node types that are records, not revisions: what an
// untyped search looks through besides the items.
func RecordTypes() []string {
	return slices.Concat([]string{"evidence", "claim", ApprovalNodeType}, recordEntities, controlRecords, builtRecords)
}

// ParentRef is an existing node an entity links to: Ref (KEY@n, KEY or a
// node id) over Edge (RELATES_TO when empty, or CONTAINS).
type ParentRef struct{ Ref, Edge string }

// EntityWrite is an engineering entity to record.
type EntityWrite struct {
	ProjectID                     string
	EntityType, Name, Description string
	Properties                    map[string]any
	ParentRefs                    []ParentRef
	// WriteInfo's item fields apply to the definitions only.
	WriteInfo
}

// Check refuses an entity with no name, item arguments on a record, or a
// budget no roll-up can read, before anything is read.
func (w EntityWrite) Check() error {
	if strings.TrimSpace(w.Name) == "" {
		return Refusef("Missing: name")
	}
	if w.EntityType == ReleasePackageNodeType {
		return Refusef("a release_package is not recorded by hand: twin.create_release_package records one when the G8 release gate passes " +
			"(twin.list_maturity_gates shows what it still needs)")
	}
	if !slices.Contains(definitionEntities, w.EntityType) && (w.ItemKey != "" || w.Supersedes != "" || w.ChangeReason != "") {
		return Refusef("a %s is a record, not a revision of an item: leave out item_key, supersedes and change_reason "+
			"(they apply to intent, stakeholder_need and objective)", w.EntityType)
	}
	if w.EntityType == "budget" {
		var missing []string
		for _, k := range []string{"metric", "unit", "system_total"} {
			if v, ok := w.Properties[k]; !ok || v == nil || v == "" {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return Refusef("a budget needs %s in properties (what is budgeted, its unit and the system total), or no rollup can read it",
				strings.Join(missing, ", "))
		}
	}
	return nil
}

// Entity is a recorded engineering entity.
type Entity struct {
	Node Node
	// Item is the definition's item; nil for a record.
	Item    *Item
	Parents []EntityParent
}

// EntityParent is a node an entity was linked to.
type EntityParent struct {
	Edge, NodeID, NodeType string
	// Ref is its KEY@n, or "" for a record.
	Ref string
}

// RecordEntity records an engineering entity: a definition as the next
// revision of its item, a record as one node; linked to its parents, each
// once per edge.
func RecordEntity(ctx context.Context, s Store, w EntityWrite) (Entity, error) {
	if err := w.Check(); err != nil {
		return Entity{}, err
	}
	name := strings.TrimSpace(w.Name)
	var links []Link
	out := Entity{Parents: []EntityParent{}}
	seen := map[string]bool{}
	for _, pr := range w.ParentRefs {
		edge := pr.Edge
		if edge == "" {
			edge = EdgeRelatesTo
		}
		n, err := ResolveRef(ctx, s, w.ProjectID, pr.Ref)
		if err != nil {
			return Entity{}, fmt.Errorf("parent_refs %s: %w", pr.Ref, err)
		}
		if seen[edge+n.ID] {
			continue
		}
		seen[edge+n.ID] = true
		props := map[string]any{}
		if ref := n.Ref(); ref != "" {
			props["ref"] = ref
		}
		links = append(links, Link{Type: edge, To: n.ID, Properties: props})
		out.Parents = append(out.Parents, EntityParent{Edge: edge, NodeID: n.ID, NodeType: n.Type, Ref: n.Ref()})
	}
	props := map[string]any{}
	for k, v := range w.Properties {
		props[k] = v
	}
	if w.Description != "" {
		props["description"] = w.Description
	}
	if slices.Contains(definitionEntities, w.EntityType) {
		n, it, err := s.CommitRevision(ctx, w.Revision(w.ProjectID, w.EntityType, name, props, links))
		if err != nil {
			return Entity{}, err
		}
		out.Node, out.Item = n, &it
		return out, nil
	}
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: w.EntityType, Name: name, Properties: props, Links: links,
		IdempotencyKey: w.IdempotencyKey})
	if err != nil {
		return Entity{}, err
	}
	out.Node = n
	return out, nil
}
