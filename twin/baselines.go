package twin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A baseline fixes a project's configuration: the head revision of every
// item (constraint sets, engineering definitions, parts, decisions...) and
// every engineering entity record, pinned in one record a person approved.
// G8 reads the latest one: a release ships the configuration a baseline
// fixed, not whatever the heads are at the moment.

// BaselineNodeType is the record a baseline leaves; EdgePins links it to
// each revision it pins.
const (
	BaselineNodeType = "baseline"
	EdgePins         = "PINS"
)

// BaselineWrite asks for a baseline of a project.
type BaselineWrite struct {
	ProjectID string
	// ApprovedBy is the person who approved it; ApproverVerified whether
	// their identity was checked.
	ApprovedBy       string
	ApproverVerified bool
	Reason           string
	IdempotencyKey   string
}

// Check refuses a baseline no one approved or with no reason, before
// anything is read.
func (w BaselineWrite) Check() error {
	var missing []string
	if strings.TrimSpace(w.ApprovedBy) == "" {
		missing = append(missing, "approved_by (the person who approved it)")
	}
	if strings.TrimSpace(w.Reason) == "" {
		missing = append(missing, "reason (why the configuration is fixed now)")
	}
	if len(missing) > 0 {
		return Refusef("Missing: %s", strings.Join(missing, ", "))
	}
	return nil
}

// Baseline is a recorded baseline.
type Baseline struct {
	Node Node
	// Items are the pinned item revisions (KEY@n), by key; Entities the
	// engineering entity records it names (node ids), which never change.
	Items    []string
	Entities []string
	// ConstraintSets are the pinned constraint set revisions, a subset
	// of Items.
	ConstraintSets   []string
	ApprovedBy       string
	ApproverVerified bool
	Reason           string
}

// CreateBaseline pins the head of every item of the project and names
// every engineering entity record, in one baseline record written only if
// no pinned head moved while it was read (the store checks the heads in
// the write's own transaction): a moved head aborts the whole baseline
// with ErrStaleRevision naming it. A project with nothing to pin is
// refused. A project may have many baselines.
func CreateBaseline(ctx context.Context, s Store, w BaselineWrite) (Baseline, error) {
	if err := w.Check(); err != nil {
		return Baseline{}, err
	}
	items, err := s.Items(ctx, w.ProjectID)
	if err != nil {
		return Baseline{}, err
	}
	b := Baseline{Items: []string{}, Entities: []string{}, ConstraintSets: []string{}, ApprovedBy: strings.TrimSpace(w.ApprovedBy),
		ApproverVerified: w.ApproverVerified, Reason: strings.TrimSpace(w.Reason)}
	heads := map[string]int{}
	var links []Link
	for _, it := range items {
		heads[it.Key] = it.HeadRevision
		b.Items = append(b.Items, it.HeadRef())
		if it.ItemType == "constraint_set" {
			b.ConstraintSets = append(b.ConstraintSets, it.HeadRef())
		}
		links = append(links, Link{Type: EdgePins, To: it.HeadNodeID, Properties: map[string]any{"ref": it.HeadRef()}})
	}
	for _, t := range recordEntities {
		ns, err := s.NodesByType(ctx, w.ProjectID, t)
		if err != nil {
			return Baseline{}, err
		}
		for _, n := range ns {
			b.Entities = append(b.Entities, n.ID)
			links = append(links, Link{Type: EdgePins, To: n.ID, Properties: map[string]any{"entity_type": n.Type}})
		}
	}
	if len(b.Items) == 0 && len(b.Entities) == 0 {
		return Baseline{}, Refusef("project %s has nothing to baseline: record its requirements (twin.record_constraint_set), "+
			"engineering entities or parts first", w.ProjectID)
	}
	props := map[string]any{"items": b.Items, "entities": b.Entities, "constraint_sets": b.ConstraintSets,
		"approved_by": b.ApprovedBy, "approver_verified": b.ApproverVerified, "reason": b.Reason}
	existing, err := s.NodesByType(ctx, w.ProjectID, BaselineNodeType)
	if err != nil {
		return Baseline{}, err
	}
	name := fmt.Sprintf("Baseline %d", len(existing)+1)
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: BaselineNodeType, Name: name, Properties: props, Links: links,
		IdempotencyKey: w.IdempotencyKey, ExpectHeads: heads})
	if errors.Is(err, ErrStaleRevision) {
		return Baseline{}, fmt.Errorf("the baseline was not written: %w", err)
	}
	if err != nil {
		return Baseline{}, err
	}
	return baselineOf(n), nil
}

// Baselines lists a project's baselines, oldest first.
func Baselines(ctx context.Context, s Store, projectID string) ([]Baseline, error) {
	ns, err := s.NodesByType(ctx, projectID, BaselineNodeType)
	if err != nil {
		return nil, err
	}
	out := make([]Baseline, 0, len(ns))
	for _, n := range ns {
		out = append(out, baselineOf(n))
	}
	return out, nil
}

// baselineOf reads a baseline record back.
func baselineOf(n Node) Baseline {
	b := Baseline{Node: n, Items: orEmpty(stringList(n.Properties["items"])), Entities: orEmpty(stringList(n.Properties["entities"])),
		ConstraintSets: orEmpty(stringList(n.Properties["constraint_sets"]))}
	b.ApprovedBy, _ = n.Properties["approved_by"].(string)
	b.ApproverVerified, _ = n.Properties["approver_verified"].(bool)
	b.Reason, _ = n.Properties["reason"].(string)
	return b
}

// MovedSince names each item whose head is not the revision the baseline
// pinned (KEY@pinned -> KEY@head), and each item the baseline does not
// pin at all; none when the configuration is as the baseline fixed it.
func MovedSince(ctx context.Context, s Store, b Baseline) ([]string, error) {
	items, err := s.Items(ctx, b.Node.ProjectID)
	if err != nil {
		return nil, err
	}
	pinned := map[string]string{}
	for _, ref := range b.Items {
		if k, _, err := ParseItemRef(ref); err == nil {
			pinned[k] = ref
		}
	}
	var out []string
	for _, it := range items {
		ref, ok := pinned[it.Key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s (new since the baseline)", it.HeadRef()))
		case ref != it.HeadRef():
			out = append(out, fmt.Sprintf("%s -> %s", ref, it.HeadRef()))
		}
	}
	return out, nil
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return slices.Clip(xs)
}
