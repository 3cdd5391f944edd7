package twin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// An agent session's narrative: what the agent thought, did, decided,
// observed and got wrong (session.log_event), and how it ended
// (session.complete). The ledger keeps it when one is configured; without
// one the twin keeps it here, in the project the session works in: an
// agent_session item whose first revision opens the session and whose
// second ends it, and a session_event record per event, IN_SESSION of the
// opening revision. Each event is written expecting the session's head to
// be that opening revision, so no event lands after the session ended,
// whatever the order two calls race in; and ending it asserts the same,
// so it ends once.

// SessionEventKinds are the kinds of narrative event.
var SessionEventKinds = []string{"thought", "action", "decision", "observation", "error"}

// SessionEndings are the statuses a session ends with.
var SessionEndings = []string{"completed", "failed", "abandoned"}

// SessionOpen is an open session's status.
const SessionOpen = "open"

// Narrative bounds.
const (
	MaxSessionText = 20000
	MaxSessionRefs = 20
	maxSessionRef  = 200
)

// The narrative in the twin: its item type, event record type and edge.
const (
	SessionItemType  = "agent_session"
	SessionEventType = "session_event"
	EdgeInSession    = "IN_SESSION"
)

// SessionEvent is one event of a session's narrative.
type SessionEvent struct {
	SessionID string    `json:"session_id"`
	ProjectID string    `json:"project_id,omitempty"`
	Kind      string    `json:"kind"`
	Text      string    `json:"text"`
	Refs      []string  `json:"refs,omitempty"`
	Actor     string    `json:"actor,omitempty"`
	At        time.Time `json:"at"`
	// ID is the event's id where it is kept (a twin node id, a ledger
	// row); CallID the call that logged it, its idempotency key.
	ID     string `json:"event_id,omitempty"`
	CallID string `json:"call_id,omitempty"`
}

// Check refuses an event with no session, an unknown kind, no text, or
// too much, before anything is read.
func (e SessionEvent) Check() error {
	switch {
	case e.SessionID == "":
		return Refusef("this call carries no session identity, so there is no session to narrate: connect over a transport with sessions (Streamable HTTP, or stdio through metaforge mcp)")
	case !slices.Contains(SessionEventKinds, e.Kind):
		return Refusef("kind %q; use one of %s", e.Kind, strings.Join(SessionEventKinds, ", "))
	case blank(e.Text):
		return Refusef("text is blank: say what was thought, done, decided, observed or went wrong")
	case len(e.Text) > MaxSessionText:
		return Refusef("text has %d bytes; keep an event under %d (log several)", len(e.Text), MaxSessionText)
	case len(e.Refs) > MaxSessionRefs:
		return Refusef("refs has %d entries; name at most %d", len(e.Refs), MaxSessionRefs)
	}
	for i, r := range e.Refs {
		if blank(r) || len(r) > maxSessionRef {
			return Refusef("refs[%d] must be a reference (a node id, an item ref, a call id) of 1 to %d characters", i, maxSessionRef)
		}
	}
	return nil
}

// SessionEnd is how a session ended.
type SessionEnd struct {
	SessionID string    `json:"session_id"`
	ProjectID string    `json:"project_id,omitempty"`
	Status    string    `json:"status"`
	Summary   string    `json:"summary"`
	Actor     string    `json:"actor,omitempty"`
	At        time.Time `json:"ended_at"`
	// Events is how many events the session logged.
	Events int    `json:"events"`
	CallID string `json:"call_id,omitempty"`
}

// Check refuses an ending with no session, a status that is not terminal,
// or no summary, before anything is read.
func (e SessionEnd) Check() error {
	switch {
	case e.SessionID == "":
		return Refusef("this call carries no session identity, so there is no session to complete")
	case !slices.Contains(SessionEndings, e.Status):
		return Refusef("status %q; a session ends %s", e.Status, strings.Join(SessionEndings, ", "))
	case blank(e.Summary):
		return Refusef("summary is blank: say what the session did and where it left things")
	case len(e.Summary) > MaxSessionText:
		return Refusef("summary has %d bytes; keep it under %d", len(e.Summary), MaxSessionText)
	}
	return nil
}

