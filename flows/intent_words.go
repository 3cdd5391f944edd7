package flows

import (
	"regexp"
	"strings"
)

// Words CompileIntent recognises without numbers: the material, the
// manufacturing route, the target maturity and the domain.

// named is a pattern and the name it stands for; the earliest match in the
// text wins, and on the same position the earlier pattern.
type named struct {
	re   *regexp.Regexp
	name string
}

func pattern(re, name string) named { return named{regexp.MustCompile(re), name} }

// earliest is the name whose pattern matches first in text, and the match.
func earliest(list []named, text string) (string, []int) {
	best, at := "", []int(nil)
	for _, n := range list {
		m := n.re.FindStringSubmatchIndex(text)
		if m != nil && (at == nil || m[0] < at[0]) {
			best, at = n.name, m
		}
	}
	return best, at
}

// matchedClause is the clause of text holding the match at.
func matchedClause(text string, at []int) string {
	return clauseText(text, clauseAt(clauses(text), at[0]))
}

// routes are manufacturing routes, spelled as the twin and tools name them.
var routes = []named{
	pattern(`\bcnc[ -]?mill|\bmilled\b|\bmilling\b`, "cnc_milling"),
	pattern(`\bcnc[ -]?turn|\blathe\b|\bturned\b`, "cnc_turning"),
	pattern(`\bcnc\b|\bmachined\b|\bmachining\b`, "cnc_machining"),
	pattern(`\binjection[ -]?mou?ld`, "injection_molding"),
	pattern(`\bsheet[ -]?metal\b|\blaser[ -]?cut|\bpress brake\b`, "sheet_metal"),
	pattern(`\bdie[ -]?cast`, "die_casting"),
	pattern(`\bsand[ -]?cast`, "sand_casting"),
	pattern(`\binvestment[ -]?cast`, "investment_casting"),
	pattern(`\bcast\b|\bcasting\b`, "casting"),
	pattern(`\bdmls\b|\bslm\b|\bmetal 3d[ -]?print|\bmetal additive\b`, "metal_am"),
	pattern(`\bfdm\b|\bfused deposition\b`, "fdm_printing"),
	pattern(`\bsla\b|\bresin[ -]?print`, "sla_printing"),
	pattern(`\bsls\b|\bmjf\b|\bmulti[ -]?jet fusion\b`, "sls_printing"),
	pattern(`\b3d[ -]?print|\badditive(?:ly)? manufactur`, "3d_printing"),
	pattern(`\bextru(?:ded|sion)\b`, "extrusion"),
	pattern(`\bweld(?:ed|ing)?\b|\bfabricated\b`, "welded_fabrication"),
	pattern(`\bforg(?:ed|ing)\b`, "forging"),
	pattern(`\bpcba?\b.*\bassembl|\bsmt\b|\bjlcpcb\b|\bpcbway\b`, "pcb_assembly"),
}

// findRoute is the manufacturing route the text names and its clause.
func findRoute(text string) (string, string) {
	name, at := earliest(routes, text)
	if at == nil {
		return "", ""
	}
	return name, matchedClause(text, at)
}

// materials are spelled as the materials table reads them (aliases
// included); group 1 or 2 of an aluminium or stainless match is its grade.
var materials = []named{
	pattern(`\b(?:(\d{4})(?:-?t\d+)? )?(?:aluminium|aluminum)(?: alloy)?(?: (\d{4})(?:-?t\d+)?\b)?`, "aluminium"),
	pattern(`\bal ?(\d{4})(?:-?t\d+)?\b|\b(6061|6082|7075|5052|2024)(?:-?t\d+)?\b`, "aluminium"),
	pattern(`\b(?:(\d{3})l? )?stainless(?: steel)?(?: (\d{3})l?\b)?`, "stainless"),
	pattern(`\bti-?6al-?4v\b|\btitanium\b`, "titanium"),
	pattern(`\b(?:mild|structural|carbon)? ?steel\b`, "steel"),
	pattern(`\bbrass\b`, "brass"),
	pattern(`\bcopper\b`, "copper"),
	pattern(`\bpetg\b`, "petg"),
	pattern(`\babs\b`, "abs"),
	pattern(`\bpla\b`, "pla"),
	pattern(`\bnylon\b|\bpa ?12\b`, "nylon"),
	pattern(`\bpolycarbonate\b`, "polycarbonate"),
	pattern(`\bpeek\b`, "peek"),
	pattern(`\bacetal\b|\bdelrin\b|\bpom\b`, "acetal"),
	pattern(`\bcarbon fib(?:er|re)\b|\bcfrp\b`, "carbon_fiber"),
	pattern(`\bfr-?4\b`, "fr4"),
}

