package components

import "strings"

// categoryPhrases are how datasheets name each category, for a full-text
// search when the catalogue has no row for it: a datasheet says
// "step-down converter" more often than "buck_converter".
var categoryPhrases = map[string][]string{
	CatBuck:      {"buck converter", "step-down converter", "buck regulator", "step-down regulator"},
	CatBoost:     {"boost converter", "step-up converter", "boost regulator"},
	CatBuckBoost: {"buck-boost converter", "buck-boost regulator"},
	CatLDO:       {"LDO", "low dropout regulator", "linear regulator"},
	CatMotor:     {"motor driver", "H-bridge"},
	CatESC:       {"ESC", "brushless motor controller"},
	CatCharger:   {"battery charger", "charge controller"},
	CatServo:     {"servo"},
}

// SearchPhrases are the phrases a full-text search for a category tries,
// in order: the known names of the category, else its name in words.
func SearchPhrases(category string) []string {
	if p, ok := categoryPhrases[category]; ok {
		return p
	}
	return []string{strings.ReplaceAll(category, "_", " ")}
}
