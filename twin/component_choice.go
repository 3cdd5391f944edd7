package twin

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A requirement-driven component choice: 2 or more candidate parts, each
// with its datasheet figures (as twin.record_component_selection takes
// them), held against the figures the design requires (a threshold and a
// direction, >= or <=). Per requirement per candidate it computes a signed
// margin in the requirement's unit (positive is slack); a candidate with
// no readable figure for a requirement is no_data for it, neither a pass
// nor a fail. The chosen candidate becomes the role's BOM item (through
// RecordComponentSelection) and the choice a decision GENERATED_FROM it.
//
// The rank rule: among the candidates that meet every requirement (each
// figure present and on the right side of its threshold), the one whose
// tightest relative margin (margin / |threshold|, over the requirements
// with a non-zero threshold) is largest: the most headroom where it is
// tightest. A tie, or no candidate meeting every requirement, is refused
// unless the caller names the choice; a caller's choice is recorded even
// when it fails or lacks a figure, and MeetsAll says so.

// MinComponentCandidates is the fewest candidates a choice compares.
const MinComponentCandidates = 2

// RequiredSpec is a figure the design requires of the part: the part's
// spec must be at least (>=) or at most (<=) threshold, in unit.
type RequiredSpec struct {
	Spec      string   `json:"spec" jsonschema:"the figure, named like the candidates' spec keys (stall_torque, quiescent_current, unit_cost); ignoring case, spaces and hyphens read as underscores"`
	Threshold *float64 `json:"threshold" jsonschema:"the limit, in unit"`
	Unit      string   `json:"unit" jsonschema:"the threshold's unit (N*m, uA, V, USD); each candidate's figure is converted to it, and the margin is in it"`
	Direction string   `json:"direction" jsonschema:"the side of the threshold the figure must be on: >= (at least threshold) or <= (at most)"`
}

// ComponentCandidate is a part considered for the role: its datasheet
// figures as twin.record_component_selection takes them.
type ComponentCandidate struct {
	MPN          string         `json:"mpn" jsonschema:"the manufacturer part number"`
	Manufacturer string         `json:"manufacturer,omitempty"`
	Description  string         `json:"description,omitempty"`
	DatasheetURL string         `json:"datasheet_url,omitempty"`
	Specs        map[string]any `json:"specs,omitempty" jsonschema:"datasheet values by name: \"1.2 N*m\", \"75 uA\", {\"value\":75,\"unit\":\"uA\"}, or a bare number (read in the requirement's unit and flagged unit_assumed). Keep unit_cost (in USD) and category: the BOM roll-up reads them"`
}

// ComponentChoiceRequest asks for a part to be chosen for a role.
type ComponentChoiceRequest struct {
	ProjectID string
	// Role is the role the part fills: the BOM item's name.
	Role       string
	Candidates []ComponentCandidate
	Required   []RequiredSpec
	// Choice is the MPN the caller chooses; "" lets the rank rule choose.
	Choice string
	// Quantity and ForItem are the BOM item's (see SelectionWrite).
	Quantity *int
	ForItem  string
	// DecisionName titles the decision ("Component selection: <role>"
	// when ""); Rationale is the caller's reasoning.
	DecisionName, Rationale string
	// WriteInfo applies to the BOM item; the decision is written with the
	// same author, and both with the idempotency key and a suffix.
	WriteInfo
}

