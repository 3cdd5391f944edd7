package twin

// The records the workflows' activities hand the twin: a tiered or
// thermal evaluation of a work product and each tier's answer, a design
// loop, its candidates and iterations, and how it ended. Plain data, so the
// activities need not know the adapter that serves the twin's tools.

// MetricCall is one tiered evaluation of a work product's metric.
type MetricCall struct {
	CallID, ProjectID, WorkProductID, Metric string
	LoadN, LimitMM, BandPct                  float64
	Tier2                                    *Tier2Call
	// Supersedes are the node ids of stale evidence this evaluation
	// replaces (a revalidation replaying its recipe); each tier's
	// evidence SUPERSEDES them.
	Supersedes []string
}

// Tier2Call is the solver input tier 2 runs with.
type Tier2Call struct {
	MeshFile, FixedNodeSet, LoadNodeSet, Material string
	LoadDirection                                 []float64
}

// TierAnswer is one tier's answer, recorded as evidence.
type TierAnswer struct {
	ValueMM, MarginMM, BandMM float64
	InBand, Passes            bool
	EvidenceID, Method        string
	Material                  string
}

// ThermalCall is one steady-state thermal evaluation of a work product.
type ThermalCall struct {
	CallID, ProjectID, WorkProductID     string
	MeshFile, SourceNodeSet, SinkNodeSet string
	HeatLoadW, SinkTemperatureC          float64
	Material                             string
	RatedMaxC                            *float64
	CrossCheck                           bool
}

// TubeCandidateRequest is one value of a loop's parameter to judge.
type TubeCandidateRequest struct {
	WorkProductID     string
	Parameter         string
	Value             float64
	LoadN             float64
	DeflectionLimitMM float64
	SFLimit           float64
}

// LoopRecord is a design loop as the twin records it.
type LoopRecord struct {
	LoopID        string
	ProjectID     string
	WorkProductID string
	Parameter     string
	Constraints   map[string]any
}

// IterationRecord is one candidate a loop evaluated.
type IterationRecord struct {
	LoopID, LoopNodeID, ProjectID, PreviousID string
	Index                                     int
	Parameter                                 string
	Value, ObjectiveKg                        float64
	DeflectionMM, StressMPa, SafetyFactor     float64
	Feasible                                  bool
	Status                                    string
}

// OutcomeRecord is how a loop ended; Approver is set once a person
// approved its converged winner.
type OutcomeRecord struct {
	LoopID, LoopNodeID, ProjectID string
	Status, Reason                string
	WinnerNodeID                  string
	WinnerValue                   float64
	Parameter                     string
	Approver                      string
	ApproverVerified              bool
	Comment                       string
}
