package flows

import (
	"fmt"
	"strings"
)

// Invariant is a rule every flow keeps, templates and patched versions
// alike: the workflow relies on them (a requirements gate first, a person
// deciding at every gate), so a patch that breaks one is refused.
type Invariant struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// Invariant IDs.
const (
	InvPhases            = "phases"
	InvPhaseNames        = "phase_names"
	InvRequirementsFirst = "requirements_first"
	InvPhaseBrief        = "phase_brief"
	InvDeliverables      = "deliverables"
	InvHumanDecision     = "human_decision"
	InvGateNames         = "gate_names"
	InvCriteria          = "criteria"
	InvGateWindow        = "gate_window"
	InvSteps             = "steps"
	InvEvidenceFields    = "evidence_fields"
)

// Gate windows a flow may set: shorter than a minute cannot be answered,
// longer than 30 days leaves a run hanging.
const (
	MinGateWindowSeconds = 60
	MaxGateWindowSeconds = 30 * 24 * 60 * 60
)

var invariants = []Invariant{
	{InvPhases, "the flow has at least one phase"},
	{InvPhaseNames, "phase names are lowercase identifiers (a letter, then letters, digits or _), unique in the flow"},
	{InvRequirementsFirst, "the first phase is requirements, and its gate checks at least one criterion"},
	{InvPhaseBrief, "every phase has a brief telling the client what to do"},
	{InvDeliverables, "every phase names at least one deliverable: twin node types as lowercase identifiers, each once"},
	{InvHumanDecision, "every gate ends in a human decision (human_decision true)"},
	{InvGateNames, "every gate has a name, unique in the flow"},
	{InvCriteria, "every criterion is a known kind, at most once per gate"},
	{InvGateWindow, fmt.Sprintf("a gate's window_seconds is 0 (the default, %d s) or between %d s and %d s (30 days)",
		DefaultGateWindowSeconds, MinGateWindowSeconds, MaxGateWindowSeconds)},
	{InvSteps, "every step has a name (unique in its phase, without a dot) and a tool id of the form adapter.tool; a phase's first step " +
		"names a for_each run input, a later step the same one or none, and a step's from names an argument and an earlier step's " +
		"result field (step.field)"},
	{InvEvidenceFields, "every evidence field a step records names its field, metric and unit"},
}

// Invariants lists the rules Check enforces, in the order it reports them.
func Invariants() []Invariant { return append([]Invariant(nil), invariants...) }

// Problem is one broken invariant: where, and what to change.
type Problem struct {
	Invariant string `json:"invariant"`
	Phase     string `json:"phase,omitempty"`
	Fix       string `json:"fix"`
}

// InvariantError lists every broken invariant of a flow at once, so a
// person can fix them all in one go.
type InvariantError struct {
	Flow     string    `json:"flow"`
	Problems []Problem `json:"problems"`
}

func (e *InvariantError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		where := ""
		if p.Phase != "" {
			where = fmt.Sprintf("phase %q: ", p.Phase)
		}
		parts[i] = fmt.Sprintf("(%d) %s%s [%s]", i+1, where, p.Fix, p.Invariant)
	}
	name := e.Flow
	if name == "" {
		name = "(no id)"
	}
	return fmt.Sprintf("flow %s breaks %d invariant(s): %s", name, len(e.Problems), strings.Join(parts, "; "))
}

// Check returns nil when f keeps every invariant, else an *InvariantError
// listing each broken one with what to fix.
func Check(f Flow) error {
	c := checker{}
	if len(f.Phases) == 0 {
		c.add(InvPhases, "", "add at least one phase, starting with requirements")
	} else {
		c.requirementsFirst(f.Phases[0])
	}
	phaseSeen := map[string]int{}
	gateSeen := map[string]string{}
	for i, p := range f.Phases {
		label := p.Name
		if label == "" {
			label = fmt.Sprintf("#%d", i+1)
		}
		c.phaseName(p.Name, label, i, phaseSeen)
		if strings.TrimSpace(p.Brief) == "" {
			c.add(InvPhaseBrief, label, "write a brief saying what the client does in this phase and with which tools")
		}
		c.deliverables(p, label)
		c.gate(p.Gate, label, gateSeen)
		for j := range p.Steps {
			c.step(p.Steps, j, label)
		}
	}
	if len(c.problems) == 0 {
		return nil
	}
	return &InvariantError{Flow: f.ID, Problems: c.problems}
}

// checker collects problems in the order they are found.
type checker struct{ problems []Problem }

func (c *checker) add(inv, phase, format string, args ...any) {
	c.problems = append(c.problems, Problem{Invariant: inv, Phase: phase, Fix: fmt.Sprintf(format, args...)})
}

func (c *checker) requirementsFirst(p Phase) {
	if p.Name != "requirements" {
		c.add(InvRequirementsFirst, "", "make the first phase \"requirements\" (it is %q)", p.Name)
		return
	}
	if len(p.Gate.Criteria) == 0 {
		c.add(InvRequirementsFirst, p.Name, "give the requirements gate at least one criterion (e.g. %s)", CriterionRequirementsRecorded)
	}
}

