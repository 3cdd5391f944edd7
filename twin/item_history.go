package twin

import (
	"context"
	"fmt"
	"time"
)

// An item's history as a person reads it: every revision, oldest first,
// each with the evidence computed against it (pinned VALID_AGAINST), so
// one sees which results describe which revision and which went stale when
// the item moved on.

// RevisionRecord is one revision of an item.
type RevisionRecord struct {
	Revision     int       `json:"revision"`
	Ref          string    `json:"ref"`
	NodeID       string    `json:"node_id"`
	Name         string    `json:"name"`
	ChangeReason string    `json:"change_reason,omitempty"`
	Author       string    `json:"author,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	IsHead       bool      `json:"is_head"`
	// Evidence is what was computed against this revision.
	Evidence []EvidenceRecord `json:"evidence"`
}

// ItemHistory is an item and its revisions.
type ItemHistory struct {
	Item      Item             `json:"item"`
	HeadRef   string           `json:"head_ref"`
	Revisions []RevisionRecord `json:"revisions"`
}

// ReadItemHistory reads the history of the item ref names (KEY, or KEY@n:
// the item either way) in a project; an unknown key is ErrNotFound.
func ReadItemHistory(ctx context.Context, s Store, projectID, ref string) (ItemHistory, error) {
	key, _, err := ParseItemRef(ref)
	if err != nil {
		return ItemHistory{}, err
	}
	it, err := s.GetItem(ctx, projectID, key)
	if err != nil {
		return ItemHistory{}, fmt.Errorf("%w: %s names no item in project %s", ErrNotFound, key, projectID)
	}
	revs, err := s.Revisions(ctx, projectID, it.Key)
	if err != nil {
		return ItemHistory{}, err
	}
	h := ItemHistory{Item: it, HeadRef: it.HeadRef(), Revisions: make([]RevisionRecord, 0, len(revs))}
	for _, n := range revs {
		r := RevisionRecord{Revision: n.Revision, Ref: n.Ref(), NodeID: n.ID, Name: n.Name, ChangeReason: n.ChangeReason, Author: n.Author,
			CreatedAt: n.CreatedAt, IsHead: n.ID == it.HeadNodeID, Evidence: []EvidenceRecord{}}
		pins, err := s.Neighbors(ctx, n.ID, Incoming, EdgeValidAgainst)
		if err != nil {
			return ItemHistory{}, err
		}
		for _, p := range pins {
			if p.Node.Type != "evidence" {
				continue
			}
			e, err := EvidenceRecordOf(ctx, s, p.Node)
			if err != nil {
				return ItemHistory{}, err
			}
			r.Evidence = append(r.Evidence, e)
		}
		h.Revisions = append(h.Revisions, r)
	}
	return h, nil
}
