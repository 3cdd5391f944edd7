package flows

import "strings"

// Metric classes: which gate criterion judges a requirement.
const (
	// ClassGeometry is read from the committed cad_model (its bounding box,
	// thickness, mass, volume and material).
	ClassGeometry = "geometry"
	// ClassSimulation is read from simulation evidence (FEA, modal, thermal).
	ClassSimulation = "simulation"
	// ClassOther is everything else (electrical, cost, schedule...).
	ClassOther = "other"
)

// geometryMetrics are read against the cad_model: its measured properties
// and the properties of its material.
var geometryMetrics = map[string]bool{
	"length": true, "width": true, "height": true, "depth": true,
	"thickness": true, "wall_thickness": true, "min_wall_thickness": true,
	"diameter": true, "radius": true,
	"mass": true, "volume": true, "surface_area": true,
	"yield_strength": true, "density": true, "youngs_modulus": true,
}

// simulationWords mark a metric only a simulation (or a test) can measure.
var simulationWords = []string{
	"deflection", "displacement", "stress", "von_mises", "safety_factor",
	"frequency", "temperature", "strain",
}

// NormaliseMetric spells a metric as the twin compares it: lowercase,
// spaces and hyphens read as underscores.
func NormaliseMetric(metric string) string {
	m := strings.ToLower(strings.TrimSpace(metric))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(m)
}

// MetricClass says which criterion judges a requirement on metric: geometry
// (envelope, sizes, mass and material properties, held against the
// cad_model), simulation (deflection, stress, safety factor, frequency,
// temperature, strain), or other.
func MetricClass(metric string) string {
	m := NormaliseMetric(metric)
	if strings.HasPrefix(m, "envelope_") || geometryMetrics[m] {
		return ClassGeometry
	}
	for _, w := range simulationWords {
		if strings.Contains(m, w) {
			return ClassSimulation
		}
	}
	return ClassOther
}
