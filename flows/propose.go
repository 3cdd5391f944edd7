package flows

import (
	"fmt"
	"strings"
)

// Change is one edit Tailor made, for the proposal to show.
type Change struct {
	Phase string `json:"phase"`
	What  string `json:"what"`
}

// Tailor fits a template to an intent: it writes the goal's measurable
// requirements, stated values, loads, material and route into the briefs
// of the phases that use them. It only adds guidance: no check is removed
// and no gate loosened, whatever the intent lacks. template is not changed.
func Tailor(template Flow, in Intent) (Flow, []Change) {
	out := Clone(template)
	changes := []Change{}
	note := func(i int, text, what string) {
		p := &out.Phases[i]
		p.Brief = strings.TrimSpace(p.Brief + "\n\n" + text)
		changes = append(changes, Change{Phase: p.Name, What: what})
	}
	if i := phaseIndex(out, "requirements"); i >= 0 {
		if len(in.SuccessCriteria) > 0 {
			note(i, "Record these requirements from the goal, one typed requirement each: "+criteriaList(in.SuccessCriteria)+".",
				fmt.Sprintf("brief lists the goal's %d measurable requirements", len(in.SuccessCriteria)))
		}
		if stated := statedValues(in); len(stated) > 0 {
			note(i, "The goal also states these values to design to (inputs, not limits): "+strings.Join(stated, "; ")+".",
				fmt.Sprintf("brief lists %d stated design values", len(stated)))
		}
		if len(in.Loads) > 0 {
			note(i, "Loads from the goal (note them in the requirements they bear on): "+loadList(in.Loads)+".",
				fmt.Sprintf("brief lists the goal's %d loads", len(in.Loads)))
		}
	}
	if i := deliverablePhase(out, "cad_model"); i >= 0 && (in.Material != "" || in.ManufacturingRoute != "") {
		var parts []string
		if in.Material != "" {
			parts = append(parts, fmt.Sprintf("use material %s (give it to twin.commit_geometry and to the analyses)", in.Material))
		}
		if in.ManufacturingRoute != "" {
			parts = append(parts, fmt.Sprintf("design for %s (wall thicknesses, radii and access that route can make)",
				in.ManufacturingRoute))
		}
		note(i, "From the goal: "+strings.Join(parts, "; ")+".", "brief names the material and manufacturing route from the goal")
	}
	if len(in.Loads) > 0 {
		for i, p := range out.Phases {
			for _, s := range p.Steps {
				if s.ForEach != "load_cases" {
					continue
				}
				note(i, fmt.Sprintf("Loads from the goal: %s. They can be given as the run input load_cases, one %s argument "+
					"object per load case (load_force_n in N, with mesh_file, material, fixed_node_set and load_node_set); the "+
					"server then runs step %q once per case and records its results as evidence.", loadList(in.Loads), s.ToolID, s.Name),
					fmt.Sprintf("brief says the goal's loads can be given as the run input load_cases for step %q", s.Name))
				break
			}
		}
	}
	return out, changes
}

// Questions are what a proposal must ask before it creates a flow version:
// every blocking unknown (loads, material, route for a part; the supply for
// a board) and a missing target maturity, which decides how far the flow
// goes. Each comes back marked blocking; none means the proposal may go on.
func Questions(in Intent) []Unknown {
	out := []Unknown{}
	for _, u := range in.Unknowns {
		if u.Blocking || u.Topic == TopicTargetMaturity {
			u.Blocking = true
			out = append(out, u)
		}
	}
	return out
}

// deliverablePhase is the first phase that delivers nodeType, or -1.
func deliverablePhase(f Flow, nodeType string) int {
	for i, p := range f.Phases {
		if contains(p.Deliverables, nodeType) {
			return i
		}
	}
	return -1
}

// criteriaList writes criteria as requirements: max_displacement <= 0.5 mm
// ("under 0.5 mm deflection").
func criteriaList(cs []SuccessCriterion) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%q)", c.String(), c.Text)
	}
	return strings.Join(parts, "; ")
}

// statedValues are the intent's values that bound nothing: supply 3.3 V.
func statedValues(in Intent) []string {
	var out []string
	for _, c := range in.Constraints {
		if c.Operator == "" && c.Limit != nil && c.Metric != "" && c.Metric != "load" {
			out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s", c.Metric, formatNumber(*c.Limit), c.Unit)))
		}
	}
	return out
}

// loadList writes loads as stated: 200 N ("carries 200 n at its tip").
func loadList(ls []Load) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s %s (%q)", formatNumber(l.Magnitude), l.Unit, l.Text)
	}
	return strings.Join(parts, "; ")
}
