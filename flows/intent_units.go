package flows

import (
	"regexp"
	"strings"
)

// Dimensions of the quantities CompileIntent reads.
const (
	dimLength      = "length"
	dimMass        = "mass"
	dimForce       = "force"
	dimTorque      = "torque"
	dimPressure    = "pressure"
	dimVoltage     = "voltage"
	dimCurrent     = "current"
	dimPower       = "power"
	dimTemperature = "temperature"
	dimFrequency   = "frequency"
	dimTime        = "time"
	dimPercent     = "percent"
	dimCurrency    = "currency"
)

// unitSpelling is how a unit is written in lowercase text, the symbol the
// twin reads it as, and what it measures. Longer spellings come first.
type unitSpelling struct {
	pattern, symbol, dim string
}

var unitSpellings = []unitSpelling{
	{`mpa|n/mm2|n/mm²|n/mm\^2`, "MPa", dimPressure},
	{`gpa`, "GPa", dimPressure},
	{`kpa`, "kPa", dimPressure},
	{`pa|pascals?`, "Pa", dimPressure},
	{`bar`, "bar", dimPressure},
	{`psi`, "psi", dimPressure},
	{`n·m|n\.m|n\*m|nm|newton[ -]?met(?:er|re)s?`, "N·m", dimTorque},
	{`kn|kilonewtons?`, "kN", dimForce},
	{`lbf`, "lbf", dimForce},
	{`n|newtons?`, "N", dimForce},
	{`mm|millimet(?:er|re)s?`, "mm", dimLength},
	{`cm|centimet(?:er|re)s?`, "cm", dimLength},
	{`um|microns?|micromet(?:er|re)s?`, "um", dimLength},
	{`m|met(?:er|re)s?`, "m", dimLength},
	{`inch(?:es)?`, "in", dimLength},
	{`kg|kilograms?|kilos?`, "kg", dimMass},
	{`g|grams?|grammes?`, "g", dimMass},
	{`lbs?`, "lb", dimMass},
	{`mv|millivolts?`, "mV", dimVoltage},
	{`kv|kilovolts?`, "kV", dimVoltage},
	{`vdc|vac|v|volts?`, "V", dimVoltage},
	{`ua|microamps?`, "uA", dimCurrent},
	{`ma|milliamps?`, "mA", dimCurrent},
	{`a|amps?|amperes?`, "A", dimCurrent},
	{`mw|milliwatts?`, "mW", dimPower},
	{`kw|kilowatts?`, "kW", dimPower},
	{`w|watts?`, "W", dimPower},
	{`°c|° c|deg(?:rees)? ?c(?:elsius)?|c`, "°C", dimTemperature},
	{`°f|deg(?:rees)? ?f(?:ahrenheit)?`, "°F", dimTemperature},
	{`ghz`, "GHz", dimFrequency},
	{`mhz`, "MHz", dimFrequency},
	{`khz`, "kHz", dimFrequency},
	{`hz|hertz`, "Hz", dimFrequency},
	{`hours?|hrs?|h`, "h", dimTime},
	{`days?`, "day", dimTime},
	{`weeks?`, "week", dimTime},
	{`months?`, "month", dimTime},
	{`%|percent`, "%", dimPercent},
	{`usd|dollars?`, "USD", dimCurrency},
	{`eur|euros?`, "EUR", dimCurrency},
	{`gbp`, "GBP", dimCurrency},
}

// number is a decimal, maybe negative.
const number = `-?\d+(?:\.\d+)?`

// unitAlternatives is every spelling, as one regexp alternation.
var unitAlternatives = func() string {
	alts := make([]string, len(unitSpellings))
	for i, u := range unitSpellings {
		alts[i] = u.pattern
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}()

// lengthUnits is the spellings of lengths, for envelopes.
var lengthUnits = func() string {
	var alts []string
	for _, u := range unitSpellings {
		if u.dim == dimLength {
			alts = append(alts, u.pattern)
		}
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}()

// unitOnly matches exactly one spelling, to look a matched unit up.
var unitOnly = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(unitSpellings))
	for i, u := range unitSpellings {
		out[i] = regexp.MustCompile(`^(?:` + u.pattern + `)$`)
	}
	return out
}()

// lookupUnit is the symbol and dimension of a unit as written.
func lookupUnit(written string) (symbol, dim string, ok bool) {
	w := strings.TrimSpace(written)
	for i, re := range unitOnly {
		if re.MatchString(w) {
			return unitSpellings[i].symbol, unitSpellings[i].dim, true
		}
	}
	return "", "", false
}

// The quantity patterns. A number must not follow a letter or digit (M3
// is a screw, not 3 m) and a unit must end at a word's end.
var (
	quantityRe = regexp.MustCompile(`(?:^|[^a-z0-9.])(` + number + `)\s*(` + unitAlternatives + `)(?:[^a-z0-9]|$)`)
	envelopeRe = regexp.MustCompile(`(?:^|[^a-z0-9.])(` + number + `)\s*(?:(` + lengthUnits + `)\b)?\s*x\s*(` + number + `)\s*(?:(` +
		lengthUnits + `)\b)?(?:\s*x\s*(` + number + `))?\s*(` + lengthUnits + `)\b`)
	rangeRe = regexp.MustCompile(`(?:^|[^a-z0-9.])(` + number + `)\s*(` + unitAlternatives + `)?\s*(?:to|\.\.)\s*(` + number +
		`)\s*(` + unitAlternatives + `)(?:[^a-z0-9]|$)`)
	currencyRe     = regexp.MustCompile(`([$€£])\s*(\d+(?:\.\d+)?)(k)?\b`)
	safetyFactorRe = regexp.MustCompile(`\b(?:safety factor|factor of safety|fos|sf)\b`)
	bareNumberRe   = regexp.MustCompile(`^[^0-9]{0,30}?(\d+(?:\.\d+)?)`)
	sfBeforeRe     = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*x?\s*(?:safety factor|factor of safety)\b`)
	unitFollowsRe  = regexp.MustCompile(`^\s*` + unitAlternatives + `(?:[^a-z0-9]|$)`)
)

// currencySymbols are the currencies written before the number.
var currencySymbols = map[string]string{"$": "USD", "€": "EUR", "£": "GBP"}
