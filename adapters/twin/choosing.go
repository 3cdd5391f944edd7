package twin

import (
	"context"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

// choosingTools choose among recorded options and candidate parts, each
// choice recorded as a decision with the rejected alternatives.
func choosingTools() []tool { return []tool{selectConceptTool(), selectComponentTool()} }

// positiveWeights makes every weight of a weights object > 0.
func positiveWeights(s *jsonschema.Schema) {
	if s.AdditionalProperties != nil {
		adapters.ExclusiveMinimum(0)(s.AdditionalProperties)
	}
}

func selectConceptTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.select_concept", Name: "Select a concept by a weighted trade study", Capability: "twin_write",
		Description: "Trade study: compare 2 to 4 recorded concept_option records (twin.record_engineering_entity, entity_type concept_option, " +
			"properties.criteria_scores {criterion: number}, higher is better: record ratings, not raw quantities) by a weight per criterion. " +
			"Weights must be > 0 and are normalised to sum to 1 (each divided by their sum), so 2, 1, 1 is 0.5, 0.25, 0.25; the result says so. " +
			"Each option's weighted score is the sum of weight x its own recorded score. An option with no score for a weighted criterion is " +
			"no_data for it: it is never scored zero, it is not ranked, and the ranking cannot choose it (warnings names it). The highest " +
			"weighted score is chosen; a tie, or no option scored on every criterion, is refused unless choice names the option chosen. " +
			"choice may also override the ranking: the result shows its score beside the best one. The choice is recorded as the next revision " +
			"of a decision (name, default \"Concept selection\") GENERATED_FROM the chosen option, each other option an alternative with its " +
			"weighted score as the reason; nothing is written when it is refused.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, selectConcept, withItemRules(
		adapters.At("options", adapters.MinItems(twin.MinConceptOptions), adapters.MaxItems(twin.MaxConceptOptions)),
		adapters.At("options[]", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("weights", adapters.MaxProperties(50), positiveWeights),
		adapters.At("choice", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("rationale", adapters.MaxLength(20000)))...)
}

type selectConceptArgs struct {
	project.Scope
	Options   []string           `json:"options" jsonschema:"the concept_option records compared: node ids, or exact names"`
	Weights   map[string]float64 `json:"weights" jsonschema:"a weight > 0 per criterion, named as the options' criteria_scores name it (mass_kg, cost_usd, risk); normalised to sum to 1"`
	Choice    string             `json:"choice,omitempty" jsonschema:"the option chosen (node id or name), to break a tie, override the ranking, or take an option the ranking cannot score; leave it out to let the highest weighted score choose"`
	Name      string             `json:"name,omitempty" jsonschema:"the decision's name; the same name revises the same decision (default Concept selection)"`
	Rationale string             `json:"rationale,omitempty" jsonschema:"why, in the caller's words; the method and the scores are added after it"`
	itemArgs
}