// Check refuses a request that cannot be judged, before anything is read:
// no role, fewer than two candidates, an MPN blank or twice, two spec
// keys of one candidate naming one figure, a requirement without spec,
// threshold, a known unit or a direction, or two requirements on one
// figure.
func (r ComponentChoiceRequest) Check() error {
	if strings.TrimSpace(r.Role) == "" {
		return Refusef("name is blank: name the role the part fills (\"shoulder servo\"); it names the BOM item")
	}
	if len(r.Candidates) < MinComponentCandidates {
		return Refusef("candidates has %d entries: a selection compares at least %d (to record one part, use twin.record_component_selection)",
			len(r.Candidates), MinComponentCandidates)
	}
	mpns := map[string]bool{}
	for i, c := range r.Candidates {
		mpn := strings.ToUpper(strings.TrimSpace(c.MPN))
		if mpn == "" {
			return Refusef("candidates[%d].mpn is blank: give each candidate's manufacturer part number", i)
		}
		if mpns[mpn] {
			return Refusef("candidates name mpn %s twice; list each part once", strings.TrimSpace(c.MPN))
		}
		mpns[mpn] = true
		if _, err := indexSpecs(c.Specs); err != nil {
			return Refusef("candidates[%d] (%s): %s", i, c.MPN, err.Error())
		}
	}
	if len(r.Required) == 0 {
		return Refusef("requirements is empty: give the specs the design requires (spec, threshold, unit, direction >= or <=); " +
			"without them there is nothing to choose by")
	}
	seen := map[string]string{}
	for i, q := range r.Required {
		mk := MetricKey(q.Spec)
		switch {
		case mk == "":
			return Refusef("requirements[%d].spec is blank: name the figure, like the candidates' spec keys", i)
		case q.Threshold == nil || math.IsNaN(*q.Threshold) || math.IsInf(*q.Threshold, 0):
			return Refusef("requirements[%d] (%s) has no threshold: give the limit as a number, in unit", i, q.Spec)
		case q.Direction != ">=" && q.Direction != "<=":
			return Refusef("requirements[%d] (%s): direction %q; use >= (at least) or <= (at most)", i, q.Spec, q.Direction)
		}
		if _, err := units.Dimension(strings.TrimSpace(q.Unit)); strings.TrimSpace(q.Unit) == "" || err != nil {
			return Refusef("requirements[%d] (%s): unit %q is not a unit this server reads (N*m, uA, V, mm, g, USD, 1 for a ratio...); "+
				"without one no figure can be converted to it", i, q.Spec, q.Unit)
		}
		if other, dup := seen[mk]; dup {
			return Refusef("requirements names %s twice (%q and %q); give one threshold per figure", mk, other, q.Spec)
		}
		seen[mk] = q.Spec
	}
	if c := strings.TrimSpace(r.Choice); c != "" && !mpns[strings.ToUpper(c)] {
		return Refusef("choice %q is not the mpn of a candidate; name one of the candidates' mpn", c)
	}
	if r.Quantity != nil && *r.Quantity < 1 {
		return Refusef("quantity %d: a selection is used at least once", *r.Quantity)
	}
	return nil
}

// Requirement outcomes for one candidate.
const (
	MarginPass   = "pass"
	MarginFail   = "fail"
	MarginNoData = "no_data"
)

// RequirementMargin is one candidate held against one requirement.
type RequirementMargin struct {
	Required RequiredSpec
	// Spec is the candidate's spec key that answered, "" when none did.
	Spec string
	// Status is pass, fail or no_data (Detail says why).
	Status string
	// Value is the figure in the requirement's unit; Given is the figure
	// as written when it was converted; UnitAssumed a bare number read in
	// the requirement's unit.
	Value       *float64
	Given       string
	UnitAssumed bool
	// Margin is signed, in the requirement's unit (positive is slack);
	// MarginPct is it as a percentage of |threshold| (nil for a zero
	// threshold). Both nil for no_data.
	Margin, MarginPct *float64
	Detail            string
}

// CandidateMargins is one candidate held against every requirement.
type CandidateMargins struct {
	Candidate             ComponentCandidate
	Margins               []RequirementMargin
	Passes, Fails, NoData int
	// MeetsAll: every requirement has a figure and passes.
	MeetsAll bool
	// Tightest is the smallest MarginPct (the rank key); nil when no
	// requirement has a non-zero threshold or the candidate does not
	// meet every requirement.
	Tightest *float64
	// Rank is 1 for the best candidate meeting every requirement, 2 for
	// the next...; 0 for one that does not meet them all.
	Rank int
}

