package twin

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A prediction is what recorded evidence said a quantity would be: its
// value and, when the evidence records one, its band. It is only ever read
// from evidence (or from a value a person put on the architecture), never
// made up: evidence with no band gives a prediction that judges nothing.

// Prediction is a predicted value of an interface quantity, in the
// quantity's unit.
type Prediction struct {
	// EvidenceID is the predicting evidence; "" for a bare value given on
	// the architecture (predicted), which has no band.
	EvidenceID, EvidenceName, Metric string
	Value                            float64
	Unit                             string
	// Band is the predicted band's half-width in Unit (the band is Value
	// +/- Band); nil when the evidence records none. BandFrom names the
	// evidence field it was read from.
	Band     *float64
	BandFrom string
	// Stale: the evidence was computed against a revision that is no
	// longer its item's head (StaleAgainst names them).
	Stale        bool
	StaleAgainst []StalePin
}

// PredictionOf reads the prediction evidence makes for a quantity (name,
// unit): the evidence's value converted to unit, and its band from its
// data: band_mm (what twin.evaluate_metric's tier 0 records, in mm), band
// (in the evidence's unit) or band_pct (percent of its value), first found.
// Evidence of another project, a node that is not evidence, one with no
// value or no unit, a unit of another dimension, or a metric naming
// another quantity is refused.
func PredictionOf(ctx context.Context, s Store, projectID, evidenceID, quantity, unit string) (Prediction, error) {
	n, err := ResolveRef(ctx, s, projectID, evidenceID)
	if err != nil {
		return Prediction{}, fmt.Errorf("evidence %s: %w", evidenceID, err)
	}
	if n.Type != "evidence" {
		return Prediction{}, Refusef("%s is a %s, not evidence; name the evidence (twin.evaluate_metric's, or twin.record_evidence's) that predicted %s",
			n.Label(), n.Type, quantity)
	}
	p := Prediction{EvidenceID: n.ID, EvidenceName: n.Name, Unit: unit}
	p.Metric, _ = n.Properties["metric"].(string)
	if p.Metric != "" && MetricKey(p.Metric) != MetricKey(quantity) {
		return Prediction{}, Refusef("evidence %s (%s) predicts %s, not %s; name evidence whose metric is %s", n.ID, n.Name, p.Metric, quantity, quantity)
	}
	v, ok := NumberOf(n.Properties["value"])
	if !ok {
		return Prediction{}, Refusef("evidence %s (%s) records no value, so it predicts nothing; name evidence with a value and a unit", n.ID, n.Name)
	}
	evUnit, _ := n.Properties["unit"].(string)
	if strings.TrimSpace(evUnit) == "" {
		return Prediction{}, Refusef("evidence %s (%s) records value %s with no unit, which cannot be compared to %s; name evidence with a unit",
			n.ID, n.Name, units.Format(v), unit)
	}
	if p.Value, err = units.Convert(v, evUnit, unit); err != nil {
		return Prediction{}, Refusef("evidence %s (%s) is in %s, which cannot be read as %s (%v)", n.ID, n.Name, evUnit, unit, err)
	}
	data, _ := n.Properties["data"].(map[string]any)
	var half float64
	if b, ok := NumberOf(data["band_mm"]); ok {
		half, err = units.Convert(b, "mm", unit)
		p.BandFrom = "data.band_mm"
	} else if b, ok := NumberOf(data["band"]); ok {
		half, err = units.Convert(b, evUnit, unit)
		p.BandFrom = "data.band"
	} else if pct, ok := NumberOf(data["band_pct"]); ok {
		half = units.RoundSig(p.Value*pct/100, 12)
		p.BandFrom = "data.band_pct"
	}
	if err != nil {
		return Prediction{}, Refusef("evidence %s (%s): its %s cannot be read in %s (%v)", n.ID, n.Name, p.BandFrom, unit, err)
	}
	if p.BandFrom != "" {
		half = math.Abs(half)
		p.Band = &half
	}
	f, err := Staleness(ctx, s, n.ID)
	if err != nil {
		return Prediction{}, err
	}
	p.Stale, p.StaleAgainst = f.Stale, f.Against
	return p, nil
}
