package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

// verificationTools are the architecture a built unit is measured
// against, the test plan, and built units with their measurements.
func verificationTools() []tool {
	return []tool{commitSystemArchitectureTool(), importURDFTool(), generateTestPlanTool(), registerDeviceInstanceTool(), recordMeasurementTool()}
}

func registerDeviceInstanceTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.register_device_instance", Name: "Register a built unit", Capability: "twin_write",
		Description: "Register a serial-numbered built unit of a product (a device_instance, INSTANCE_OF product_ref: KEY, KEY@n or a node " +
			"id of the product's hierarchy position, BOM item or work product). A serial is unique per product (ignoring case, across the " +
			"product's revisions): a serial already registered is refused naming the unit that has it. build_date is YYYY-MM-DD. " +
			"twin.record_measurement records what is measured on the unit.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, registerDeviceInstance,
		adapters.At("product_ref", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("serial", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("build_date", adapters.Pattern(`^\d{4}-\d{2}-\d{2}$`)),
		adapters.At("notes", adapters.MaxLength(4000)))
}

type registerDeviceInstanceArgs struct {
	project.Scope
	ProductRef string `json:"product_ref" jsonschema:"the product the unit is built to: KEY, KEY@n or a node id"`
	Serial     string `json:"serial" jsonschema:"the unit's serial number, as on its label"`
	BuildDate  string `json:"build_date,omitempty" jsonschema:"when it was built, YYYY-MM-DD"`
	Notes      string `json:"notes,omitempty"`
}

func registerDeviceInstance(ctx context.Context, b *Backend, a registerDeviceInstanceArgs) (any, error) {
	w := twin.DeviceWrite{ProductRef: a.ProductRef, Serial: a.Serial, BuildDate: a.BuildDate, Notes: a.Notes, IdempotencyKey: callID(ctx)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	d, err := twin.RegisterDeviceInstance(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"node_id": d.Node.ID, "project_id": p.ID, "serial": d.Node.Properties["serial"], "product": d.Product.RefOrID(),
		"product_node_id": d.Product.ID, "product_type": d.Product.Type}
	for _, k := range []string{"build_date", "notes"} {
		if v, ok := d.Node.Properties[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

func recordMeasurementTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_measurement", Name: "Record a measurement", Capability: "twin_write",
		Description: "Record a value measured on a built unit (device: its node id or serial) against an interface quantity of the system " +
			"architecture (interface, quantity; architecture_ref KEY@n, or the current one), converted to the quantity's unit; linked " +
			"MEASURED_BY the unit and RELATES_TO the architecture revision. calibration: with 3 or more measurements of that quantity (across " +
			"every unit) its band is mean +/- 2 sample standard deviations (n-1); fewer, no band, and it says so. prediction: the quantity's " +
			"prediction (predicted_evidence_id in the call, else the architecture's predicted_by evidence, else its bare predicted value), " +
			"with the band the evidence records (data.band_mm as twin.evaluate_metric's tier 0 writes it, data.band or data.band_pct). A value " +
			"outside that band is flagged against the evidence (the measurement CONTRADICTS it; flagged_against names it, out_by says by " +
			"how much). A prediction with no band, or no prediction, flags nothing and says so; none is ever made up.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordMeasurement,
		adapters.At("device", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("interface", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("quantity", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("unit", adapters.MinLength(1), adapters.MaxLength(40)),
		adapters.At("architecture_ref", adapters.MaxLength(200)),
		adapters.At("predicted_evidence_id", adapters.MaxLength(200)),
		adapters.At("measured_at", adapters.MaxLength(100)),
		adapters.At("notes", adapters.MaxLength(4000)))
}

type recordMeasurementArgs struct {
	project.Scope
	Device              string  `json:"device" jsonschema:"the built unit measured: its node id (twin.register_device_instance) or its serial"`
	Interface           string  `json:"interface" jsonschema:"the interface of the system architecture"`
	Quantity            string  `json:"quantity" jsonschema:"the quantity of that interface"`
	Value               float64 `json:"value" jsonschema:"the measured value, in unit"`
	Unit                string  `json:"unit" jsonschema:"the unit it was measured in; converted to the quantity's"`
	ArchitectureRef     string  `json:"architecture_ref,omitempty" jsonschema:"the architecture revision (KEY@n); the current one when not given"`
	PredictedEvidenceID string  `json:"predicted_evidence_id,omitempty" jsonschema:"node id of the evidence that predicted this value (e.g. twin.evaluate_metric's); judged instead of the architecture's prediction"`
	MeasuredAt          string  `json:"measured_at,omitempty" jsonschema:"when it was measured (as written: 2026-03-14T10:00Z)"`
	Notes               string  `json:"notes,omitempty" jsonschema:"set-up, instrument, conditions"`
}

func recordMeasurement(ctx context.Context, b *Backend, a recordMeasurementArgs) (any, error) {
	w := twin.MeasurementWrite{Device: a.Device, Interface: a.Interface, Quantity: a.Quantity, Value: a.Value, Unit: a.Unit,
		ArchitectureRef: a.ArchitectureRef, PredictedEvidenceID: a.PredictedEvidenceID, MeasuredAt: a.MeasuredAt, Notes: a.Notes,
		IdempotencyKey: callID(ctx)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	m, err := twin.RecordMeasurement(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"node_id": m.Node.ID, "project_id": p.ID, "device_id": m.Device.ID, "serial": m.Device.Properties["serial"],
		"architecture": m.Architecture, "interface": m.Interface, "quantity": m.Quantity, "value": m.Value, "unit": m.Unit,
		"calibration": calibrationRow(m.Calibration), "flagged": false}
	if m.Given != "" {
		out["measured_as"] = m.Given
	}
	if pc := m.Prediction; pc != nil {
		out["prediction"] = predictionRow(*pc)
		if pc.Judged && !pc.InBand && pc.EvidenceID != "" {
			out["flagged"], out["flagged_against"] = true, pc.EvidenceID
		}
	} else {
		out["no_prediction"] = m.NoPrediction
	}
	return out, nil
}

// calibrationRow is a calibration band as a result gives it.
func calibrationRow(c twin.Calibration) map[string]any {
	row := map[string]any{"samples": c.Samples, "banded": c.Banded, "unit": c.Unit, "note": c.Note, "measurements": c.MeasurementIDs,
		"min_samples": twin.CalibrationMinSamples}
	if c.Banded {
		row["mean"], row["std_dev"], row["low"], row["high"] = c.Mean, c.StdDev, c.Low, c.High
		row["std_dev_kind"], row["k"] = "sample (n-1)", twin.CalibrationK
	}
	return row
}

// predictionRow is a measurement held against its prediction.
func predictionRow(pc twin.PredictionCheck) map[string]any {
	row := map[string]any{"source": pc.Source, "predicted": pc.Value, "unit": pc.Unit, "deviation": pc.Deviation, "judged": pc.Judged}
	if pc.EvidenceID != "" {
		row["evidence_id"], row["evidence_name"] = pc.EvidenceID, pc.EvidenceName
		row["evidence_stale"] = pc.Stale
		if pc.Stale {
			row["stale_against"] = pc.StaleAgainst
		}
	}
	if pc.Band != nil {
		row["band_half_width"], row["band_from"] = *pc.Band, pc.BandFrom
	}
	if pc.Judged {
		row["band_low"], row["band_high"], row["in_band"] = pc.Low, pc.High, pc.InBand
		if !pc.InBand {
			row["out_by"] = pc.OutBy
		}
	}
	if pc.Note != "" {
		row["note"] = pc.Note
	}
	return row
}
