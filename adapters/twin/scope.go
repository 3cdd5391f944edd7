package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// projectFor resolves the project a call works in: the one it names, else
// its session's (twin.ProjectFor).
func projectFor(ctx context.Context, b *Backend, named string) (twin.Project, error) {
	return twin.ProjectFor(ctx, b.Store, b.Sessions, adapters.CallInfoFrom(ctx).SessionID, named)
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
