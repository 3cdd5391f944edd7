package calculix

import (
	"fmt"
	"sort"

	"github.com/metaforge/metaforge/protocol"
)

// ExtractRequest is calculix.extract_results's arguments.
type ExtractRequest struct {
	ResultsFile string `json:"results_file" jsonschema:"A CalculiX .frd results file (run_fea's files.frd)."`
}

// FieldSummary is one result block's extremes.
type FieldSummary struct {
	Field string  `json:"field"`
	Step  int     `json:"step"`
	Value float64 `json:"step_value"`
	// Nodes is how many nodes carry the field.
	Nodes int       `json:"nodes"`
	Max   *float64  `json:"max,omitempty"`
	Min   *float64  `json:"min,omitempty"`
	MaxAt []float64 `json:"max_at_mm,omitempty"`
	// Quantity says what Max and Min measure.
	Quantity string `json:"quantity"`
	Unit     string `json:"unit"`
	// Accuracy flags a peak out of proportion to the rest of the field.
	Accuracy *Accuracy `json:"accuracy,omitempty"`
}

// Accuracy is the suspicious-result check on a stress field: a peak far
// above the field's 99th percentile is usually a point-load or boundary
// concentration, not the part's real stress.
type Accuracy struct {
	Suspicious  bool    `json:"suspicious"`
	PeakToP99   float64 `json:"peak_to_p99"`
	P99         float64 `json:"p99"`
	Explanation string  `json:"explanation"`
}

// ExtractResult is calculix.extract_results's result.
type ExtractResult struct {
	ResultsFile       string         `json:"results_file"`
	Nodes             int            `json:"nodes"`
	Fields            []FieldSummary `json:"fields"`
	MaxVonMisesMPa    *float64       `json:"max_von_mises_mpa,omitempty"`
	MaxDisplacementMM *float64       `json:"max_displacement_mm,omitempty"`
	PeakTemperatureC  *float64       `json:"peak_temperature_c,omitempty"`
	// MaxStressErrorPct is the peak of CalculiX's stress error estimate
	// (an ERROR block, written for *EL FILE ERR).
	MaxStressErrorPct *float64 `json:"max_stress_error_pct,omitempty"`
	Warnings          []string `json:"warnings"`
}

// concentrationRatio is how far above the field's 99th percentile a peak
// may sit before it is more likely a point-load or constraint artefact
// than a real stress.
const concentrationRatio = 3.0

// accuracy compares a field's peak with its 99th percentile.
func accuracy(field map[int]float64) *Accuracy {
	if len(field) < 20 {
		return nil
	}
	vals := make([]float64, 0, len(field))
	for _, v := range field {
		vals = append(vals, v)
	}
	sort.Float64s(vals)
	p99 := vals[int(0.99*float64(len(vals)-1))]
	peak := vals[len(vals)-1]
	a := &Accuracy{P99: p99}
	if p99 > 0 {
		a.PeakToP99 = peak / p99
	}
	a.Suspicious = p99 > 0 && a.PeakToP99 > concentrationRatio
	if a.Suspicious {
		a.Explanation = fmt.Sprintf("the peak is %.1f times the 99th percentile of the field: usually a stress concentration at a point load or a boundary condition, not a design value; read the stress away from the constraint or refine the mesh", a.PeakToP99)
	} else {
		a.Explanation = fmt.Sprintf("the peak is %.2f times the 99th percentile: in proportion with the rest of the field", a.PeakToP99)
	}
	return a
}

// concentration is the warning run_fea adds when accuracy flags its field.
func concentration(vm map[int]float64) string {
	if a := accuracy(vm); a != nil && a.Suspicious {
		return "max von Mises stress: " + a.Explanation
	}
	return ""
}

func (a *Adapter) extractResults(req ExtractRequest) (*ExtractResult, error) {
	path, err := a.ws.ResolveRead("results_file", req.ResultsFile)
	if err != nil {
		return nil, err
	}
	nodes, blocks, err := ReadFRD(path)
	if err != nil {
		return nil, protocol.Invalid("results_file %s is not a CalculiX .frd file: %v", path, err)
	}
	if len(blocks) == 0 {
		return nil, protocol.Invalid("results_file %s holds no result blocks; give the .frd a CalculiX run wrote", path)
	}
	out := &ExtractResult{ResultsFile: path, Nodes: len(nodes), Fields: []FieldSummary{}, Warnings: []string{}}
	at := func(id int) []float64 {
		if p, ok := nodes[id]; ok {
			return p[:]
		}
		return nil
	}
	for _, b := range blocks {
		fs := FieldSummary{Field: b.Name, Step: b.Step, Value: b.Value, Nodes: len(b.Values)}
		switch b.Name {
		case "DISP":
			m, n, _ := b.Magnitude()
			fs.Max, fs.MaxAt, fs.Quantity, fs.Unit = &m, at(n), "displacement magnitude", "mm"
			if out.MaxDisplacementMM == nil || m > *out.MaxDisplacementMM {
				out.MaxDisplacementMM = &m
			}
		case "STRESS":
			vm := b.VonMises()
			hi := maxOf(vm)
			fs.Max, fs.MaxAt, fs.Quantity, fs.Unit = &hi.Value, at(hi.Node), "von Mises stress", "MPa"
			fs.Accuracy = accuracy(vm)
			if fs.Accuracy != nil && fs.Accuracy.Suspicious {
				out.Warnings = append(out.Warnings, fmt.Sprintf("step %d stress: %s", b.Step, fs.Accuracy.Explanation))
			}
			if out.MaxVonMisesMPa == nil || hi.Value > *out.MaxVonMisesMPa {
				out.MaxVonMisesMPa = &hi.Value
			}
		case "NDTEMP":
			t := b.Scalar()
			hi, lo := maxOf(t), minOf(t)
			fs.Max, fs.Min, fs.MaxAt, fs.Quantity, fs.Unit = &hi.Value, &lo.Value, at(hi.Node), "temperature", "degC"
			if out.PeakTemperatureC == nil || hi.Value > *out.PeakTemperatureC {
				out.PeakTemperatureC = &hi.Value
			}
		case "ERROR":
			// CalculiX's error estimator: per node, how far the stress
			// jumps between the elements meeting there, in percent.
			e := b.Scalar()
			hi := maxOf(e)
			fs.Max, fs.MaxAt, fs.Unit = &hi.Value, at(hi.Node), "%"
			fs.Quantity = "stress error estimate"
			if len(b.Components) > 0 {
				fs.Quantity += " (" + b.Components[0] + ")"
			}
			if out.MaxStressErrorPct == nil || hi.Value > *out.MaxStressErrorPct {
				out.MaxStressErrorPct = &hi.Value
			}
		default:
			fs.Quantity = "not summarised (" + b.Name + ")"
		}
		out.Fields = append(out.Fields, fs)
	}
	return out, nil
}
