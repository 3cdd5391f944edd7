package twin

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A trade study chooses among 2 to 4 recorded concept_option records by a
// weighted sum of each option's own recorded criteria_scores (higher is
// better: a score is a rating, not a raw quantity). The weights, each > 0,
// are normalised to sum to 1, so a caller may give them in any scale
// (3, 2, 1 is 0.5, 0.333, 0.167). An option with no score for a weighted
// criterion is no_data for it: its weighted score is not computed, it is
// never counted as zero, and it cannot be chosen by the ranking; only the
// caller naming it can choose it, and the result says so.

// ConceptOptionType is the entity type of a trade study's candidates.
const ConceptOptionType = "concept_option"

// Concept selection bounds, as spec 003 gives them.
const (
	MinConceptOptions = 2
	MaxConceptOptions = 4
)

// DefaultConceptDecision names a trade study's decision when the caller
// gives no name: a rerun of the same study revises it.
const DefaultConceptDecision = "Concept selection"

// ConceptSelection asks a trade study to choose among recorded concept
// options.
type ConceptSelection struct {
	ProjectID string
	// Options name the concept_option records compared, by node id or
	// exact name.
	Options []string
	// Weights is each criterion's weight, > 0, in any scale.
	Weights map[string]float64
	// Choice names the option chosen (node id or name) when the caller
	// overrides the ranking, breaks a tie or takes an option the ranking
	// cannot score; "" lets the ranking choose.
	Choice string
	// Name titles the decision (DefaultConceptDecision when ""); Rationale
	// is the caller's reasoning, recorded before the method.
	Name, Rationale string
	WriteInfo
}

// Check refuses a study that cannot be scored, before anything is read:
// too few or too many options, one named twice, no weights, a weight
// that is not > 0, or two weights naming one criterion.
func (c ConceptSelection) Check() error {
	if n := len(c.Options); n < MinConceptOptions || n > MaxConceptOptions {
		return Refusef("options has %d entries: a trade study compares %d to %d recorded concept_option records "+
			"(record each with twin.record_engineering_entity, entity_type concept_option, properties.criteria_scores)", n, MinConceptOptions, MaxConceptOptions)
	}
	seen := map[string]bool{}
	for i, o := range c.Options {
		o = strings.TrimSpace(o)
		if o == "" {
			return Refusef("options[%d] is blank: name a concept_option by node id or name", i)
		}
		if seen[o] {
			return Refusef("options names %q twice; compare each option once", o)
		}
		seen[o] = true
	}
	if len(c.Weights) == 0 {
		return Refusef("weights is empty: give a weight > 0 per criterion the options are scored on (mass_kg: 0.4, cost_usd: 0.3, ...)")
	}
	keys := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(c.Weights)) {
		w := c.Weights[k]
		mk := MetricKey(k)
		switch {
		case mk == "":
			return Refusef("weights has a blank criterion; name each criterion as the options' criteria_scores do")
		case math.IsNaN(w) || math.IsInf(w, 0) || w <= 0:
			return Refusef("weights[%q] is %v: every weight must be > 0 (leave a criterion out to ignore it)", k, w)
		}
		if other, dup := keys[mk]; dup {
			return Refusef("weights %q and %q name the same criterion (%s); keep one", other, k, mk)
		}
		keys[mk] = k
	}
	return nil
}

// CriterionScore is one option's score on one weighted criterion.
type CriterionScore struct {
	// Criterion is as the weights name it; Weight its normalised weight.
	Criterion string
	Weight    float64
	// Score is the option's recorded score and Weighted Weight*Score;
	// both nil when the option has none (no_data, Detail says why).
	Score, Weighted *float64
	Detail          string
}

// NoData says whether the option has no usable score for the criterion.
func (c CriterionScore) NoData() bool { return c.Score == nil }

