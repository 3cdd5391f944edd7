package session

import (
	"context"
	"errors"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// Narrative keeps an agent session's narrative: the events it logs and
// how it ends. The runtime wires the ledger's when one is configured
// (cmd/metaforge); without one, Service keeps it in the twin, in the
// project the session works in. Either refuses an event or an ending of a
// session that has ended with a twin refusal (a *twin.RefusalError in the
// error's chain) saying so.
type Narrative interface {
	// KeptIn names where: "ledger" or "twin".
	KeptIn() string
	LogEvent(ctx context.Context, e twin.SessionEvent) (twin.SessionEvent, error)
	Complete(ctx context.Context, e twin.SessionEnd) (twin.SessionEnd, error)
}

// twinNarrative keeps narratives in the twin.
type twinNarrative struct{ store twin.Store }

func (twinNarrative) KeptIn() string { return "twin" }

func (n twinNarrative) LogEvent(ctx context.Context, e twin.SessionEvent) (twin.SessionEvent, error) {
	return twin.LogSessionEvent(ctx, n.store, e)
}

func (n twinNarrative) Complete(ctx context.Context, e twin.SessionEnd) (twin.SessionEnd, error) {
	return twin.CompleteSession(ctx, n.store, e)
}

// narrative is where this service keeps narratives.
func (s *Service) narrative() Narrative {
	if s.Narrative != nil {
		return s.Narrative
	}
	return twinNarrative{store: s.Store}
}

// projectOf is the project a narrative call works in: the one it names
// (which must exist), else its session's, else none ("").
func (s *Service) projectOf(ctx context.Context, named string) (string, error) {
	named = strings.TrimSpace(named)
	if sid := adapters.CallInfoFrom(ctx).SessionID; named == "" && sid != "" {
		id, err := s.Sessions.SessionProject(ctx, sid)
		switch {
		case err == nil:
			named = id
		case !errors.Is(err, twin.ErrNotFound):
			return "", err
		}
	}
	if named == "" {
		return "", nil
	}
	p, err := s.Store.GetProject(ctx, named)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// actor is who logs: the agent (its client's name) or the caller's class.
func actor(ci adapters.CallInfo) string {
	if ci.Client != "" {
		return "agent:" + ci.Client
	}
	return ci.Caller
}