func selectConcept(ctx context.Context, b *Backend, a selectConceptArgs) (any, error) {
	c := twin.ConceptSelection{Options: a.Options, Weights: a.Weights, Choice: a.Choice, Name: a.Name, Rationale: a.Rationale,
		WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := c.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	c.ProjectID = p.ID
	out, err := twin.SelectConcept(ctx, b.Store, c)
	if err != nil {
		return nil, err
	}
	options := make([]map[string]any, 0, len(out.Options))
	for _, o := range out.Options {
		options = append(options, twin.ConceptRow(o))
	}
	res := map[string]any{"project_id": p.ID, "selected": twin.ConceptRow(out.Selected), "chosen_by": out.ChosenBy, "options": options,
		"weights": out.Weights, "weights_given": out.GivenWeights, "normalisation": out.Normalisation, "warnings": out.Warnings,
		"decision": written(out.Decision, out.Item)}
	if out.Best != nil {
		res["best_scored"] = twin.ConceptRow(*out.Best)
	}
	return res, nil
}

func selectComponentTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.select_component", Name: "Select a component against required specs", Capability: "twin_write",
		Description: "Choose the part for a role (name, e.g. \"shoulder servo\") from 2 or more candidates, each an mpn with its datasheet specs " +
			"(as twin.record_component_selection takes them), against the specs the design requires (requirements: spec, threshold, unit, direction " +
			">= or <=). Per requirement per candidate it gives a signed margin in the requirement's unit (positive is slack) and its percentage " +
			"of |threshold|, status pass or fail; a candidate with no readable figure for a requirement is no_data for it, neither a pass nor a " +
			"fail. Rank rule: " + twin.RankRule + ". choice (an mpn) records the caller's pick instead, even one that fails or lacks a figure: " +
			"selected_meets_requirements reports the honest outcome. The chosen candidate is recorded as the next revision of the role's BOM item " +
			"(with all its specs: keep unit_cost, in USD, and category, which the BOM roll-up reads; held against the project's constraint sets " +
			"as twin.record_component_selection does), and the choice as a decision GENERATED_FROM it, each other candidate an alternative with " +
			"its margin summary. item_key, supersedes and change_reason apply to the BOM item. Nothing is written when it is refused.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, selectComponent, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("candidates", adapters.MinItems(twin.MinComponentCandidates), adapters.MaxItems(20)),
		adapters.At("candidates[].mpn", adapters.MinLength(1), adapters.MaxLength(100)),
		adapters.At("candidates[].manufacturer", adapters.MaxLength(200)),
		adapters.At("candidates[].description", adapters.MaxLength(2000)),
		adapters.At("candidates[].datasheet_url", adapters.MaxLength(2000)),
		adapters.At("candidates[].specs", adapters.MaxProperties(300), specValue),
		adapters.At("requirements", adapters.MinItems(1), adapters.MaxItems(50)),
		adapters.At("requirements[].spec", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("requirements[].unit", adapters.MinLength(1), adapters.MaxLength(40)),
		adapters.At("requirements[].direction", adapters.Enum(">=", "<=")),
		adapters.At("choice", adapters.MinLength(1), adapters.MaxLength(100)),
		adapters.At("quantity", adapters.Minimum(1), adapters.Maximum(1000000)),
		adapters.At("for_item", adapters.MinLength(1)),
		adapters.At("decision_name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("rationale", adapters.MaxLength(20000)))...)
}

type selectComponentArgs struct {
	project.Scope
	Name         string                    `json:"name" jsonschema:"the role the part fills (\"shoulder servo\"); the BOM item is keyed by it"`
	Candidates   []twin.ComponentCandidate `json:"candidates" jsonschema:"the parts considered, each with its datasheet specs"`
	Requirements []twin.RequiredSpec       `json:"requirements" jsonschema:"the specs the design requires of the part"`
	Choice       string                    `json:"choice,omitempty" jsonschema:"the mpn chosen; leave it out to let the rank rule choose"`
	Quantity     *int                      `json:"quantity,omitempty" jsonschema:"how many the design uses; 1 when not given"`
	ForItem      string                    `json:"for_item,omitempty" jsonschema:"the item the part is chosen for: KEY, KEY@n or a node id"`
	DecisionName string                    `json:"decision_name,omitempty" jsonschema:"the decision's name (default \"Component selection: <name>\"); the same name revises it"`
	Rationale    string                    `json:"rationale,omitempty" jsonschema:"why, in the caller's words; the rank rule and the margins are added after it"`
	itemArgs
}

func selectComponent(ctx context.Context, b *Backend, a selectComponentArgs) (any, error) {
	r := twin.ComponentChoiceRequest{Role: a.Name, Candidates: a.Candidates, Required: a.Requirements, Choice: a.Choice, Quantity: a.Quantity,
		ForItem: a.ForItem, DecisionName: a.DecisionName, Rationale: a.Rationale, WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := r.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	r.ProjectID = p.ID
	out, err := twin.SelectComponent(ctx, b.Store, r)
	if err != nil {
		return nil, err
	}
	cands := make([]map[string]any, 0, len(out.Candidates))
	for _, c := range out.Candidates {
		cands = append(cands, twin.CandidateRow(c))
	}
	bom := written(out.BOM.Node, out.BOM.Item)
	bom["mpn"], bom["quantity"] = out.BOM.Node.Properties["mpn"], out.BOM.Quantity
	if out.BOM.ForItem != "" {
		bom["for_item"] = out.BOM.ForItem
	}
	addRequirementCheck(bom, out.BOM.Check)
	res := map[string]any{"project_id": p.ID, "role": strings.TrimSpace(a.Name), "selected": twin.CandidateRow(out.Selected),
		"chosen_by": out.ChosenBy, "selected_meets_requirements": out.SelectedMeetsRequirements, "rank_rule": twin.RankRule,
		"candidates": cands, "warnings": out.Warnings, "bom_item": bom, "decision": written(out.Decision, out.DecisionItem)}
	if out.Best != nil {
		res["best_ranked"] = twin.CandidateRow(*out.Best)
	}
	return res, nil
}