// SessionNarrative is a session's narrative read back.
type SessionNarrative struct {
	SessionID string `json:"session_id"`
	ProjectID string `json:"project_id,omitempty"`
	// Status is open until the session ends; End says how it ended.
	Status string         `json:"status"`
	End    *SessionEnd    `json:"end,omitempty"`
	Events []SessionEvent `json:"events"`
}

// SessionEndedError is an event or an ending refused because the session
// has ended. It is a refusal (errors.As finds a *RefusalError in it).
type SessionEndedError struct{ End SessionEnd }

func (e *SessionEndedError) Error() string {
	return fmt.Sprintf("session %s has ended (%s at %s: %s): it takes no more events and cannot end again; a new connection is a new session",
		e.End.SessionID, e.End.Status, e.End.At.UTC().Format(time.RFC3339), e.End.Summary)
}

// Unwrap makes the ending a refusal saying so.
func (e *SessionEndedError) Unwrap() error { return &RefusalError{Message: e.Error()} }

// SessionKey is the agent_session item's key: a hash of the session id,
// so ids differing only in case, or long ids sharing a prefix, never
// share a narrative.
func SessionKey(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return "SESSION-" + strings.ToUpper(hex.EncodeToString(sum[:8]))
}

// openSession writes the session's opening revision once (its idempotency
// key is the project and the session) and returns it and the item.
func openSession(ctx context.Context, s Store, projectID, sessionID, actor string) (Node, Item, error) {
	if projectID == "" {
		return Node{}, Item{}, Refusef("the twin keeps a session's narrative in the project the session works in, and this session has none: " +
			"pass project_id, or pick one with session.start (with a ledger configured, DATABASE_URL, a narrative needs no project)")
	}
	return s.CommitRevision(ctx, RevisionWrite{ProjectID: projectID, ItemType: SessionItemType, Name: sessionID, ItemKey: SessionKey(sessionID),
		Author: actor, Properties: map[string]any{"session_id": sessionID, "status": SessionOpen},
		IdempotencyKey: "agent-session/" + projectID + "/" + sessionID + "/open"})
}

// LogSessionEvent appends an event to the session's narrative in the
// twin. An event after the session ended is a *SessionEndedError (a
// refusal); a repeated call (its CallID) returns the event it logged.
func LogSessionEvent(ctx context.Context, s Store, e SessionEvent) (SessionEvent, error) {
	if err := e.Check(); err != nil {
		return SessionEvent{}, err
	}
	open, item, err := openSession(ctx, s, e.ProjectID, e.SessionID, e.Actor)
	if err != nil {
		return SessionEvent{}, err
	}
	refs := make([]any, len(e.Refs))
	for i, r := range e.Refs {
		refs[i] = strings.TrimSpace(r)
	}
	props := map[string]any{"session_id": e.SessionID, "kind": e.Kind, "text": e.Text, "refs": refs}
	if e.Actor != "" {
		props["actor"] = e.Actor
	}
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: e.ProjectID, Type: SessionEventType, Name: e.Kind + ": " + headline(e.Text),
		Properties: props, Links: []Link{{Type: EdgeInSession, To: open.ID}}, IdempotencyKey: e.CallID,
		ExpectHeads: map[string]int{item.Key: open.Revision}})
	if errors.Is(err, ErrStaleRevision) {
		return SessionEvent{}, endedSession(ctx, s, e.ProjectID, e.SessionID, err)
	}
	if err != nil {
		return SessionEvent{}, err
	}
	return eventOf(n), nil
}

