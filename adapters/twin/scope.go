package twin

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// projectFor resolves the project a call works in: the one it names, else
// its session's (twin.ProjectFor).
func projectFor(ctx context.Context, b *Backend, named string) (twin.Project, error) {
	return twin.ProjectFor(ctx, b.Store, b.Sessions, adapters.CallInfoFrom(ctx).SessionID, named)
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
