package flows

import (
	"fmt"
	"strings"
)

// Intent is a goal compiled into structure: what the design must meet, what
// it must carry, and what is still unknown. It is derived from text alone,
// stores nothing, and the same input always gives the same intent, so a
// proposal built from it can be replayed.
type Intent struct {
	Goal             string `json:"goal"`
	ImmediateRequest string `json:"immediate_request"`
	// Domain is mechanical, electronics or general, inferred from the words.
	Domain string `json:"domain"`
	// Constraints are everything the text constrains, in the order stated.
	Constraints []IntentConstraint `json:"constraints"`
	// SuccessCriteria are the measurable constraints: a metric, a bound and
	// a unit, which a constraint set can record and a gate can judge.
	SuccessCriteria []SuccessCriterion `json:"success_criteria"`
	// Loads are inputs to analysis (forces, torques, carried masses,
	// pressures), not criteria: the part must carry them.
	Loads []Load `json:"loads"`
	// LoadCaseDrafts are the load cases the loads imply, for the
	// requirements phase to complete with a part and faces.
	LoadCaseDrafts       []LoadCaseDraft `json:"load_case_drafts,omitempty"`
	Material             string          `json:"material,omitempty"`
	ManufacturingRoute   string          `json:"manufacturing_route,omitempty"`
	ManufacturingContext string          `json:"manufacturing_context,omitempty"`
	TargetMaturity       string          `json:"target_maturity,omitempty"`
	LoadsAndUse          string          `json:"loads_and_use,omitempty"`
	Budget               string          `json:"budget,omitempty"`
	Unknowns             []Unknown       `json:"unknowns"`
	// SuggestedFlow is the template for the domain: mech_v1, hardware_v1
	// or design_v1.
	SuggestedFlow string `json:"suggested_flow"`
}

// Constraint categories.
const (
	CategoryGeometry      = "geometry"
	CategoryStructural    = "structural"
	CategoryMaterial      = "material"
	CategoryMass          = "mass"
	CategoryThermal       = "thermal"
	CategoryElectrical    = "electrical"
	CategoryCost          = "cost"
	CategoryManufacturing = "manufacturing"
	CategorySchedule      = "schedule"
)

// Domains.
const (
	DomainMechanical  = "mechanical"
	DomainElectronics = "electronics"
	DomainGeneral     = "general"
)

// IntentConstraint is one thing the text constrains. Operator is empty when
// the text states a value rather than a bound ("supply 3.3 V", a load): an
// input to design to, not a criterion to pass. Limit is nil for a
// constraint without a number (a material, a manufacturing route).
type IntentConstraint struct {
	Category string   `json:"category"`
	Text     string   `json:"text"`
	Metric   string   `json:"metric,omitempty"`
	Operator string   `json:"operator,omitempty"`
	Limit    *float64 `json:"limit,omitempty"`
	Unit     string   `json:"unit,omitempty"`
}

// SuccessCriterion is a measurable requirement: Metric Operator Limit Unit.
type SuccessCriterion struct {
	Metric   string  `json:"metric"`
	Operator string  `json:"operator"`
	Limit    float64 `json:"limit"`
	Unit     string  `json:"unit"`
	Text     string  `json:"text"`
}

// String reads as a requirement: "max_displacement <= 0.5 mm".
func (s SuccessCriterion) String() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s %s", s.Metric, s.Operator, formatNumber(s.Limit), s.Unit))
}

// Load is a load the design must carry, in engineering units: a mass
// held is its weight in N, with what was stated and the conversion.
type Load struct {
	Magnitude float64 `json:"magnitude"`
	Unit      string  `json:"unit"`
	Text      string  `json:"text"`
	// Stated is the quantity as written, when it was converted.
	Stated     string `json:"stated,omitempty"`
	Conversion string `json:"conversion,omitempty"`
}

// Unknown is something the text does not say. Blocking unknowns stop the
// design work being judged meaningfully (no loads for a structural part).
type Unknown struct {
	Topic    string `json:"topic"`
	Question string `json:"question"`
	Blocking bool   `json:"blocking"`
}

// IntentInput is everything a client may tell about a goal; only Goal is
// needed, the rest answer questions CompileIntent would otherwise ask.
type IntentInput struct {
	Goal                 string `json:"goal"`
	Request              string `json:"request,omitempty"`
	ManufacturingContext string `json:"manufacturing_context,omitempty"`
	TargetMaturity       string `json:"target_maturity,omitempty"`
	LoadsAndUse          string `json:"loads_and_use,omitempty"`
	Budget               string `json:"budget,omitempty"`
}