// CompleteSession ends the session's narrative in the twin, with its
// status and summary. A session that ended already is a
// *SessionEndedError; a repeated call (its CallID) returns the ending it
// wrote.
func CompleteSession(ctx context.Context, s Store, e SessionEnd) (SessionEnd, error) {
	if err := e.Check(); err != nil {
		return SessionEnd{}, err
	}
	open, _, err := openSession(ctx, s, e.ProjectID, e.SessionID, e.Actor)
	if err != nil {
		return SessionEnd{}, err
	}
	n, _, err := s.CommitRevision(ctx, RevisionWrite{ProjectID: e.ProjectID, ItemType: SessionItemType, Name: e.SessionID,
		ItemKey: open.Ref(), Author: e.Actor, ChangeReason: "session " + e.Status, IdempotencyKey: e.CallID,
		Properties: map[string]any{"session_id": e.SessionID, "status": e.Status, "summary": e.Summary}})
	if errors.Is(err, ErrStaleRevision) {
		return SessionEnd{}, endedSession(ctx, s, e.ProjectID, e.SessionID, err)
	}
	if err != nil {
		return SessionEnd{}, err
	}
	// Counted once it has ended, when no event can land any more.
	events, err := sessionEvents(ctx, s, e.ProjectID, e.SessionID)
	if err != nil {
		return SessionEnd{}, err
	}
	end := endOf(n)
	end.Events = len(events)
	return end, nil
}

// ReadSessionNarrative reads a session's narrative in a project, its
// events oldest first.
func ReadSessionNarrative(ctx context.Context, s Store, projectID, sessionID string) (SessionNarrative, error) {
	it, err := s.GetItem(ctx, projectID, SessionKey(sessionID))
	if errors.Is(err, ErrNotFound) {
		return SessionNarrative{}, fmt.Errorf("%w: session %s has logged nothing in this project", ErrNotFound, sessionID)
	}
	if err != nil {
		return SessionNarrative{}, err
	}
	head, err := s.GetNode(ctx, it.HeadNodeID)
	if err != nil {
		return SessionNarrative{}, err
	}
	out := SessionNarrative{SessionID: sessionID, ProjectID: projectID, Status: SessionOpen, Events: []SessionEvent{}}
	evs, err := sessionEvents(ctx, s, projectID, sessionID)
	if err != nil {
		return SessionNarrative{}, err
	}
	for _, n := range evs {
		out.Events = append(out.Events, eventOf(n))
	}
	if st, _ := head.Properties["status"].(string); st != SessionOpen {
		end := endOf(head)
		end.Events = len(evs)
		out.Status, out.End = end.Status, &end
	}
	return out, nil
}

// sessionEvents are the session's event records, oldest first.
func sessionEvents(ctx context.Context, s Store, projectID, sessionID string) ([]Node, error) {
	all, err := s.NodesByType(ctx, projectID, SessionEventType)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, n := range all {
		if n.Properties["session_id"] == sessionID {
			out = append(out, n)
		}
	}
	return out, nil
}

// endedSession turns a write refused because the session's head moved
// into the session's ending.
func endedSession(ctx context.Context, s Store, projectID, sessionID string, cause error) error {
	it, err := s.GetItem(ctx, projectID, SessionKey(sessionID))
	if err != nil {
		return cause
	}
	head, err := s.GetNode(ctx, it.HeadNodeID)
	if err != nil {
		return cause
	}
	return &SessionEndedError{End: endOf(head)}
}

func eventOf(n Node) SessionEvent {
	e := SessionEvent{ID: n.ID, ProjectID: n.ProjectID, At: n.CreatedAt, CallID: n.CallID, Refs: []string{}}
	e.SessionID, _ = n.Properties["session_id"].(string)
	e.Kind, _ = n.Properties["kind"].(string)
	e.Text, _ = n.Properties["text"].(string)
	e.Actor, _ = n.Properties["actor"].(string)
	if refs, ok := n.Properties["refs"].([]any); ok {
		for _, r := range refs {
			if s, ok := r.(string); ok {
				e.Refs = append(e.Refs, s)
			}
		}
	}
	return e
}

func endOf(n Node) SessionEnd {
	e := SessionEnd{ProjectID: n.ProjectID, Actor: n.Author, At: n.CreatedAt, CallID: n.CallID}
	e.SessionID, _ = n.Properties["session_id"].(string)
	e.Status, _ = n.Properties["status"].(string)
	e.Summary, _ = n.Properties["summary"].(string)
	return e
}

// headline is an event's first line, cut to 80 characters, to name its
// record.
func headline(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return line
}
