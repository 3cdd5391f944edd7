package digitaltwin

import (
	"context"

	"github.com/metaforge/metaforge/internal/beam"
)

// The loop activities find the twin among the served adapters; these pass
// their calls to the backend.

func (f *family) EvaluateTubeCandidate(ctx context.Context, c TubeCandidateRequest) (beam.Candidate, error) {
	return f.backend.EvaluateTubeCandidate(ctx, c)
}

func (f *family) RecordDesignLoop(ctx context.Context, r LoopRecord) (string, error) {
	return f.backend.RecordDesignLoop(ctx, r)
}

func (f *family) RecordLoopIteration(ctx context.Context, r IterationRecord) (string, error) {
	return f.backend.RecordLoopIteration(ctx, r)
}

func (f *family) RecordLoopOutcome(ctx context.Context, r OutcomeRecord) error {
	return f.backend.RecordLoopOutcome(ctx, r)
}

func (f *family) Tier0Metric(ctx context.Context, m MetricCall) (TierAnswer, error) {
	return f.backend.Tier0Metric(ctx, m)
}

func (f *family) RecordTier2Metric(ctx context.Context, m MetricCall, valueMM float64, solverCall string) (TierAnswer, error) {
	return f.backend.RecordTier2Metric(ctx, m, valueMM, solverCall)
}

func (f *family) MaterialOf(ctx context.Context, projectID, workProductID string) (string, error) {
	return f.backend.MaterialOf(ctx, projectID, workProductID)
}

func (f *family) BarOf(ctx context.Context, projectID, workProductID string) (float64, float64, error) {
	return f.backend.BarOf(ctx, projectID, workProductID)
}

func (f *family) RecordThermal(ctx context.Context, t ThermalCall, peakC float64, data map[string]any) (string, error) {
	return f.backend.RecordThermal(ctx, t, peakC, data)
}
