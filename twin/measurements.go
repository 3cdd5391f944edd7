package twin

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A measurement is a value measured on a built unit against an interface
// quantity of the system architecture. Measurements of one quantity,
// across every unit, make its calibration band; a measurement outside the
// band its prediction gave is flagged against the evidence that predicted
// it, so a model that the hardware disagrees with is found by walking from
// the evidence.

// MeasurementNodeType is the node type of a measurement.
const MeasurementNodeType = "measurement"

// Edges of a measurement: MEASURED_BY the unit it was taken on;
// CONTRADICTS the evidence whose predicted band it falls outside.
const (
	EdgeMeasuredBy  = "MEASURED_BY"
	EdgeContradicts = "CONTRADICTS"
)

// Calibration band rule: with at least CalibrationMinSamples measurements
// of a quantity, its band is mean +/- CalibrationK sample standard
// deviations.
const (
	CalibrationMinSamples = 3
	CalibrationK          = 2.0
)

// MeasurementWrite is a measured value to record.
type MeasurementWrite struct {
	ProjectID string
	// Device is the built unit: its node id, or its serial.
	Device string
	// Interface and Quantity name the architecture's quantity.
	Interface, Quantity string
	Value               float64
	Unit                string
	// ArchitectureRef is the architecture revision (KEY@n, KEY or a node
	// id); empty is the head of the project's one architecture.
	ArchitectureRef string
	// PredictedEvidenceID, when given, is the evidence that predicted this
	// value; it is judged instead of the quantity's own prediction.
	PredictedEvidenceID string
	MeasuredAt, Notes   string
	IdempotencyKey      string
}

// Check refuses a measurement with no device, no quantity, a value that is
// not finite or a unit that does not parse, before anything is read.
func (w MeasurementWrite) Check() error {
	switch {
	case strings.TrimSpace(w.Device) == "":
		return Refusef("device is blank: name the built unit it was measured on (its node id from twin.register_device_instance, or its serial)")
	case strings.TrimSpace(w.Interface) == "" || strings.TrimSpace(w.Quantity) == "":
		return Refusef("interface and quantity name what was measured: an interface of the system architecture and one of its quantities")
	case math.IsNaN(w.Value) || math.IsInf(w.Value, 0):
		return Refusef("value is not a finite number")
	case strings.TrimSpace(w.Unit) == "":
		return Refusef("unit is blank: give the unit the value was measured in")
	}
	if _, err := units.Dimension(w.Unit); err != nil {
		return Refusef("unit %q does not parse (%v); write a unit such as mm, um, N, V, A, W or degC", w.Unit, err)
	}
	return nil
}

// Calibration is the band a quantity's measurements make, in its unit.
type Calibration struct {
	// Samples counts the measurements of the quantity, on every unit,
	// this one included.
	Samples int
	// Banded: there were CalibrationMinSamples or more; the rest is set
	// only then. StdDev is the sample standard deviation (divided by
	// n-1); the band is Mean +/- CalibrationK * StdDev.
	Banded       bool
	Mean, StdDev float64
	Low, High    float64
	Unit         string
	Note         string
	// MeasurementIDs are the measurements counted, oldest first.
	MeasurementIDs []string
}

// PredictionCheck is a measurement held against its prediction.
type PredictionCheck struct {
	Prediction
	// Source: "call" (predicted_evidence_id), "predicted_by" (the
	// architecture's evidence) or "predicted" (a bare value on it).
	Source string
	// Judged: the prediction has a band; then Low, High and InBand are
	// set, and OutBy is how far outside the nearer edge the value is (0
	// inside), in the quantity's unit.
	Judged           bool
	Low, High, OutBy float64
	InBand           bool
	Deviation        float64 // measured - predicted
	Note             string
}

// Measurement is a recorded measurement.
type Measurement struct {
	Node, Device Node
	// Architecture is the revision it was taken against (KEY@n).
	Architecture        string
	Interface, Quantity string
	// Value is in Unit, the quantity's unit; Given is the value as
	// measured when it was converted.
	Value float64
	Unit  string
	Given string
	// Prediction is nil when the quantity has none; NoPrediction says so.
	Prediction   *PredictionCheck
	NoPrediction string
	Calibration  Calibration
}

