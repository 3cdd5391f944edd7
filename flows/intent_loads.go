package flows

import (
	"fmt"
	"strings"
)

// StandardGravity is g_n, m/s^2 (CGPM 1901): the weight of a held mass is
// its mass times it.
const StandardGravity = 9.80665

// massInKg are the mass units CompileIntent reads, in kilograms.
var massInKg = map[string]float64{"kg": 1, "g": 1e-3, "lb": 0.45359237}

// forceInN and pressureInMPa are the force and pressure units in N and MPa.
var (
	forceInN      = map[string]float64{"N": 1, "kN": 1e3, "lbf": 4.4482216152605}
	pressureInMPa = map[string]float64{"MPa": 1, "GPa": 1e3, "kPa": 1e-3, "Pa": 1e-6, "bar": 0.1, "psi": 0.00689475729316836}
)

// asLoad turns a quantity a part must carry into a load in engineering
// units: a mass held, carried or supported is its weight (m x g_n), the
// conversion shown; a force or a pressure is kept as stated.
func asLoad(value float64, unit, dim, text string) Load {
	l := Load{Magnitude: value, Unit: unit, Text: text}
	if kg, ok := massInKg[unit]; ok && dim == dimMass {
		n := value * kg * StandardGravity
		l.Stated = formatNumber(value) + " " + unit
		l.Magnitude, l.Unit = n, "N"
		l.Conversion = fmt.Sprintf("the weight of %s: %s kg x %g m/s^2 = %.4g N", l.Stated, formatNumber(value*kg), StandardGravity, n)
	}
	return l
}

// LoadCaseDraft is the load case a stated load implies, before anyone has
// said which part and faces it acts on: flow.propose records it as a draft
// for the requirements phase to complete (twin.record_load_case).
type LoadCaseDraft struct {
	Name        string   `json:"name"`
	ForceN      *float64 `json:"force_n,omitempty"`
	PressureMPa *float64 `json:"pressure_mpa,omitempty"`
	// Text is the goal's words the load came from.
	Text       string `json:"text"`
	Conversion string `json:"conversion,omitempty"`
}

// loadCaseDrafts are the drafts of a goal's loads: forces and pressures in
// N and MPa; a torque is not a load case of this kind and is left out.
func loadCaseDrafts(loads []Load) []LoadCaseDraft {
	var out []LoadCaseDraft
	for i, l := range loads {
		d := LoadCaseDraft{Name: fmt.Sprintf("load %d from the goal", i+1), Text: l.Text, Conversion: l.Conversion}
		if n, ok := forceInN[l.Unit]; ok {
			v := l.Magnitude * n
			d.ForceN = &v
		} else if mpa, ok := pressureInMPa[l.Unit]; ok {
			v := l.Magnitude * mpa
			d.PressureMPa = &v
		} else {
			continue
		}
		if s := strings.TrimSpace(l.Text); s != "" {
			d.Name = clip(s, 80)
		}
		out = append(out, d)
	}
	return out
}