// findMaterial is the material the text names (aluminium_6061,
// stainless_304, steel...) and its clause.
func findMaterial(text string) (string, string) {
	name, at := earliest(materials, text)
	if at == nil {
		return "", ""
	}
	if name == "aluminium" || name == "stainless" {
		for g := 1; 2*g+1 < len(at); g++ {
			if at[2*g] >= 0 {
				name += "_" + text[at[2*g]:at[2*g+1]]
				break
			}
		}
	}
	return name, matchedClause(text, at)
}

// maturities are the target maturities a flow can aim at.
var maturities = []named{
	pattern(`\bproof[ -]of[ -]concept\b|\bpoc\b|\bfeasibility\b|\bconcept(?:ual)?\b`, "concept"),
	pattern(`\bprototyp|\bproto\b|\bevt\b|\balpha\b|\bbreadboard\b`, "prototype"),
	pattern(`\bproduction\b|\bmass[ -]produc|\bseries\b|\bpvt\b|\bdvt\b|\bmanufactur(?:able|ing) ready\b`, "production"),
}

// normaliseMaturity reads a stated maturity; one it does not recognise is
// kept as written (lowercase, words joined by _) rather than dropped.
func normaliseMaturity(s string) string {
	t := normaliseText(s)
	if t == "" {
		return ""
	}
	if name, at := earliest(maturities, t); at != nil {
		return name
	}
	return strings.NewReplacer(" ", "_", "-", "_").Replace(t)
}

// maturityInText finds a maturity the goal states: "a production-ready",
// "a prototype". "concept" alone is not read from a goal (a design goal
// mentions concepts without aiming at one).
var maturityInText = []named{
	pattern(`\bproof[ -]of[ -]concept\b|\bpoc\b|\bfeasibility (?:study|prototype|demo)`, "concept"),
	pattern(`\bprototyp|\bbreadboard\b`, "prototype"),
	pattern(`\bproduction[ -]ready\b|\bfor (?:mass |series |volume )?production\b|\bmass[ -]produc|\bseries production\b`, "production"),
}

// findMaturity is the maturity the text states, or "".
func findMaturity(text string) string {
	name, _ := earliest(maturityInText, text)
	return name
}

// Domain words, counted as whole-word prefixes.
var (
	mechanicalWords = regexp.MustCompile(`\b(?:bracket|mount|housing|enclosure|beam|shaft|gear|hinge|clamp|frame|chassis|` +
		`plate|flange|lever|spring|pulley|axle|strut|truss|fixture|jig|load|stress|deflect|displace|safety factor|fea\b|` +
		`cnc|mill|machin|cast|weld|aluminium|aluminum|steel|titanium|injection|sheet metal|bolt|torque|stiff)`)
	electronicsWords = regexp.MustCompile(`\b(?:pcb|board|circuit|schematic|voltage|current|regulator|mcu|microcontroller|` +
		`sensor|firmware|battery|usb|led\b|resistor|capacitor|amplifier|adc|dac|ldo|buck|boost|kicad|spice|esp32|stm32|` +
		`bluetooth|wifi|power supply|quiescent|mah\b|i2c|spi\b|uart)`)
)

// inferDomain reads the domain from its words and what its quantities
// constrain: more mechanical than electronic signs is mechanical, and the
// reverse electronics; a tie (or no sign at all) is general.
func inferDomain(text string, q parsedQuantities) string {
	mech := len(mechanicalWords.FindAllString(text, -1))
	elec := len(electronicsWords.FindAllString(text, -1))
	for _, c := range q.constraints {
		switch c.Category {
		case CategoryStructural:
			mech++
		case CategoryElectrical:
			elec++
		}
	}
	switch {
	case mech > elec:
		return DomainMechanical
	case elec > mech:
		return DomainElectronics
	}
	return DomainGeneral
}
