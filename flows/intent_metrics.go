package flows

import "regexp"

// metricRule says what a quantity measures when one of its keywords is the
// nearest in its clause: "under 0.5 mm deflection" is max_displacement.
// A load rule makes the quantity an input the design must carry instead.
type metricRule struct {
	keywords  *regexp.Regexp
	metric    string
	category  string
	defaultOp string
	load      bool
}

func rule(keywords, metric, category, defaultOp string) metricRule {
	return metricRule{keywords: regexp.MustCompile(`\b(?:` + keywords + `)`), metric: metric, category: category, defaultOp: defaultOp}
}

func loadRule(keywords string) metricRule {
	return metricRule{keywords: regexp.MustCompile(`\b(?:` + keywords + `)`), category: CategoryStructural, load: true}
}

// metricRules are tried per dimension; on equal distance the earlier rule
// wins. defaultOp is the bound a bare value of that metric means ("0.5 mm
// deflection" is at most 0.5 mm); it is empty where a bare value is a
// stated value, not a bound.
var metricRules = map[string][]metricRule{
	dimLength: {
		rule(`deflect|displace|sag|bend`, "max_displacement", CategoryStructural, "<="),
		rule(`wall thickness|wall|walls`, "wall_thickness", CategoryGeometry, ">="),
		rule(`thick`, "thickness", CategoryGeometry, ""),
		rule(`diameter|dia\b|bore|hole`, "diameter", CategoryGeometry, ""),
		rule(`radius|fillet`, "radius", CategoryGeometry, ""),
		rule(`long\b|length`, "length", CategoryGeometry, ""),
		rule(`wide\b|width`, "width", CategoryGeometry, ""),
		rule(`tall\b|high\b|height`, "height", CategoryGeometry, ""),
		rule(`deep\b|depth`, "depth", CategoryGeometry, ""),
	},
	dimPressure: {
		rule(`stress|von mises|von-mises`, "max_von_mises", CategoryStructural, "<="),
		rule(`yield|strength`, "yield_strength", CategoryMaterial, ">="),
		loadRule(`pressure|pressuri`),
	},
	dimMass: {
		loadRule(`carr|hold|support|lift|bear|payload|load`),
		rule(`mass|weigh|light`, "mass", CategoryMass, "<="),
	},
	dimVoltage: {
		rule(`ripple|noise`, "ripple_voltage", CategoryElectrical, "<="),
		rule(`output|vout`, "output_voltage", CategoryElectrical, ""),
		rule(`suppl|input|vin|vcc|rail|battery|power|from|run`, "supply_voltage", CategoryElectrical, ""),
	},
	dimCurrent: {
		rule(`quiescent|sleep|standby|idle`, "quiescent_current", CategoryElectrical, "<="),
		rule(`output|deliver|provide|source`, "output_current", CategoryElectrical, ">="),
		rule(`draw|consum|suppl`, "supply_current", CategoryElectrical, "<="),
	},
	dimPower: {
		rule(`dissipat`, "power_dissipation", CategoryElectrical, "<="),
		rule(`output|deliver`, "output_power", CategoryElectrical, ">="),
		rule(`consum|draw|use|budget`, "power_consumption", CategoryElectrical, "<="),
	},
	dimTemperature: {
		rule(`rise`, "temperature_rise", CategoryThermal, "<="),
		rule(`operat|ambient|environment|storage`, "ambient_temperature", CategoryThermal, ""),
		rule(`surface|touch|hot|junction|case`, "max_temperature", CategoryThermal, "<="),
	},
	dimFrequency: {
		rule(`natural|resonan|mode|modal|eigen|first`, "natural_frequency", CategoryStructural, ">="),
		rule(`clock|switching|sampl`, "clock_frequency", CategoryElectrical, ""),
	},
	dimTime: {
		rule(`battery|runtime|run time|runs?\b|life|last`, "battery_life", CategoryElectrical, ">="),
		rule(`deliver|lead|schedule|ready|done|finish|ship|complete`, "lead_time", CategorySchedule, "<="),
	},
	dimPercent: {
		rule(`efficien`, "efficiency", CategoryElectrical, ">="),
	},
	dimCurrency: {
		rule(`unit cost|per unit|each|piece`, "unit_cost", CategoryCost, "<="),
		rule(`bom cost|bom`, "bom_cost", CategoryCost, "<="),
		rule(`cost|price|budget|spend`, "cost", CategoryCost, "<="),
	},
}

// fallbackRules say what a quantity measures when no keyword is near; a
// dimension without one keeps the value with no metric (not judged).
// Forces and torques are always loads.
var fallbackRules = map[string]metricRule{
	dimLength:      {category: CategoryGeometry},
	dimPressure:    {category: CategoryStructural},
	dimForce:       {category: CategoryStructural, load: true},
	dimTorque:      {category: CategoryStructural, load: true},
	dimMass:        {metric: "mass", category: CategoryMass, defaultOp: "<="},
	dimVoltage:     {metric: "supply_voltage", category: CategoryElectrical},
	dimCurrent:     {metric: "supply_current", category: CategoryElectrical, defaultOp: "<="},
	dimPower:       {metric: "power_consumption", category: CategoryElectrical, defaultOp: "<="},
	dimTemperature: {metric: "max_temperature", category: CategoryThermal, defaultOp: "<="},
	dimFrequency:   {category: CategoryStructural},
	dimTime:        {category: CategorySchedule},
	dimPercent:     {category: CategoryElectrical},
	dimCurrency:    {metric: "cost", category: CategoryCost, defaultOp: "<="},
}

// resolveMetric is the rule for a quantity of dim spanning [qs, qe) of
// clause text c: the rule whose keyword is nearest, else the fallback.
func resolveMetric(dim, c string, qs, qe int) metricRule {
	best, bestDist := -1, 0
	rules := metricRules[dim]
	for i, r := range rules {
		for _, m := range r.keywords.FindAllStringIndex(c, -1) {
			d := distance(m[0], m[1], qs, qe)
			if best < 0 || d < bestDist {
				best, bestDist = i, d
			}
		}
	}
	if best >= 0 {
		return rules[best]
	}
	return fallbackRules[dim]
}

// distance is how far apart two spans are; 0 when they overlap.
func distance(as, ae, bs, be int) int {
	switch {
	case ae <= bs:
		return bs - ae
	case be <= as:
		return as - be
	}
	return 0
}