// HoldCandidates holds each candidate's figures against every
// requirement and ranks the candidates that meet them all.
func HoldCandidates(cands []ComponentCandidate, required []RequiredSpec) []CandidateMargins {
	out := make([]CandidateMargins, 0, len(cands))
	for _, c := range cands {
		idx, _ := indexSpecs(c.Specs) // Check refused duplicates
		cm := CandidateMargins{Candidate: c, Margins: []RequirementMargin{}}
		for _, q := range required {
			m := holdFigure(c.Specs, idx, q)
			switch m.Status {
			case MarginPass:
				cm.Passes++
			case MarginFail:
				cm.Fails++
			default:
				cm.NoData++
			}
			cm.Margins = append(cm.Margins, m)
		}
		cm.MeetsAll = cm.Fails == 0 && cm.NoData == 0
		if cm.MeetsAll {
			for _, m := range cm.Margins {
				if m.MarginPct != nil && (cm.Tightest == nil || *m.MarginPct < *cm.Tightest) {
					v := *m.MarginPct
					cm.Tightest = &v
				}
			}
		}
		out = append(out, cm)
	}
	var ranked []int
	for i := range out {
		if out[i].MeetsAll {
			ranked = append(ranked, i)
		}
	}
	key := func(i int) float64 {
		if out[i].Tightest == nil {
			return math.Inf(-1) // no relative margin: all such tie
		}
		return *out[i].Tightest
	}
	sort.SliceStable(ranked, func(a, b int) bool { return key(ranked[a]) > key(ranked[b]) })
	for r, i := range ranked {
		out[i].Rank = r + 1
		if r > 0 && tiedMargins(key(i), key(ranked[r-1])) {
			out[i].Rank = out[ranked[r-1]].Rank
		}
	}
	return out
}

func tiedMargins(a, b float64) bool { return a == b || units.Equal(a, b) }

// holdFigure holds a candidate's figure for one requirement.
func holdFigure(specs map[string]any, idx map[string]string, q RequiredSpec) RequirementMargin {
	m := RequirementMargin{Required: q, Status: MarginNoData}
	key, ok := idx[MetricKey(q.Spec)]
	if !ok {
		m.Detail = fmt.Sprintf("no figure for %s in its specs: no_data, neither a pass nor a fail", q.Spec)
		return m
	}
	m.Spec = key
	r := ReadSpec(specs[key], strings.TrimSpace(q.Unit))
	if r.Reason != "" {
		m.Detail = fmt.Sprintf("%s (%s): no_data, neither a pass nor a fail", r.Detail, r.Reason)
		return m
	}
	v := r.Value
	m.Value, m.Given, m.UnitAssumed = &v, r.Given, r.UnitAssumed
	c := Constraint{Metric: q.Spec, Operator: q.Direction, Limit: q.Threshold, Unit: q.Unit}
	satisfied, margin, pct := c.Judge(v)
	m.Margin, m.MarginPct = margin, pct
	m.Status = MarginFail
	if satisfied {
		m.Status = MarginPass
	}
	return m
}

// ComponentChoice is the outcome: every candidate's margins, the one
// chosen, its BOM item and the decision.
type ComponentChoice struct {
	Candidates []CandidateMargins
	Selected   CandidateMargins
	// ChosenBy is "rank" or "caller"; Best is the best ranked candidate
	// when the caller chose another (nil otherwise).
	ChosenBy string
	Best     *CandidateMargins
	// SelectedMeetsRequirements is the honest outcome: false when the
	// chosen part fails a requirement or lacks a figure for one.
	SelectedMeetsRequirements bool
	Warnings                  []string
	// BOM is the BOM item recorded; Decision the decision GENERATED_FROM
	// it.
	BOM          Selection
	Decision     Node
	DecisionItem Item
}

