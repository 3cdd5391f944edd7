package twin

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// ChangeEventType is the node type of an engineering change's history
// record.
const ChangeEventType = "change_event"

// ChangeEvent is one step of an engineering change's history (proposed,
// analysed, approved, committed, rolled back...), recorded in the twin so
// the change's story stays with the design it changed.
type ChangeEvent struct {
	ProjectID string         `json:"project_id"`
	ChangeID  string         `json:"change_id"`
	Seq       int            `json:"seq"`
	State     string         `json:"state"`
	Actor     string         `json:"actor,omitempty"`
	Note      string         `json:"note,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
}

// changeEventKey is the event's idempotency key: one record per change and
// sequence number, whoever retries it.
func changeEventKey(e ChangeEvent) string {
	return fmt.Sprintf("change-event/%s/%s/%d", e.ProjectID, e.ChangeID, e.Seq)
}

// RecordChangeEvent records one event of a change as a record node
// (ChangeEventType). A repeat of the change id and seq returns the first
// record and writes nothing.
func RecordChangeEvent(ctx context.Context, s Store, e ChangeEvent) (Node, error) {
	if strings.TrimSpace(e.ChangeID) == "" {
		return Node{}, Refusef("a change event needs the change id")
	}
	if e.Seq < 1 {
		return Node{}, Refusef("change %s: event seq %d: number a change's events from 1", e.ChangeID, e.Seq)
	}
	if strings.TrimSpace(e.State) == "" {
		return Node{}, Refusef("change %s: event %d has no state: say what the change became", e.ChangeID, e.Seq)
	}
	props := map[string]any{"change_id": e.ChangeID, "seq": e.Seq, "state": e.State}
	if e.Actor != "" {
		props["actor"] = e.Actor
	}
	if e.Note != "" {
		props["note"] = e.Note
	}
	if e.Data != nil {
		props["data"] = e.Data
	}
	return s.RecordNode(ctx, RecordWrite{ProjectID: e.ProjectID, Type: ChangeEventType,
		Name: fmt.Sprintf("change %s #%d: %s", e.ChangeID, e.Seq, e.State), Properties: props, IdempotencyKey: changeEventKey(e)})
}

// ChangeEvents are a change's recorded events, by seq.
func ChangeEvents(ctx context.Context, s Store, projectID, changeID string) ([]Node, error) {
	all, err := s.NodesByType(ctx, projectID, ChangeEventType)
	if err != nil {
		return nil, err
	}
	out := []Node{}
	for _, n := range all {
		if id, _ := n.Properties["change_id"].(string); id == changeID {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return eventSeq(out[i]) < eventSeq(out[j]) })
	return out, nil
}

// eventSeq is an event node's seq (a store may give it back as float64).
func eventSeq(n Node) int {
	v, _ := NumberOf(n.Properties["seq"])
	return int(v)
}
