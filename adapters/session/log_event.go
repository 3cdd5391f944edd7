package session

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// session.log_event appends to the narrative of the session the call
// comes from (its MCP session id), never of another one.

func logEventTool() adapters.Declared[*Service] {
	return adapters.Declare(adapters.Manifest{ToolID: "session.log_event", Name: "Log an event of this session", Capability: "project",
		Description: "Append an event to this session's narrative: kind thought, action, decision, observation or error, its text, and " +
			"optional refs (node ids, item refs, call ids) it is about, kept as given. The narrative is kept on the ledger when one is " +
			"configured (kept_in says where), else in the twin, in the session's project (session.start, or project_id). A session that " +
			"has ended (session.complete) refuses more events; a new connection is a new session.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, logEvent,
		adapters.At("project_id", adapters.MinLength(1)),
		adapters.At("kind", adapters.Enum(twin.SessionEventKinds...)),
		adapters.At("text", adapters.MinLength(1), adapters.MaxLength(twin.MaxSessionText)),
		adapters.At("refs", adapters.MaxItems(twin.MaxSessionRefs)),
		adapters.At("refs[]", adapters.MinLength(1), adapters.MaxLength(200)))
}

type logEventArgs struct {
	ProjectID string   `json:"project_id,omitempty" jsonschema:"the project; defaults to the session's (session.start or project.open)"`
	Kind      string   `json:"kind" jsonschema:"thought, action, decision, observation or error"`
	Text      string   `json:"text" jsonschema:"what was thought, done, decided, observed or went wrong"`
	Refs      []string `json:"refs,omitempty" jsonschema:"what it is about: node ids, item refs (KEY@n), call ids"`
}

func logEvent(ctx context.Context, s *Service, a logEventArgs) (any, error) {
	ci := adapters.CallInfoFrom(ctx)
	e := twin.SessionEvent{SessionID: ci.SessionID, Kind: a.Kind, Text: a.Text, Refs: a.Refs, Actor: actor(ci), CallID: ci.CallID}
	if err := e.Check(); err != nil {
		return nil, err
	}
	pid, err := s.projectOf(ctx, a.ProjectID)
	if err != nil {
		return nil, err
	}
	e.ProjectID = pid
	n := s.narrative()
	got, err := n.LogEvent(ctx, e)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session_id": got.SessionID, "project_id": got.ProjectID, "event_id": got.ID, "kind": got.Kind, "at": got.At,
		"kept_in": n.KeptIn()}, nil
}