// RankRule is the rank rule in a sentence, as results and decisions state
// it.
const RankRule = "among the candidates that meet every requirement (each figure present and on the right side of its threshold), " +
	"the one whose tightest relative margin (margin / |threshold|, over the requirements with a non-zero threshold) is largest; " +
	"a tie, or no candidate meeting every requirement, needs the caller's choice"

// SelectComponent holds the candidates against the requirements, chooses
// one (the caller's choice, else the rank rule's), and records it as the
// role's BOM item and the choice as a decision GENERATED_FROM it, the
// other candidates its alternatives with their margin summaries. Nothing
// is written when it refuses.
func SelectComponent(ctx context.Context, s Store, r ComponentChoiceRequest) (ComponentChoice, error) {
	if err := r.Check(); err != nil {
		return ComponentChoice{}, err
	}
	out := ComponentChoice{Candidates: HoldCandidates(r.Candidates, r.Required), Warnings: []string{}}
	var top []CandidateMargins
	for _, c := range out.Candidates {
		if c.Rank == 1 {
			top = append(top, c)
		}
	}
	if choice := strings.TrimSpace(r.Choice); choice == "" {
		switch {
		case len(top) == 0:
			return ComponentChoice{}, Refusef("no candidate meets every requirement (%s): name the part chosen in choice to record it anyway "+
				"(selected_meets_requirements will be false), or revise the candidates or the requirements", candidateVerdicts(out.Candidates))
		case len(top) > 1:
			return ComponentChoice{}, Refusef("candidates %s tie under the rank rule (%s): name the part chosen in choice", mpnList(top), RankRule)
		}
		out.Selected, out.ChosenBy = top[0], "rank"
	} else {
		i := slices.IndexFunc(out.Candidates, func(c CandidateMargins) bool { return strings.EqualFold(strings.TrimSpace(c.Candidate.MPN), choice) })
		out.Selected, out.ChosenBy = out.Candidates[i], "caller"
		if len(top) > 0 && out.Selected.Rank != 1 {
			b := top[0]
			out.Best = &b
			out.Warnings = append(out.Warnings, fmt.Sprintf("the caller chose %s over %s, which the rank rule puts first", out.Selected.Candidate.MPN, b.Candidate.MPN))
		}
	}
	out.SelectedMeetsRequirements = out.Selected.MeetsAll
	if !out.Selected.MeetsAll {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the chosen part %s does not meet every requirement: %s", out.Selected.Candidate.MPN, verdict(out.Selected)))
	}
	for _, c := range out.Candidates {
		if c.NoData > 0 {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s is no_data for %s (no readable figure): not counted as a pass", c.Candidate.MPN, noDataSpecs(c)))
		}
	}

	sel := out.Selected.Candidate
	if w := costUnreadable(sel); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	bom := SelectionWrite{ProjectID: r.ProjectID, Name: strings.TrimSpace(r.Role), MPN: strings.TrimSpace(sel.MPN), Manufacturer: sel.Manufacturer,
		Description: sel.Description, DatasheetURL: sel.DatasheetURL, Quantity: r.Quantity, ForItem: r.ForItem, Specs: sel.Specs, WriteInfo: r.WriteInfo}
	bom.IdempotencyKey = subKey(r.IdempotencyKey, "bom")
	var err error
	if out.BOM, err = RecordComponentSelection(ctx, s, bom); err != nil {
		return ComponentChoice{}, err
	}
	d := componentDecision(r, out)
	if out.Decision, out.DecisionItem, _, err = RecordDecision(ctx, s, d); err != nil {
		return ComponentChoice{}, err
	}
	return out, nil
}

