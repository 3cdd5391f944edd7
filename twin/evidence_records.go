package twin

import (
	"context"
	"time"
)

// Evidence as a person reviews it: what each record measured, the
// revisions it was computed against, what it verifies, and whether it is
// still fresh (every pin is its item's head) or stale, and what replaced it.

// EvidenceRecord is one evidence node with its freshness.
type EvidenceRecord struct {
	NodeID    string    `json:"node_id"`
	Name      string    `json:"name"`
	Kind      string    `json:"kind,omitempty"`
	Metric    string    `json:"metric,omitempty"`
	Value     *float64  `json:"value,omitempty"`
	Unit      string    `json:"unit,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// ValidAgainst are the revisions it was computed against (KEY@n);
	// Verifies what it bears on (KEY@n, or a record's id).
	ValidAgainst []string `json:"valid_against"`
	Verifies     []string `json:"verifies"`
	// Freshness is fresh or stale; StaleAgainst names each pin whose item
	// has moved on, with its head now.
	Freshness    string     `json:"freshness"`
	StaleAgainst []StalePin `json:"stale_against,omitempty"`
	// SupersededBy are the evidence ids that replace it.
	SupersededBy []string `json:"superseded_by,omitempty"`
}

// Evidence freshness.
const (
	EvidenceFresh = "fresh"
	EvidenceStale = "stale"
)

// EvidenceRecords lists a project's evidence, oldest first, each with its
// freshness.
func EvidenceRecords(ctx context.Context, s Store, projectID string) ([]EvidenceRecord, error) {
	nodes, err := s.NodesByType(ctx, projectID, "evidence")
	if err != nil {
		return nil, err
	}
	out := make([]EvidenceRecord, 0, len(nodes))
	for _, n := range nodes {
		r, err := EvidenceRecordOf(ctx, s, n)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// EvidenceRecordOf reads one evidence node's pins, what it verifies, its
// freshness and what superseded it.
func EvidenceRecordOf(ctx context.Context, s Store, n Node) (EvidenceRecord, error) {
	r := EvidenceRecord{NodeID: n.ID, Name: n.Name, CreatedAt: n.CreatedAt, ValidAgainst: []string{}, Verifies: []string{}}
	r.Kind, _ = n.Properties["kind"].(string)
	r.Metric, _ = n.Properties["metric"].(string)
	r.Unit, _ = n.Properties["unit"].(string)
	if v, ok := NumberOf(n.Properties["value"]); ok {
		r.Value = &v
	}
	out, err := s.Neighbors(ctx, n.ID, Outgoing, EdgeValidAgainst, EdgeVerifies)
	if err != nil {
		return EvidenceRecord{}, err
	}
	for _, nb := range out {
		if nb.Edge.Type == EdgeValidAgainst {
			r.ValidAgainst = append(r.ValidAgainst, nb.Node.RefOrID())
		} else {
			r.Verifies = append(r.Verifies, nb.Node.RefOrID())
		}
	}
	f, err := Staleness(ctx, s, n.ID)
	if err != nil {
		return EvidenceRecord{}, err
	}
	r.Freshness = EvidenceFresh
	if f.Stale {
		r.Freshness, r.StaleAgainst = EvidenceStale, f.Against
	}
	later, err := SupersededBy(ctx, s, n.ID)
	if err != nil {
		return EvidenceRecord{}, err
	}
	for _, l := range later {
		r.SupersededBy = append(r.SupersededBy, l.ID)
	}
	return r, nil
}