func (c *checker) phaseName(name, label string, i int, seen map[string]int) {
	switch {
	case name == "":
		c.add(InvPhaseNames, label, "name the phase")
	case !identifier.MatchString(name):
		c.add(InvPhaseNames, label, "rename the phase as a lowercase identifier (a letter, then letters, digits or _)")
	}
	if name == "" {
		return
	}
	if first, ok := seen[name]; ok {
		c.add(InvPhaseNames, label, "rename phase %d: phase %d is already called %q", i+1, first+1, name)
		return
	}
	seen[name] = i
}

func (c *checker) deliverables(p Phase, label string) {
	if len(p.Deliverables) == 0 {
		c.add(InvDeliverables, label, "name at least one deliverable (a twin node type such as constraint_set, cad_model or evidence)")
	}
	seen := map[string]bool{}
	for _, d := range p.Deliverables {
		switch {
		case !identifier.MatchString(d):
			c.add(InvDeliverables, label, "deliverable %q is not a twin node type: use a lowercase identifier", d)
		case seen[d]:
			c.add(InvDeliverables, label, "deliverable %s is listed twice: list it once", d)
		}
		seen[d] = true
	}
}

func (c *checker) gate(g Gate, label string, seen map[string]string) {
	if !g.HumanDecision {
		c.add(InvHumanDecision, label, "set the gate's human_decision to true: a person decides at every gate")
	}
	switch prev, dup := seen[g.Name]; {
	case strings.TrimSpace(g.Name) == "":
		c.add(InvGateNames, label, "name the phase's gate (e.g. %q)", "G1-"+label)
	case dup:
		c.add(InvGateNames, label, "rename the gate %q: phase %q's gate already has that name", g.Name, prev)
	default:
		seen[g.Name] = label
	}
	kinds := map[string]bool{}
	for _, cr := range g.Criteria {
		switch {
		case !knownCriterion(cr.Kind):
			c.add(InvCriteria, label, "criterion %q is not a known kind: use one of %s", cr.Kind, strings.Join(criterionKinds(), ", "))
		case kinds[cr.Kind]:
			c.add(InvCriteria, label, "criterion %s is listed twice in the gate: list it once", cr.Kind)
		}
		kinds[cr.Kind] = true
	}
	if w := g.WindowSeconds; w != 0 && (w < MinGateWindowSeconds || w > MaxGateWindowSeconds) {
		c.add(InvGateWindow, label, "set the gate's window_seconds to 0 (default) or between %d and %d; it is %d",
			MinGateWindowSeconds, MaxGateWindowSeconds, w)
	}
}

func (c *checker) step(steps []Step, j int, label string) {
	s := steps[j]
	name := s.Name
	switch {
	case strings.TrimSpace(name) == "":
		name = fmt.Sprintf("#%d", j+1)
		c.add(InvSteps, label, "name step %s", name)
	case strings.Contains(name, "."):
		c.add(InvSteps, label, "rename step %q without a dot: from names a step's field as step.field", name)
	default:
		for k := 0; k < j; k++ {
			if steps[k].Name == name {
				c.add(InvSteps, label, "rename step %d: step %d is already called %q", j+1, k+1, name)
				break
			}
		}
	}
	if !strings.Contains(s.ToolID, ".") {
		c.add(InvSteps, label, "give step %s a tool id of the form adapter.tool (it is %q)", name, s.ToolID)
	}
	first := strings.TrimSpace(steps[0].ForEach)
	switch {
	case j == 0 && first == "":
		c.add(InvSteps, label, "give step %s a for_each: the run input whose entries it runs once each", name)
	case j > 0 && s.ForEach != "" && s.ForEach != steps[0].ForEach:
		c.add(InvSteps, label, "give step %s the for_each of the phase's first step (%q) or none: every step runs once per entry of that input",
			name, steps[0].ForEach)
	case j > 0 && s.ForEach == "" && len(s.From) == 0:
		c.add(InvSteps, label, "give step %s its arguments: a for_each (%q) or from (argument: step.field of an earlier step)",
			name, steps[0].ForEach)
	}
	for _, f := range s.From {
		step, field, ok := SplitFrom(f.Field)
		if !ok || strings.TrimSpace(f.Argument) == "" {
			c.add(InvSteps, label, "step %s: from {argument %q, field %q} must name an argument and an earlier step's result field as step.field",
				name, f.Argument, f.Field)
			continue
		}
		earlier := false
		for k := 0; k < j; k++ {
			earlier = earlier || steps[k].Name == step
		}
		if !earlier {
			c.add(InvSteps, label, "step %s: argument %s comes from step %q, which is not an earlier step of the phase (field %s)",
				name, f.Argument, step, field)
		}
	}
	for k, r := range s.Records {
		var lack []string
		for _, f := range []struct{ name, v string }{{"field", r.Field}, {"metric", r.Metric}, {"unit", r.Unit}} {
			if strings.TrimSpace(f.v) == "" {
				lack = append(lack, f.name)
			}
		}
		if len(lack) > 0 {
			c.add(InvEvidenceFields, label, "give record %d of step %s its %s (use unit \"1\" for a plain ratio)",
				k+1, name, strings.Join(lack, " and "))
		}
	}
}