// costUnreadable says why the BOM roll-up cannot read the part's
// unit_cost (it reads it in USD), or "" when it can or there is none.
func costUnreadable(c ComponentCandidate) string {
	idx, _ := indexSpecs(c.Specs)
	key, ok := idx[MetricKey("unit_cost")]
	if !ok {
		return ""
	}
	if r := ReadSpec(c.Specs[key], "USD"); r.Reason != "" {
		return fmt.Sprintf("%s's %s (%v) does not read in USD (%s): the BOM roll-up will show its cost as no_data; give it in USD",
			strings.TrimSpace(c.MPN), key, c.Specs[key], r.Detail)
	}
	return ""
}

// subKey is the idempotency key of one of a call's several writes: the
// call's key and a suffix, or "" when the call has none.
func subKey(key, suffix string) string {
	if key == "" {
		return ""
	}
	return key + "/" + suffix
}

// componentDecision is the choice as a decision GENERATED_FROM the BOM
// item, every other candidate an alternative with its margin summary.
func componentDecision(r ComponentChoiceRequest, out ComponentChoice) DecisionWrite {
	sel := out.Selected
	name := strings.TrimSpace(r.DecisionName)
	if name == "" {
		name = "Component selection: " + strings.TrimSpace(r.Role)
	}
	decision := fmt.Sprintf("Use %s for %s (%s)", partName(sel.Candidate), strings.TrimSpace(r.Role), verdict(sel))
	var alts []Alternative
	for _, c := range out.Candidates {
		if c.Candidate.MPN == sel.Candidate.MPN {
			continue
		}
		alts = append(alts, Alternative{Option: partName(c.Candidate), Reason: verdict(c) + ": " + marginSummary(c)})
	}
	method := "Held against " + requiredList(r.Required) + ". Rank rule: " + RankRule + "."
	if out.ChosenBy == "caller" {
		method += " Chosen by the caller."
	} else {
		method += " Chosen by the rank rule."
	}
	method += " Selected: " + marginSummary(sel) + "."
	rationale := method
	if t := strings.TrimSpace(r.Rationale); t != "" {
		rationale = t + "\n\n" + method
	}
	for _, w := range out.Warnings {
		rationale += "\n- " + w
	}
	cands := []any{}
	for _, c := range out.Candidates {
		cands = append(cands, CandidateRow(c))
	}
	reqs := []any{}
	for _, q := range r.Required {
		reqs = append(reqs, map[string]any{"spec": q.Spec, "threshold": *q.Threshold, "unit": q.Unit, "direction": q.Direction})
	}
	details := map[string]any{"component_selection": map[string]any{"role": strings.TrimSpace(r.Role), "requirements": reqs, "candidates": cands,
		"selected": strings.TrimSpace(sel.Candidate.MPN), "chosen_by": out.ChosenBy, "selected_meets_requirements": out.SelectedMeetsRequirements,
		"bom_item": out.BOM.Node.Ref(), "rank_rule": RankRule}}
	return DecisionWrite{ProjectID: r.ProjectID, Name: name, Decision: decision, Rationale: rationale, Alternatives: alts,
		GeneratedFrom: []string{out.BOM.Node.ID}, Details: details,
		WriteInfo: WriteInfo{Author: r.Author, IdempotencyKey: subKey(r.IdempotencyKey, "decision")}}
}

// CandidateRow is one candidate held against the requirements, as JSON
// values.
func CandidateRow(c CandidateMargins) map[string]any {
	margins := []any{}
	for _, m := range c.Margins {
		margins = append(margins, MarginRow(m))
	}
	row := map[string]any{"mpn": strings.TrimSpace(c.Candidate.MPN), "margins": margins, "passes": float64(c.Passes), "fails": float64(c.Fails),
		"no_data": float64(c.NoData), "meets_all": c.MeetsAll, "rank": float64(c.Rank), "summary": verdict(c)}
	if c.Candidate.Manufacturer != "" {
		row["manufacturer"] = c.Candidate.Manufacturer
	}
	if c.Tightest != nil {
		row["tightest_margin_pct"] = *c.Tightest
	}
	return row
}