// RecordMeasurement records a measured value, converted to the quantity's
// unit, MEASURED_BY its unit and RELATES_TO the architecture revision. When
// the quantity has a prediction with a band and the value lies outside it,
// the measurement CONTRADICTS the predicting evidence, in the same write.
// The calibration band is computed live, after the write, from every
// measurement of that interface quantity in the architecture's item.
func RecordMeasurement(ctx context.Context, s Store, w MeasurementWrite) (Measurement, error) {
	if err := w.Check(); err != nil {
		return Measurement{}, err
	}
	device, err := DeviceInstance(ctx, s, w.ProjectID, w.Device)
	if err != nil {
		return Measurement{}, fmt.Errorf("device %s: %w", w.Device, err)
	}
	arch, err := SystemArchitecture(ctx, s, w.ProjectID, w.ArchitectureRef)
	if err != nil {
		return Measurement{}, err
	}
	iface, q, err := arch.Quantity(w.Interface, w.Quantity)
	if err != nil {
		return Measurement{}, err
	}
	m := Measurement{Device: device, Architecture: arch.Node.Ref(), Interface: iface.Name, Quantity: q.Name, Unit: q.Unit}
	if m.Value, err = units.Convert(w.Value, w.Unit, q.Unit); err != nil {
		return Measurement{}, Refusef("%s on interface %q is in %s; a value in %s cannot be read as %s (%v)", q.Name, iface.Name, q.Unit, w.Unit, q.Unit, err)
	}
	if units.Normalize(w.Unit) != units.Normalize(q.Unit) {
		m.Given = units.Quantity{Value: w.Value, Unit: strings.TrimSpace(w.Unit)}.String()
	}
	if m.Prediction, m.NoPrediction, err = predictionFor(ctx, s, w, q); err != nil {
		return Measurement{}, err
	}
	if m.Prediction != nil {
		m.Prediction.judge(m.Value)
	}
	serial, _ := device.Properties["serial"].(string)
	props := map[string]any{"interface": iface.Name, "quantity": q.Name, "value": m.Value, "unit": q.Unit,
		"device_id": device.ID, "serial": serial, "architecture": arch.Node.Ref(), "architecture_key": arch.Node.ItemKey}
	if m.Given != "" {
		props["value_as_given"], props["unit_as_given"] = w.Value, strings.TrimSpace(w.Unit)
	}
	if v := strings.TrimSpace(w.MeasuredAt); v != "" {
		props["measured_at"] = v
	}
	if v := strings.TrimSpace(w.Notes); v != "" {
		props["notes"] = v
	}
	links := []Link{
		{Type: EdgeMeasuredBy, To: device.ID, Properties: map[string]any{"serial": serial}},
		{Type: EdgeRelatesTo, To: arch.Node.ID, Properties: map[string]any{"ref": arch.Node.Ref(), "interface": iface.Name, "quantity": q.Name}},
	}
	if pc := m.Prediction; pc != nil {
		props["predicted_value"], props["prediction_source"] = pc.Value, pc.Source
		if pc.EvidenceID != "" {
			props["predicted_by"] = pc.EvidenceID
		}
		if pc.Judged {
			props["predicted_low"], props["predicted_high"], props["in_predicted_band"] = pc.Low, pc.High, pc.InBand
		}
		if pc.Judged && !pc.InBand && pc.EvidenceID != "" {
			props["out_of_band_by"] = pc.OutBy
			links = append(links, Link{Type: EdgeContradicts, To: pc.EvidenceID, Properties: map[string]any{"measured": m.Value, "unit": q.Unit,
				"predicted": pc.Value, "band_low": pc.Low, "band_high": pc.High, "out_by": pc.OutBy}})
		}
	}
	name := fmt.Sprintf("%s / %s on %s", iface.Name, q.Name, serial)
	if m.Node, err = s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: MeasurementNodeType, Name: name, Properties: props, Links: links,
		IdempotencyKey: w.IdempotencyKey}); err != nil {
		return Measurement{}, err
	}
	m.Calibration, err = QuantityCalibration(ctx, s, w.ProjectID, arch.Node.ItemKey, iface.Name, q.Name, q.Unit)
	return m, err
}