// ConceptScore is one option scored against the weights.
type ConceptScore struct {
	Node     Node
	Criteria []CriterionScore
	// Score is the weighted sum when every weighted criterion is scored,
	// nil (no_data) otherwise. Partial is the weighted sum over the
	// criteria it has, Covered the share of the weight they carry.
	Score            *float64
	Partial, Covered float64
	// Missing names the weighted criteria it has no score for.
	Missing []string
	// Rank is 1 for the best scored option, 2 for the next...; 0 for an
	// option with no_data, which is not ranked.
	Rank int
}

// Label names the option in a sentence: "name" (node id).
func (c ConceptScore) Label() string { return fmt.Sprintf("%q (%s)", c.Node.Name, c.Node.ID) }

// ConceptChoice is a trade study's outcome, recorded as a decision.
type ConceptChoice struct {
	// Options are scored in the order given; Selected is one of them.
	Options  []ConceptScore
	Selected ConceptScore
	// ChosenBy is "ranking" or "caller".
	ChosenBy string
	// Best is the best ranked option when the caller chose another (nil
	// otherwise).
	Best *ConceptScore
	// Weights are normalised to sum to 1; GivenWeights as given;
	// Normalisation says so in a sentence.
	Weights, GivenWeights map[string]float64
	Normalisation         string
	// Warnings say what a reader must not miss: an option the ranking
	// could not score, a choice that overrides the ranking.
	Warnings []string
	Decision Node
	Item     Item
}

// ScoreConcepts scores each option's recorded criteria_scores against
// the weights (normalised here), and ranks the options that have a score
// for every weighted criterion.
func ScoreConcepts(options []Node, weights map[string]float64) []ConceptScore {
	norm := normaliseWeights(weights)
	criteria := slices.Sorted(maps.Keys(norm))
	out := make([]ConceptScore, 0, len(options))
	for _, n := range options {
		scores := readCriteriaScores(n)
		cs := ConceptScore{Node: n, Criteria: []CriterionScore{}, Missing: []string{}}
		for _, c := range criteria {
			row := CriterionScore{Criterion: c, Weight: norm[c]}
			if v, detail := scores.find(c); detail != "" {
				row.Detail = detail
				cs.Missing = append(cs.Missing, c)
			} else {
				w := units.RoundSig(norm[c]*v, 12)
				row.Score, row.Weighted = &v, &w
				cs.Partial += w
				cs.Covered += norm[c]
			}
			cs.Criteria = append(cs.Criteria, row)
		}
		cs.Partial, cs.Covered = units.RoundSig(cs.Partial, 12), units.RoundSig(cs.Covered, 12)
		if len(cs.Missing) == 0 {
			total := cs.Partial
			cs.Score = &total
		}
		out = append(out, cs)
	}
	ranked := make([]int, 0, len(out))
	for i := range out {
		if out[i].Score != nil {
			ranked = append(ranked, i)
		}
	}
	sort.SliceStable(ranked, func(a, b int) bool { return *out[ranked[a]].Score > *out[ranked[b]].Score })
	for r, i := range ranked {
		out[i].Rank = r + 1
		if r > 0 && sameScore(*out[i].Score, *out[ranked[r-1]].Score) {
			out[i].Rank = out[ranked[r-1]].Rank
		}
	}
	return out
}

// sameScore says whether two weighted scores tie: equal within a relative
// 1e-9, so rounding in the weights never breaks a tie by accident.
func sameScore(a, b float64) bool { return units.Equal(a, b) }

// normaliseWeights divides each weight by their sum.
func normaliseWeights(weights map[string]float64) map[string]float64 {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	out := make(map[string]float64, len(weights))
	for k, w := range weights {
		out[strings.TrimSpace(k)] = units.RoundSig(w/sum, 12)
	}
	return out
}

// criteriaScores are an option's recorded scores by MetricKey, with the
// key as recorded; ambiguous are the keys two recorded scores share.
type criteriaScores struct {
	values    map[string]any
	given     map[string]string
	ambiguous map[string]bool
	// absent says why there are none at all ("" when there are some).
	absent string
}