// MarginRow is one requirement held against one candidate, as JSON values.
func MarginRow(m RequirementMargin) map[string]any {
	row := map[string]any{"spec": m.Required.Spec, "threshold": *m.Required.Threshold, "unit": m.Required.Unit, "direction": m.Required.Direction,
		"status": m.Status}
	if m.Spec != "" {
		row["spec_key"] = m.Spec
	}
	if m.Value != nil {
		row["value"] = *m.Value
	}
	if m.Given != "" {
		row["value_as_given"] = m.Given
	}
	if m.UnitAssumed {
		row["unit_assumed"] = true
	}
	if m.Margin != nil {
		row["margin"] = *m.Margin
	}
	if m.MarginPct != nil {
		row["margin_pct"] = *m.MarginPct
	}
	if m.Detail != "" {
		row["detail"] = m.Detail
	}
	return row
}

// verdict says in a few words how a candidate held: meets all, or what it
// fails and lacks.
func verdict(c CandidateMargins) string {
	if c.MeetsAll {
		if c.Tightest != nil {
			return fmt.Sprintf("meets all %d requirements, tightest margin %s%%", len(c.Margins), formatNumber(*c.Tightest))
		}
		return fmt.Sprintf("meets all %d requirements", len(c.Margins))
	}
	var parts []string
	var fails []string
	for _, m := range c.Margins {
		if m.Status == MarginFail {
			fails = append(fails, m.Required.Spec)
		}
	}
	if len(fails) > 0 {
		parts = append(parts, "fails "+strings.Join(fails, ", "))
	}
	if c.NoData > 0 {
		parts = append(parts, "no_data for "+noDataSpecs(c))
	}
	return strings.Join(parts, "; ")
}

func noDataSpecs(c CandidateMargins) string {
	var out []string
	for _, m := range c.Margins {
		if m.Status == MarginNoData {
			out = append(out, m.Required.Spec)
		}
	}
	return strings.Join(out, ", ")
}

// marginSummary lists each requirement's outcome: "stall_torque 1.5 N*m
// against >= 1.2: margin 0.3 N*m (25%), pass".
func marginSummary(c CandidateMargins) string {
	var out []string
	for _, m := range c.Margins {
		q := m.Required
		if m.Status == MarginNoData {
			out = append(out, fmt.Sprintf("%s no_data (%s %s %s required)", q.Spec, q.Direction, formatNumber(*q.Threshold), q.Unit))
			continue
		}
		s := fmt.Sprintf("%s %s %s against %s %s", q.Spec, formatNumber(*m.Value), q.Unit, q.Direction, formatNumber(*q.Threshold))
		if m.Margin != nil {
			s += fmt.Sprintf(": margin %s %s", formatNumber(*m.Margin), q.Unit)
			if m.MarginPct != nil {
				s += fmt.Sprintf(" (%s%%)", formatNumber(*m.MarginPct))
			}
		}
		out = append(out, s+", "+m.Status)
	}
	return strings.Join(out, "; ")
}

func candidateVerdicts(cs []CandidateMargins) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Candidate.MPN + " " + verdict(c)
	}
	return strings.Join(out, "; ")
}

func mpnList(cs []CandidateMargins) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Candidate.MPN
	}
	return strings.Join(out, ", ")
}

func partName(c ComponentCandidate) string {
	if m := strings.TrimSpace(c.Manufacturer); m != "" {
		return strings.TrimSpace(c.MPN) + " (" + m + ")"
	}
	return strings.TrimSpace(c.MPN)
}

func requiredList(rs []RequiredSpec) string {
	out := make([]string, len(rs))
	for i, q := range rs {
		out[i] = fmt.Sprintf("%s %s %s %s", q.Spec, q.Direction, formatNumber(*q.Threshold), q.Unit)
	}
	return strings.Join(out, ", ")
}
