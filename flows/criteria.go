package flows

// criterionDescriptions say, for each known kind, what it checks; the order
// is the order Criteria lists them in.
var criterionDescriptions = []Criterion{
	{CriterionDeliverables, "every deliverable type of the phase is recorded in the twin"},
	{CriterionRequirementsRecorded, "a constraint set holds requirements, each typed (metric, operator, limit, unit)"},
	{CriterionGeometry, "envelope, thickness, mass and material requirements hold against the committed cad_model"},
	{CriterionSimulation, "deflection, stress, safety-factor and frequency requirements hold against current simulation evidence"},
	{CriterionNoStaleEvidence, "no requirement is judged on evidence about an older revision"},
	{CriterionAllRequirements, "every requirement passes on current evidence"},
	{CriterionERCClean, "the latest erc_errors evidence (kicad.run_erc's error count), about the current revision, is 0"},
	{CriterionDRCClean, "the latest drc_errors evidence (kicad.run_drc's error count), about the current revision, is 0"},
	{CriterionRoutingComplete, "the latest unrouted_connections evidence (kicad.run_drc's unconnected items), about the current revision, is 0"},
}

// Criteria lists the known criterion kinds with what each checks, so a
// client proposing a patch can see what a gate may check.
func Criteria() []Criterion {
	return append([]Criterion(nil), criterionDescriptions...)
}

// knownCriterion says whether kind is a criterion a gate can judge.
func knownCriterion(kind string) bool {
	for _, c := range criterionDescriptions {
		if c.Kind == kind {
			return true
		}
	}
	return false
}

// criterionKinds are the known kinds, in order, for messages.
func criterionKinds() []string {
	out := make([]string, len(criterionDescriptions))
	for i, c := range criterionDescriptions {
		out[i] = c.Kind
	}
	return out
}

// criterion is a known kind with its standard description; an unknown kind
// comes back with none (Check reports it).
func criterion(kind string) Criterion {
	for _, c := range criterionDescriptions {
		if c.Kind == kind {
			return c
		}
	}
	return Criterion{Kind: kind}
}

// gate builds a phase's gate, numbered by the phase's position (G1 for the
// first), with a human decision and the standard criteria of kinds.
func gate(n int, phase string, kinds ...string) Gate {
	g := Gate{Name: gateName(n, phase), HumanDecision: true, Criteria: make([]Criterion, len(kinds))}
	for i, k := range kinds {
		g.Criteria[i] = criterion(k)
	}
	return g
}