func readCriteriaScores(n Node) criteriaScores {
	out := criteriaScores{values: map[string]any{}, given: map[string]string{}, ambiguous: map[string]bool{}}
	raw, ok := n.Properties["criteria_scores"]
	if !ok || raw == nil {
		out.absent = "the option records no criteria_scores"
		return out
	}
	m, ok := raw.(map[string]any)
	if !ok {
		out.absent = fmt.Sprintf("its criteria_scores is a %T, not an object of numbers", raw)
		return out
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		mk := MetricKey(k)
		if _, dup := out.values[mk]; dup {
			out.ambiguous[mk] = true
		}
		out.values[mk], out.given[mk] = m[k], k
	}
	return out
}

// find is the option's score for a criterion, or why there is none.
func (s criteriaScores) find(criterion string) (float64, string) {
	mk := MetricKey(criterion)
	switch {
	case s.absent != "":
		return 0, s.absent
	case s.ambiguous[mk]:
		return 0, fmt.Sprintf("two of its criteria_scores name %s; keep one", mk)
	}
	v, ok := s.values[mk]
	if !ok {
		return 0, fmt.Sprintf("no score for %s in its criteria_scores", criterion)
	}
	f, ok := NumberOf(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Sprintf("its score for %s (%s) is %v, not a number", criterion, s.given[mk], v)
	}
	return f, ""
}

// SelectConcept scores the options against the weights and records the
// choice as a decision GENERATED_FROM the chosen option, every other
// option an alternative with its weighted score as the reason. The
// ranking chooses the best scored option; a tie at the top, or no option
// scored on every criterion, is refused unless the caller names the
// choice. Nothing is written when it refuses.
func SelectConcept(ctx context.Context, s Store, c ConceptSelection) (ConceptChoice, error) {
	if err := c.Check(); err != nil {
		return ConceptChoice{}, err
	}
	nodes := make([]Node, 0, len(c.Options))
	for _, ref := range c.Options {
		n, err := findConceptOption(ctx, s, c.ProjectID, ref)
		if err != nil {
			return ConceptChoice{}, err
		}
		if slices.ContainsFunc(nodes, func(m Node) bool { return m.ID == n.ID }) {
			return ConceptChoice{}, Refusef("options names %s twice (as %q); compare each option once", n.ID, ref)
		}
		nodes = append(nodes, n)
	}
	out := ConceptChoice{Options: ScoreConcepts(nodes, c.Weights), GivenWeights: c.Weights, Warnings: []string{}}
	out.Weights = normaliseWeights(c.Weights)
	out.Normalisation = "weights are normalised to sum to 1 (each divided by their sum, " + formatNumber(sumOf(c.Weights)) +
		"); an option's weighted score is the sum of weight x its recorded score over the criteria, higher is better"

	best := -1
	var tied []ConceptScore
	for i, o := range out.Options {
		if o.Rank == 1 {
			if best < 0 {
				best = i
			}
			tied = append(tied, o)
		}
	}
	var unscored []ConceptScore
	for _, o := range out.Options {
		if o.Score == nil {
			unscored = append(unscored, o)
			out.Warnings = append(out.Warnings, fmt.Sprintf("option %s is no_data for %s, so it was not ranked and cannot be chosen by the ranking "+
				"(it is never scored zero; its partial score is %s over %s of the weight): record its score with twin.record_engineering_entity to rank it",
				o.Label(), strings.Join(o.Missing, ", "), formatNumber(o.Partial), formatNumber(o.Covered)))
		}
	}

	if strings.TrimSpace(c.Choice) == "" {
		switch {
		case best < 0:
			return ConceptChoice{}, Refusef("no option has a score for every weighted criterion (%s), so none can be ranked; record the missing scores, "+
				"or name the option chosen in choice to record it with its score shown as no_data", missingSummary(unscored))
		case len(tied) > 1:
			return ConceptChoice{}, Refusef("options %s tie at weighted score %s: name the option chosen in choice (and say why in rationale)",
				labels(tied), formatNumber(*tied[0].Score))
		}
		out.Selected, out.ChosenBy = out.Options[best], "ranking"
	} else {
		chosen, err := findConceptOption(ctx, s, c.ProjectID, c.Choice)
		if err != nil {
			return ConceptChoice{}, fmt.Errorf("choice: %w", err)
		}
		i := slices.IndexFunc(out.Options, func(o ConceptScore) bool { return o.Node.ID == chosen.ID })
		if i < 0 {
			return ConceptChoice{}, Refusef("choice %q is not one of the options compared; name one of %s", c.Choice, labels(out.Options))
		}
		out.Selected, out.ChosenBy = out.Options[i], "caller"
		if out.Selected.Score == nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("the chosen option %s has no score for %s: its weighted score is no_data, so the choice rests on the caller's rationale, not the ranking",
				out.Selected.Label(), strings.Join(out.Selected.Missing, ", ")))
		}
		if best >= 0 && out.Selected.Rank != 1 {
			b := out.Options[best]
			out.Best = &b
			score := "no_data"
			if out.Selected.Score != nil {
				score = fmt.Sprintf("%s, rank %d", formatNumber(*out.Selected.Score), out.Selected.Rank)
			}
			out.Warnings = append(out.Warnings, fmt.Sprintf("the caller chose %s (weighted score %s) over the best scored %s (%s)",
				out.Selected.Label(), score, b.Label(), formatNumber(*b.Score)))
		}
	}

	d := conceptDecision(c, out)
	var err error
	out.Decision, out.Item, _, err = RecordDecision(ctx, s, d)
	if err != nil {
		return ConceptChoice{}, err
	}
	return out, nil
}

