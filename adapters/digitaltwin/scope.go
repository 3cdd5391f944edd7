package digitaltwin

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// projectFor resolves the project a call works in: the one it names, else
// its session's. Naming none with no session project is a refusal that
// says how to fix it.
func projectFor(ctx context.Context, b *Backend, named string) (twin.Project, error) {
	if named == "" {
		sid := adapters.CallInfoFrom(ctx).SessionID
		if sid != "" {
			id, err := b.Sessions.SessionProject(ctx, sid)
			if err == nil {
				named = id
			} else if !errors.Is(err, twin.ErrNotFound) {
				return twin.Project{}, err
			}
		}
	}
	if named == "" {
		return twin.Project{}, protocol.Refusal("no project: pass project_id, or pick one for this session with project.open or session.start")
	}
	return b.Store.GetProject(ctx, named)
}

// projectArgs are the arguments of a tool that takes only project_id.
type projectArgs struct {
	ProjectID string `json:"project_id"`
}

// scopedProject is the project of a call that takes only project_id: the
// one it names, else its session's (projectFor).
func scopedProject(ctx context.Context, b *Backend, raw json.RawMessage) (twin.Project, error) {
	var a projectArgs
	if err := decode(raw, &a); err != nil {
		return twin.Project{}, err
	}
	return projectFor(ctx, b, a.ProjectID)
}

// namedProject is the project a call that takes only project_id names; it
// never falls back to the session's.
func namedProject(ctx context.Context, b *Backend, raw json.RawMessage) (twin.Project, error) {
	var a projectArgs
	if err := decode(raw, &a); err != nil {
		return twin.Project{}, err
	}
	return b.Store.GetProject(ctx, a.ProjectID)
}

// bindSession makes project the session's scope, and says whether it could:
// a call with no session identity can never be matched again.
func bindSession(ctx context.Context, b *Backend, projectID string) (bool, error) {
	sid := adapters.CallInfoFrom(ctx).SessionID
	if sid == "" {
		return false, nil
	}
	if err := b.Sessions.BindSession(ctx, sid, projectID); err != nil {
		return false, err
	}
	return true, nil
}

// author is the revision's author: the caller's class and client.
func author(ctx context.Context) string {
	ci := adapters.CallInfoFrom(ctx)
	if ci.Client != "" {
		return "agent:" + ci.Client
	}
	if ci.Caller != "" {
		return ci.Caller
	}
	return "unknown"
}

func callID(ctx context.Context) string { return adapters.CallInfoFrom(ctx).CallID }
