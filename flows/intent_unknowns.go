package flows

// Unknown topics.
const (
	TopicLoads              = "loads"
	TopicMaterial           = "material"
	TopicManufacturingRoute = "manufacturing_route"
	TopicTargetMaturity     = "target_maturity"
	TopicSuccessCriteria    = "success_criteria"
	TopicSupply             = "supply"
)

// unknowns lists what the intent does not say, most important first. For a
// mechanical part, loads, material and route block: without them an FEA or
// a cost has nothing to stand on. A missing target maturity or missing
// measurable criteria do not block the work (the requirements phase
// records criteria), but are still worth asking.
func unknowns(it Intent) []Unknown {
	out := []Unknown{}
	switch it.Domain {
	case DomainMechanical:
		if len(it.Loads) == 0 && it.LoadsAndUse == "" {
			out = append(out, Unknown{TopicLoads, "What loads does the part carry in use: magnitude (N), direction, where they " +
				"act and where the part is held? Several load cases are fine.", true})
		}
		if it.Material == "" {
			out = append(out, Unknown{TopicMaterial, "What material is it made of (e.g. aluminium_6061, steel, stainless_304, " +
				"abs, nylon), or should the concept phase choose one?", true})
		}
		if it.ManufacturingRoute == "" && it.ManufacturingContext == "" {
			out = append(out, Unknown{TopicManufacturingRoute, "How will it be made (cnc_milling, 3d_printing, sheet_metal, " +
				"injection_molding, casting...) and in what quantity?", true})
		}
	case DomainElectronics:
		if !hasMetric(it, "supply_voltage") {
			out = append(out, Unknown{TopicSupply, "What powers the board: supply voltage and source (battery, USB, " +
				"mains adapter)?", true})
		}
	}
	if it.TargetMaturity == "" {
		out = append(out, Unknown{TopicTargetMaturity, "What maturity is the target: concept, prototype or production?", false})
	}
	if len(it.SuccessCriteria) == 0 {
		out = append(out, Unknown{TopicSuccessCriteria, "What measurable limits must the design meet (for example maximum " +
			"deflection, minimum safety factor, maximum mass, envelope, supply current)?", false})
	}
	return out
}

// hasMetric says whether a constraint of the intent is on metric.
func hasMetric(it Intent, metric string) bool {
	for _, c := range it.Constraints {
		if c.Metric == metric {
			return true
		}
	}
	return false
}