// findConceptOption resolves an option by node id, or by the exact name
// of one concept_option in the project.
func findConceptOption(ctx context.Context, s Store, projectID, ref string) (Node, error) {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "n-") {
		n, err := ResolveRef(ctx, s, projectID, ref)
		if err != nil {
			return Node{}, err
		}
		if n.Type != ConceptOptionType {
			return Node{}, Refusef("%s is a %s, not a concept_option; record each candidate with twin.record_engineering_entity (entity_type concept_option)", ref, n.Type)
		}
		return n, nil
	}
	all, err := s.NodesByType(ctx, projectID, ConceptOptionType)
	if err != nil {
		return Node{}, err
	}
	var found []Node
	for _, n := range all {
		if n.Name == ref {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return Node{}, Refusef("no concept_option is named %q in this project; record it with twin.record_engineering_entity (entity_type concept_option), or pass its node id", ref)
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, n := range found {
		ids[i] = n.ID
	}
	return Node{}, Refusef("%d concept_option records are named %q (%s): pass the node id of the one meant", len(found), ref, strings.Join(ids, ", "))
}

// conceptDecision is the choice as a decision: the other options its
// alternatives, each with its weighted score as the reason.
func conceptDecision(c ConceptSelection, out ConceptChoice) DecisionWrite {
	sel := out.Selected
	name := strings.TrimSpace(c.Name)
	if name == "" {
		name = DefaultConceptDecision
	}
	score := "no_data (no score for " + strings.Join(sel.Missing, ", ") + ")"
	if sel.Score != nil {
		score = formatNumber(*sel.Score)
	}
	decision := fmt.Sprintf("Selected concept %q (weighted score %s)", sel.Node.Name, score)
	var alts []Alternative
	for _, o := range out.Options {
		if o.Node.ID == sel.Node.ID {
			continue
		}
		var reason string
		switch {
		case o.Score == nil:
			reason = fmt.Sprintf("not ranked: no_data for %s (never scored zero; partial score %s over %s of the weight)",
				strings.Join(o.Missing, ", "), formatNumber(o.Partial), formatNumber(o.Covered))
		case sel.Score != nil && sameScore(*o.Score, *sel.Score):
			reason = fmt.Sprintf("weighted score %s, tied with the selected option; the caller chose %q", formatNumber(*o.Score), sel.Node.Name)
		case sel.Score != nil:
			reason = fmt.Sprintf("weighted score %s against %s for %q (rank %d)", formatNumber(*o.Score), score, sel.Node.Name, o.Rank)
		default:
			reason = fmt.Sprintf("weighted score %s (rank %d); the caller chose %q, which is no_data", formatNumber(*o.Score), o.Rank, sel.Node.Name)
		}
		alts = append(alts, Alternative{Option: fmt.Sprintf("%s (%s)", o.Node.Name, o.Node.ID), Reason: reason})
	}
	method := "Trade study over " + weightList(out.Weights) + ": " + out.Normalisation + "."
	if out.ChosenBy == "caller" {
		method += " Chosen by the caller."
	} else {
		method += " Chosen by the ranking (the highest weighted score)."
	}
	rationale := method
	if r := strings.TrimSpace(c.Rationale); r != "" {
		rationale = r + "\n\n" + method
	}
	for _, w := range out.Warnings {
		rationale += "\n- " + w
	}
	return DecisionWrite{ProjectID: c.ProjectID, Name: name, Decision: decision, Rationale: rationale, Alternatives: alts,
		GeneratedFrom: []string{sel.Node.ID}, Details: map[string]any{"trade_study": tradeStudyRecord(out)}, WriteInfo: c.WriteInfo}
}

// tradeStudyRecord is the study as the decision stores it: JSON values
// only, so both stores read it back alike.
func tradeStudyRecord(out ConceptChoice) map[string]any {
	options := []any{}
	for _, o := range out.Options {
		options = append(options, ConceptRow(o))
	}
	weights, given := map[string]any{}, map[string]any{}
	for k, v := range out.Weights {
		weights[k] = v
	}
	for k, v := range out.GivenWeights {
		given[k] = v
	}
	return map[string]any{"weights": weights, "weights_given": given, "normalisation": out.Normalisation, "options": options,
		"selected": out.Selected.Node.ID, "chosen_by": out.ChosenBy}
}

// ConceptRow is one scored option as JSON values: its node, weighted
// score (nil: no_data), rank, and each criterion's score.
func ConceptRow(o ConceptScore) map[string]any {
	criteria := []any{}
	for _, c := range o.Criteria {
		row := map[string]any{"criterion": c.Criterion, "weight": c.Weight}
		if c.NoData() {
			row["status"], row["detail"] = "no_data", c.Detail
		} else {
			row["status"], row["score"], row["weighted"] = "scored", *c.Score, *c.Weighted
		}
		criteria = append(criteria, row)
	}
	row := map[string]any{"node_id": o.Node.ID, "name": o.Node.Name, "criteria": criteria, "rank": o.Rank}
	if o.Score != nil {
		row["weighted_score"], row["status"] = *o.Score, "scored"
	} else {
		missing := make([]any, len(o.Missing))
		for i, m := range o.Missing {
			missing[i] = m
		}
		row["weighted_score"], row["status"], row["missing"] = nil, "no_data", missing
		row["partial_score"], row["weight_covered"] = o.Partial, o.Covered
	}
	return row
}

func labels(os []ConceptScore) string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.Label()
	}
	return strings.Join(out, ", ")
}

func missingSummary(os []ConceptScore) string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = fmt.Sprintf("%s lacks %s", o.Label(), strings.Join(o.Missing, ", "))
	}
	return strings.Join(out, "; ")
}

func weightList(w map[string]float64) string {
	keys := slices.Sorted(maps.Keys(w))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%s %s", k, formatNumber(w[k]))
	}
	return strings.Join(out, ", ")
}

func sumOf(w map[string]float64) float64 {
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	return sum
}

// formatNumber writes a score for a sentence: up to 6 significant digits.
func formatNumber(v float64) string { return fmt.Sprintf("%.6g", v) }
