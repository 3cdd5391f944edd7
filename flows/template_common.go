package flows

// Phases and brief text the templates share. Briefs name the exact tools
// and metric names because the gates read the twin by those names: a
// requirement with another metric name is never matched by evidence.

// requirementsBrief is the requirements phase's brief; metrics lists the
// metric names that domain's requirements should use.
func requirementsBrief(metrics string) string {
	return "Turn the goal into typed requirements and record them as one constraint set with twin.record_constraint_set. " +
		"Write one requirement per measurable need, each with name, metric, operator (<=, <, >=, >), limit, unit and " +
		"verification_method (analysis, simulation, test, inspection), so twin.constraint_violations can check it; a need that " +
		"cannot be put as a number goes in acceptance_criteria, but every requirement the gates should judge must be typed. " +
		"Use these metric names so recorded evidence and the cad_model match them: " + metrics + ". " +
		"Record open risks with twin.record_engineering_entity (entity_type risk). Then call twin.constraint_violations: every " +
		"requirement should be listed (no_data is expected at this point); a row that names a missing metric, operator or limit " +
		"is not typed, so revise the set until none is."
}

// requirementsPhase opens every flow: the gate after it checks there are
// typed requirements before any design work is judged against them.
func requirementsPhase(metrics string) Phase {
	return Phase{
		Name:         "requirements",
		Brief:        requirementsBrief(metrics),
		Deliverables: []string{"constraint_set"},
		Tools:        []string{"twin.record_constraint_set", "twin.record_engineering_entity", "twin.constraint_violations"},
		Gate:         gate(1, "requirements", CriterionDeliverables, CriterionRequirementsRecorded),
	}
}

// verifyRows is the part of a verification brief that says how to clear
// each row of twin.constraint_violations.
const verifyRows = "Call twin.constraint_violations and work through every row that is not pass: no_data → record the evidence it names " +
	"with twin.record_evidence (metric, value, unit, linked to the revision it describes); stale → re-run the check on the " +
	"current revision, since evidence about an older revision no longer counts; fail → change the design and re-check, or, if " +
	"the shortfall is acceptable, record a waiver with twin.record_engineering_entity (entity_type waiver) naming the " +
	"requirement, for a person to approve. Record a verification_case with twin.record_engineering_entity for each " +
	"requirement saying how it was verified (analysis, test, inspection)."

// releaseBrief closes every flow; what names the design data to release.
// The release phase's deliverable is a release package, which only
// twin.create_release_package records, and only when G8 passes.
func releaseBrief(what string) string {
	return "Assemble the release. " + what + " Call twin.constraint_violations and twin.list_maturity_gates and work through G8 (release): every " +
		"requirement must pass on current evidence or be covered by an approved waiver, and no stale evidence may remain " +
		"unsuperseded. Fix the configuration with twin.create_baseline (a person approves it), record a release_approval with " +
		"twin.record_engineering_entity for a person to approve (twin.approve_engineering_entity), then record the release " +
		"package with twin.create_release_package: it is refused, naming each failing check, until G8 passes. Record the " +
		"release decision with twin.record_decision."
}
