package twin

import (
	"context"
	"fmt"
)

// Freshness says whether evidence still describes the current design.
type Freshness struct {
	Stale bool
	// Against lists, for stale evidence, each pinned revision that is no
	// longer its item's head.
	Against []StalePin
}

// StalePin is a revision evidence was computed against, and the head its
// item has moved to since.
type StalePin struct {
	Head   string `json:"head"`
	Pinned string `json:"pinned"`
}

// Staleness checks each revision the evidence is pinned to (VALID_AGAINST)
// against its item's head: a newer head means the evidence describes an
// older design.
func Staleness(ctx context.Context, s Store, evidenceID string) (Freshness, error) {
	pins, err := s.Neighbors(ctx, evidenceID, Outgoing, EdgeValidAgainst)
	if err != nil {
		return Freshness{}, err
	}
	f := Freshness{Against: []StalePin{}}
	for _, pin := range pins {
		it, err := s.ItemOfNode(ctx, pin.Node.ID)
		if err != nil {
			return Freshness{}, err
		}
		if it.HeadRevision > pin.Node.Revision {
			f.Stale = true
			f.Against = append(f.Against, StalePin{Pinned: pin.Node.Ref(), Head: it.HeadRef()})
		}
	}
	return f, nil
}

// SupersededBy lists the evidence that replaces this evidence (SUPERSEDES
// into it), oldest first: evidence a revalidation re-ran is replaced, not
// deleted, so its history stays.
func SupersededBy(ctx context.Context, s Store, evidenceID string) ([]Node, error) {
	ns, err := s.Neighbors(ctx, evidenceID, Incoming, EdgeSupersedes)
	if err != nil {
		return nil, err
	}
	out := make([]Node, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.Node)
	}
	return out, nil
}

// EvidenceWrite is a result to record as evidence.
type EvidenceWrite struct {
	ProjectID, Name, Kind string
	Metric                string
	Value                 *float64
	Unit                  string
	// ValidAgainst are the item refs (KEY@n, KEY) or node ids of the
	// revisions it was computed against; Verifies the refs of the
	// requirements it bears on.
	ValidAgainst, Verifies []string
	// Supersedes are the node ids of evidence this result replaces (a
	// revalidation re-running a stale result): linked SUPERSEDES, so the
	// stale one no longer counts against a release.
	Supersedes     []string
	Data           map[string]any
	IdempotencyKey string
}

// Check refuses a value with no metric, before anything is read.
func (w EvidenceWrite) Check() error {
	if w.Value != nil && w.Metric == "" {
		return Refusef("value %v has no metric: say what was measured (metric) and in what unit", *w.Value)
	}
	return nil
}

// RecordEvidence records a result pinned (VALID_AGAINST) to the exact
// revisions it was computed against and linked (VERIFIES) to the
// requirements it bears on; pinned are the pins' KEY@n. A value with no
// metric, or a pin on a record, is refused.
func RecordEvidence(ctx context.Context, s Store, w EvidenceWrite) (n Node, pinned []string, f Freshness, err error) {
	if err := w.Check(); err != nil {
		return Node{}, nil, Freshness{}, err
	}
	var links []Link
	for _, ref := range w.ValidAgainst {
		n, err := ResolveRef(ctx, s, w.ProjectID, ref)
		if err != nil {
			return Node{}, nil, Freshness{}, fmt.Errorf("valid_against %s: %w", ref, err)
		}
		if n.ItemKey == "" {
			return Node{}, nil, Freshness{}, Refusef("valid_against %s: that is a %s record, not a revision of an item; pin evidence to what it was computed against", ref, n.Type)
		}
		links = append(links, Link{Type: EdgeValidAgainst, To: n.ID, Properties: map[string]any{"ref": n.Ref()}})
		pinned = append(pinned, n.Ref())
	}
	for _, ref := range w.Verifies {
		n, err := ResolveRef(ctx, s, w.ProjectID, ref)
		if err != nil {
			return Node{}, nil, Freshness{}, fmt.Errorf("verifies %s: %w", ref, err)
		}
		links = append(links, Link{Type: EdgeVerifies, To: n.ID, Properties: map[string]any{"ref": n.Ref()}})
	}
	for _, id := range w.Supersedes {
		old, err := s.GetNode(ctx, id)
		if err != nil {
			return Node{}, nil, Freshness{}, fmt.Errorf("supersedes %s: %w", id, err)
		}
		if old.Type != "evidence" || old.ProjectID != w.ProjectID {
			return Node{}, nil, Freshness{}, Refusef("supersedes %s: that is a %s in project %s, not evidence of this project; name the evidence this result replaces", id, old.Type, old.ProjectID)
		}
		links = append(links, Link{Type: EdgeSupersedes, To: old.ID})
	}
	props := map[string]any{"kind": w.Kind}
	if w.Metric != "" {
		props["metric"] = w.Metric
	}
	if w.Value != nil {
		props["value"] = *w.Value
	}
	if w.Unit != "" {
		props["unit"] = w.Unit
	}
	if w.Data != nil {
		props["data"] = w.Data
	}
	n, err = s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: "evidence", Name: w.Name, Properties: props, Links: links,
		IdempotencyKey: w.IdempotencyKey})
	if err != nil {
		return Node{}, nil, Freshness{}, err
	}
	f, err = Staleness(ctx, s, n.ID)
	return n, pinned, f, err
}