// predictionFor is the prediction a measurement is held against: the
// call's evidence, else the quantity's evidence, else its bare predicted
// value; or nil and why there is none.
func predictionFor(ctx context.Context, s Store, w MeasurementWrite, q InterfaceQuantity) (*PredictionCheck, string, error) {
	var pc PredictionCheck
	switch {
	case strings.TrimSpace(w.PredictedEvidenceID) != "":
		p, err := PredictionOf(ctx, s, w.ProjectID, strings.TrimSpace(w.PredictedEvidenceID), q.Name, q.Unit)
		if err != nil {
			return nil, "", fmt.Errorf("predicted_evidence_id: %w", err)
		}
		pc = PredictionCheck{Prediction: p, Source: "call"}
	case q.PredictedBy != "":
		p, err := PredictionOf(ctx, s, w.ProjectID, q.PredictedBy, q.Name, q.Unit)
		if err != nil {
			return nil, "", fmt.Errorf("the architecture's predicted_by for %s: %w", q.Name, err)
		}
		pc = PredictionCheck{Prediction: p, Source: "predicted_by"}
	case q.Predicted != nil:
		pc = PredictionCheck{Prediction: Prediction{Value: *q.Predicted, Unit: q.Unit}, Source: "predicted"}
	default:
		return nil, fmt.Sprintf("%s has no prediction (no predicted value or predicted_by on the architecture, no predicted_evidence_id in the call): "+
			"nothing is judged", q.Name), nil
	}
	return &pc, "", nil
}

// judge holds a value against the prediction's band.
func (pc *PredictionCheck) judge(v float64) {
	pc.Deviation = units.RoundSig(v-pc.Value, 12)
	if pc.Band == nil {
		if pc.EvidenceID == "" {
			pc.Note = "the prediction is a bare value on the architecture, with no band and no evidence: nothing is flagged"
		} else {
			pc.Note = fmt.Sprintf("evidence %s records no band (no data.band_mm, data.band or data.band_pct): nothing is flagged", pc.EvidenceID)
		}
		return
	}
	pc.Judged = true
	pc.Low, pc.High = units.RoundSig(pc.Value-*pc.Band, 12), units.RoundSig(pc.Value+*pc.Band, 12)
	switch {
	case v < pc.Low:
		pc.OutBy = units.RoundSig(pc.Low-v, 12)
	case v > pc.High:
		pc.OutBy = units.RoundSig(v-pc.High, 12)
	default:
		pc.InBand = true
	}
	if !pc.InBand {
		pc.Note = fmt.Sprintf("%s %s is outside the predicted band %s to %s %s by %s %s", units.Format(v), pc.Unit, units.Format(pc.Low),
			units.Format(pc.High), pc.Unit, units.Format(pc.OutBy), pc.Unit)
	}
}

// QuantityCalibration is the calibration band of an interface quantity:
// every measurement of it (interface and quantity matched by MetricKey)
// taken against any revision of the architecture item archKey, on any
// unit, each in unit. Values in a unit that no longer converts are left
// out and said. Fewer than CalibrationMinSamples: no band, said.
func QuantityCalibration(ctx context.Context, s Store, projectID, archKey, iface, quantity, unit string) (Calibration, error) {
	all, err := s.NodesByType(ctx, projectID, MeasurementNodeType)
	if err != nil {
		return Calibration{}, err
	}
	c := Calibration{Unit: unit, MeasurementIDs: []string{}}
	var xs []float64
	var skipped []string
	for _, n := range all {
		key, _ := n.Properties["architecture_key"].(string)
		in, _ := n.Properties["interface"].(string)
		qn, _ := n.Properties["quantity"].(string)
		if key != archKey || MetricKey(in) != MetricKey(iface) || MetricKey(qn) != MetricKey(quantity) {
			continue
		}
		v, ok := NumberOf(n.Properties["value"])
		u, _ := n.Properties["unit"].(string)
		if !ok {
			continue
		}
		x, err := units.Convert(v, u, unit)
		if err != nil {
			skipped = append(skipped, n.ID)
			continue
		}
		xs = append(xs, x)
		c.MeasurementIDs = append(c.MeasurementIDs, n.ID)
	}
	c.Samples = len(xs)
	if len(skipped) > 0 {
		c.Note = fmt.Sprintf("%s left out: recorded in a unit that is not %s. ", strings.Join(skipped, ", "), unit)
	}
	if c.Samples < CalibrationMinSamples {
		c.Note += fmt.Sprintf("%d measurement(s) of %s: a calibration band needs %d or more", c.Samples, quantity, CalibrationMinSamples)
		return c, nil
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(len(xs)-1))
	c.Banded = true
	c.Mean, c.StdDev = units.RoundSig(mean, 12), units.RoundSig(sd, 12)
	c.Low, c.High = units.RoundSig(mean-CalibrationK*sd, 12), units.RoundSig(mean+CalibrationK*sd, 12)
	c.Note += fmt.Sprintf("mean +/- %g sample standard deviations (n-1) of %d measurements", CalibrationK, c.Samples)
	return c, nil
}