// CompileIntent compiles a goal and the immediate request.
func CompileIntent(goal string, request string) Intent {
	return CompileIntentWith(IntentInput{Goal: goal, Request: request})
}

// CompileIntentWith compiles a goal with whatever context the client gave.
func CompileIntentWith(in IntentInput) Intent {
	it := Intent{
		Goal:                 strings.TrimSpace(in.Goal),
		ImmediateRequest:     strings.TrimSpace(in.Request),
		ManufacturingContext: strings.TrimSpace(in.ManufacturingContext),
		LoadsAndUse:          strings.TrimSpace(in.LoadsAndUse),
		Budget:               strings.TrimSpace(in.Budget),
		Constraints:          []IntentConstraint{},
		SuccessCriteria:      []SuccessCriterion{},
		Loads:                []Load{},
	}
	// Each part is its own sentence; the prefixes give a bare number in the
	// loads or budget answer the keyword that says what it is.
	parts := []string{in.Goal, in.Request, prefixed("loads ", in.LoadsAndUse), in.ManufacturingContext, prefixed("budget ", in.Budget)}
	text := normaliseText(joinSentences(parts))

	parsed := parseQuantities(text)
	it.Constraints = append(it.Constraints, parsed.constraints...)
	it.Loads = append(it.Loads, parsed.loads...)

	// A route named in the manufacturing answer wins over one in the goal.
	route, routeText := findRoute(normaliseText(in.ManufacturingContext))
	if route == "" {
		route, routeText = findRoute(text)
	}
	material, materialText := findMaterial(text)
	it.Material, it.ManufacturingRoute = material, route
	if material != "" {
		it.Constraints = append(it.Constraints, IntentConstraint{Category: CategoryMaterial, Text: materialText, Metric: "material"})
	}
	if route != "" {
		it.Constraints = append(it.Constraints, IntentConstraint{Category: CategoryManufacturing, Text: routeText,
			Metric: "manufacturing_route"})
	}
	it.TargetMaturity = normaliseMaturity(in.TargetMaturity)
	if it.TargetMaturity == "" {
		it.TargetMaturity = findMaturity(text)
	}
	it.Constraints = dedupeConstraints(it.Constraints)
	it.Loads = dedupeLoads(it.Loads)
	it.LoadCaseDrafts = loadCaseDrafts(it.Loads)
	for _, c := range it.Constraints {
		if isBound(c.Operator) && c.Limit != nil && c.Metric != "" {
			it.SuccessCriteria = append(it.SuccessCriteria, SuccessCriterion{Metric: c.Metric, Operator: c.Operator,
				Limit: *c.Limit, Unit: c.Unit, Text: c.Text})
		}
	}
	it.Domain = inferDomain(normaliseText(joinSentences([]string{in.Goal, in.Request, in.LoadsAndUse, in.ManufacturingContext})), parsed)
	it.SuggestedFlow = suggestedFlow(it.Domain)
	it.Unknowns = unknowns(it)
	return it
}

// suggestedFlow is the template that fits a domain.
func suggestedFlow(domain string) string {
	switch domain {
	case DomainMechanical:
		return "mech_v1"
	case DomainElectronics:
		return "hardware_v1"
	}
	return "design_v1"
}

// isBound says whether op is a bound a requirement can be checked against.
func isBound(op string) bool { return op == "<=" || op == "<" || op == ">=" || op == ">" }

func prefixed(prefix, s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return prefix + s
}

// joinSentences joins the non-empty parts as separate sentences.
func joinSentences(parts []string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, strings.TrimRight(p, ". "))
		}
	}
	return strings.Join(keep, ". ")
}

func dedupeConstraints(cs []IntentConstraint) []IntentConstraint {
	seen := map[string]bool{}
	out := []IntentConstraint{}
	for _, c := range cs {
		k := c.Metric + "|" + c.Operator + "|" + c.Unit + "|"
		if c.Limit != nil {
			k += formatNumber(*c.Limit)
		}
		if c.Metric == "" {
			k += "|" + c.Text
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

func dedupeLoads(ls []Load) []Load {
	seen := map[string]bool{}
	out := []Load{}
	for _, l := range ls {
		k := formatNumber(l.Magnitude) + "|" + l.Unit
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}
