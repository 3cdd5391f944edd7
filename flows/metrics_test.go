package flows

import "testing"

func TestMetricClass(t *testing.T) {
	cases := map[string]string{
		"envelope_x": ClassGeometry, "Envelope Z": ClassGeometry, "wall-thickness": ClassGeometry,
		"min_wall_thickness": ClassGeometry, "mass": ClassGeometry, "MASS": ClassGeometry, "volume": ClassGeometry,
		"surface_area": ClassGeometry, "yield_strength": ClassGeometry, "density": ClassGeometry,
		"youngs_modulus": ClassGeometry, "diameter": ClassGeometry, "radius": ClassGeometry, "length": ClassGeometry,
		"max_displacement": ClassSimulation, "tip deflection": ClassSimulation, "max_von_mises": ClassSimulation,
		"Max Stress": ClassSimulation, "safety_factor": ClassSimulation, "natural_frequency": ClassSimulation,
		"max_temperature": ClassSimulation, "strain": ClassSimulation,
		"quiescent_current": ClassOther, "cost": ClassOther, "supply_voltage": ClassOther, "mass_flow_rate": ClassOther,
		"": ClassOther,
	}
	for metric, want := range cases {
		if got := MetricClass(metric); got != want {
			t.Errorf("MetricClass(%q) = %s, want %s", metric, got, want)
		}
	}
}
