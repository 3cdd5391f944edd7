package digitaltwin

import (
	"context"

	"github.com/metaforge/metaforge/flows"
)

// FlowFacts lets a worker find the gate's facts among the served adapters.
func (f *family) FlowFacts(ctx context.Context, projectID string) (flows.Facts, error) {
	return f.backend.FlowFacts(ctx, projectID)
}
