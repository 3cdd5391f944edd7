package twin

import (
	"context"

	"github.com/metaforge/metaforge/twin"
)

// The twin's side of an engineering change (activities.ChangeTwin): the
// rules are twin's (change.go, change_impact.go, change_commit.go,
// change_log.go); these run them on the backend's store.

// AnalyzeChange walks the patch's transitive impact.
func (b *Backend) AnalyzeChange(ctx context.Context, projectID string, patch []twin.PatchOp) (twin.ChangeImpact, error) {
	return twin.AnalyzeChange(ctx, b.Store, projectID, patch)
}

// RebasePatch re-points a patch at its items' current heads.
func (b *Backend) RebasePatch(ctx context.Context, projectID string, patch []twin.PatchOp) ([]twin.PatchOp, error) {
	ops, _, err := twin.Rebase(ctx, b.Store, projectID, patch)
	return ops, err
}

// CommitChange applies a patch whole, or not at all.
func (b *Backend) CommitChange(ctx context.Context, c twin.ChangeCommit) (twin.CommittedChange, error) {
	return twin.CommitChange(ctx, b.Store, c)
}

// RecordChangeEvent records one step of a change, once.
func (b *Backend) RecordChangeEvent(ctx context.Context, e twin.ChangeEvent) error {
	_, err := twin.RecordChangeEvent(ctx, b.Store, e)
	return err
}

// SupersededBy lists the evidence that replaced an evidence.
func (b *Backend) SupersededBy(ctx context.Context, evidenceID string) ([]twin.Node, error) {
	return twin.SupersededBy(ctx, b.Store, evidenceID)
}
