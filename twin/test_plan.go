package twin

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A test plan is one verification case per requirement the project says is
// verified by test, derived from the requirement's own metric, operator,
// limit and unit: string formatting over what is recorded, nothing
// authored. Generating again adds cases only for requirements without one,
// so a plan grows with the requirements and a case a person has started on
// is never rewritten.

// VerificationCaseType is the entity type of a planned case.
const VerificationCaseType = "verification_case"

// defaultTestTarget is what a case measures on when its requirement names
// no target_node_type.
const defaultTestTarget = "the unit under test"

// Why a requirement got no new case.
const (
	SkipNotTest        = "not_test"
	SkipAlreadyPlanned = "already_planned"
	SkipUnbound        = "unbound"
)

// PlannedCase is a verification case a plan recorded.
type PlannedCase struct {
	SetRequirement
	NodeID, Name             string
	Target, Step, Acceptance string
}

// SkippedRequirement is a requirement that got no new case, and why:
// Reason is not_test, already_planned (CaseID names its case) or unbound
// (Missing names what it lacks).
type SkippedRequirement struct {
	SetRequirement
	Reason, Detail string
	CaseID         string
	Missing        []string
}

// TestPlan is what one generation did.
type TestPlan struct {
	Cases   []PlannedCase
	Skipped []SkippedRequirement
	// Sets are the constraint set revisions read (KEY@n).
	Sets []string
}

// TestCaseText is the step and acceptance derived from a typed
// requirement: "Measure {metric} on {target}; acceptance: {metric}
// {operator} {limit} {unit}".
func TestCaseText(c Constraint) (target, step, acceptance string) {
	target = strings.TrimSpace(c.TargetNodeType)
	if target == "" {
		target = defaultTestTarget
	}
	metric := strings.TrimSpace(c.Metric)
	acceptance = fmt.Sprintf("%s %s %s %s", metric, c.Operator, units.Format(*c.Limit), strings.TrimSpace(c.Unit))
	return target, fmt.Sprintf("Measure %s on %s; acceptance: %s", metric, target, acceptance), acceptance
}

// GenerateTestPlan records a verification case (RELATES_TO its constraint
// set revision) for each requirement in the project's current constraint
// sets whose verification_method is test, that is typed (metric, operator,
// limit, unit) and that has no case yet: a verification_case whose
// properties name the same constraint set item (constraint_set_key) and
// requirement, planned by an earlier call or recorded by hand, keeps it. Each case's write is keyed by the call's idempotency key
// and the requirement, so a retried call records nothing twice and answers
// as the first did.
func GenerateTestPlan(ctx context.Context, s Store, projectID, idempotencyKey string) (TestPlan, error) {
	reqs, err := CurrentRequirements(ctx, s, projectID)
	if err != nil {
		return TestPlan{}, err
	}
	existing, err := s.NodesByType(ctx, projectID, VerificationCaseType)
	if err != nil {
		return TestPlan{}, err
	}
	planned := map[string]Node{}
	for _, n := range existing {
		set, _ := n.Properties["constraint_set_key"].(string)
		req, _ := n.Properties["requirement"].(string)
		if set == "" {
			continue
		}
		k := caseKey(set, req)
		if _, seen := planned[k]; !seen {
			planned[k] = n
		}
	}
	plan := TestPlan{Cases: []PlannedCase{}, Skipped: []SkippedRequirement{}, Sets: SetRefs(reqs)}
	for _, r := range reqs {
		method := strings.TrimSpace(r.VerificationMethod)
		if !strings.EqualFold(method, "test") {
			detail := "its verification_method is not set"
			if method != "" {
				detail = fmt.Sprintf("it is verified by %s, not test", method)
			}
			plan.Skipped = append(plan.Skipped, SkippedRequirement{SetRequirement: r, Reason: SkipNotTest, Detail: detail})
			continue
		}
		if missing := r.Unbound(); len(missing) > 0 {
			plan.Skipped = append(plan.Skipped, SkippedRequirement{SetRequirement: r, Reason: SkipUnbound, Missing: missing,
				Detail: "a test case is derived from metric, operator, limit and unit; it lacks " + strings.Join(missing, ", ") +
					": revise " + r.SetKey + " with twin.record_constraint_set to type it"})
			continue
		}
		target, step, acceptance := TestCaseText(r.Constraint)
		key := ""
		if idempotencyKey != "" {
			key = idempotencyKey + "/case/" + caseKey(r.SetKey, r.Name)
		}
		if n, ok := planned[caseKey(r.SetKey, r.Name)]; ok && (key == "" || n.CallID != key) {
			sk := SkippedRequirement{SetRequirement: r, Reason: SkipAlreadyPlanned, CaseID: n.ID}
			from, _ := n.Properties["constraint_set"].(string)
			if from == "" {
				from = "by hand"
			}
			sk.Detail = fmt.Sprintf("verification case %s (%s) already plans it, derived from %s", n.ID, n.Name, from)
			if was, _ := n.Properties["acceptance"].(string); was != acceptance {
				sk.Detail += fmt.Sprintf("; its acceptance (%q) differs from the requirement's now (%q): revise that case by hand", was, acceptance)
			}
			plan.Skipped = append(plan.Skipped, sk)
			continue
		}
		props := map[string]any{"requirement": r.Name, "constraint_set": r.Set, "constraint_set_key": r.SetKey, "metric": r.Metric,
			"operator": r.Operator, "limit": *r.Limit, "unit": r.Unit, "target": target, "step": step, "acceptance": acceptance,
			"verification_method": "test", "status": "planned", "generated_by": "twin.generate_test_plan"}
		if r.TargetNodeType != "" {
			props["target_node_type"] = r.TargetNodeType
		}
		e, err := RecordEntity(ctx, s, EntityWrite{ProjectID: projectID, EntityType: VerificationCaseType, Name: "Test " + r.Name,
			Properties: props, ParentRefs: []ParentRef{{Ref: r.SetNode}}, WriteInfo: WriteInfo{IdempotencyKey: key}})
		if err != nil {
			return TestPlan{}, fmt.Errorf("requirement %q of %s: %w", r.Name, r.Set, err)
		}
		plan.Cases = append(plan.Cases, PlannedCase{SetRequirement: r, NodeID: e.Node.ID, Name: e.Node.Name, Target: target, Step: step,
			Acceptance: acceptance})
	}
	return plan, nil
}

// caseKey identifies a requirement across its set's revisions: the set's
// item key and the requirement's name, as names are unique in a set.
func caseKey(setKey, requirement string) string {
	return setKey + "/" + strings.ToLower(strings.TrimSpace(requirement))
}
