package twin_test

import (
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

func f64(v float64) *float64 { return &v }
func i64(v int) *int         { return &v }

// documentCount is how many document revisions the project holds.
func documentCount(t *testing.T, s twin.Store, projectID string) int {
	t.Helper()
	ds, err := s.NodesByType(bg, projectID, "document")
	if err != nil {
		t.Fatal(err)
	}
	return len(ds)
}

// Each typed document is checked, rendered, recorded as a revision of its
// document item and linked to what it concerns; a second write revises
// it; what does not have the shape is refused with nothing written.
func testTypedDocuments(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Typed documents")
	bracket := g.commit("cad_model", "Bracket", nil)
	if _, err := twin.RecordComponentSelection(bg, s, twin.SelectionWrite{ProjectID: g.p.ID, Name: "Elbow servo", MPN: "DS3218"}); err != nil {
		t.Fatal(err)
	}
	write := func(title string, c twin.TypedDocument, concerns ...string) (twin.Document, error) {
		return twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, Title: title, Content: c, Concerns: concerns})
	}

	// A hazard analysis, concerning the bracket, then revised.
	hz := twin.HazardAnalysis{Method: "PHA", Hazards: []twin.HazardRow{
		{Hazard: "Pinch point", Cause: "elbow closes on a hand", Severity: 4, Likelihood: 4, Mitigation: "torque limit 2 N*m",
			ResidualSeverity: i64(2), ResidualLikelihood: i64(3)},
		{Hazard: "Sharp edge", Cause: "unbroken edges on the bracket", Severity: 2, Likelihood: 3, Mitigation: "break all edges 0.5 mm"},
	}}
	doc, err := write("Arm hazards", hz, "CAD-BRACKET")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Node.Ref() != "DOC-ARM-HAZARDS@1" || doc.Node.Properties["document_type"] != "hazard_analysis" || len(doc.Concerns) != 1 || doc.Concerns[0] != bracket.Ref() {
		t.Fatalf("hazard analysis = %s %v concerns %v", doc.Node.Ref(), doc.Node.Properties["document_type"], doc.Concerns)
	}
	// By hand: 4 x 4 = 16 (high), 2 x 3 = 6 (low); residual 2 x 3 = 6.
	if doc.Summary["highest_risk"] != 16.0 || doc.Summary["highest_risk_class"] != "high" || doc.Summary["residual_not_assessed"] != 1.0 {
		t.Errorf("summary = %v", doc.Summary)
	}
	stored, err := s.GetNode(bg, doc.Node.ID)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := stored.Properties["text"].(string)
	if !strings.Contains(text, "| Pinch point | elbow closes on a hand | 4 | 4 | 16 (high) | torque limit 2 N*m | 6 (low) |") {
		t.Errorf("text = %s", text)
	}
	rows := stored.Properties["content"].(map[string]any)["hazards"].([]any)
	if len(rows) != 2 || rows[0].(map[string]any)["severity"] != 4.0 || rows[0].(map[string]any)["residual_likelihood"] != 3.0 {
		t.Errorf("content = %v", stored.Properties["content"])
	}
	edges, err := s.Neighbors(bg, doc.Node.ID, twin.Outgoing, twin.EdgeConcerns)
	if err != nil || len(edges) != 1 || edges[0].Node.ID != bracket.ID || edges[0].Edge.Properties["ref"] != "CAD-BRACKET@1" {
		t.Errorf("CONCERNS = %+v %v", edges, err)
	}
	hz.Hazards[1].ResidualSeverity, hz.Hazards[1].ResidualLikelihood = i64(1), i64(2)
	rev, err := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, Title: "Arm hazards", Content: hz,
		WriteInfo: twin.WriteInfo{ChangeReason: "edges assessed after deburring"}})
	if err != nil || rev.Node.Ref() != "DOC-ARM-HAZARDS@2" || rev.Summary["residual_not_assessed"] != 0.0 {
		t.Fatalf("revised hazard analysis = %s %v %v", rev.Node.Ref(), rev.Summary, err)
	}

	// A drawing of the bracket: its part is linked, its limits computed.
	dw := twin.TechnicalDrawing{PartRef: "CAD-BRACKET", DrawingNumber: "DWG-001", GeneralTolerance: "ISO 2768-m",
		Dimensions: []twin.DrawingDimension{
			{Feature: "overall length", Nominal: f64(120), Unit: "mm", PlusTolerance: f64(0.2), MinusTolerance: f64(0.2)},
			{Feature: "bore diameter", Nominal: f64(8), Unit: "mm", PlusTolerance: f64(0.015), MinusTolerance: f64(0)},
			{Feature: "bend angle", Nominal: f64(90), Unit: "deg", PlusTolerance: f64(0.5), MinusTolerance: f64(0.5)},
		},
		GDT: []twin.GDTCallout{
			{Characteristic: "flatness", Feature: "mounting face", Tolerance: f64(0.05), Unit: "mm"},
			{Characteristic: "position", Feature: "bore", Tolerance: f64(0.1), Unit: "mm", Datums: []string{"A", "B"}, Modifier: "MMC"},
		},
		SurfaceFinish: &twin.SurfaceFinish{Ra: f64(1.6), Unit: "um", Surfaces: "the bore"},
		Inspection:    []twin.InspectionRequirement{{Characteristic: "bore diameter", Method: "bore gauge", Sampling: "100%"}}}
	ddoc, err := write("Bracket drawing", dw)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: the bore's band is 0.015 + 0 = 0.015 mm, the tightest; 8 to 8.015.
	tight := ddoc.Summary["tightest_dimension"].(map[string]any)
	if ddoc.Node.Ref() != "DOC-BRACKET-DRAWING@1" || len(ddoc.Concerns) != 1 || ddoc.Concerns[0] != "CAD-BRACKET@1" ||
		tight["feature"] != "bore diameter" || math.Abs(tight["band_mm"].(float64)-0.015) > 1e-12 {
		t.Errorf("drawing = %s concerns %v summary %v", ddoc.Node.Ref(), ddoc.Concerns, ddoc.Summary)
	}
	if text := ddoc.Node.Properties["text"].(string); !strings.Contains(text, "| bore diameter | 8 | +0.015 / -0 | 8 to 8.015 | mm |") ||
		!strings.Contains(text, "| position | bore | 0.1 mm | A, B | MMC |") {
		t.Errorf("drawing text = %s", text)
	}

	// A procurement record: a line with a BOM item is linked to it.
	pr := twin.ProcurementRecord{Lines: []twin.ProcurementLine{
		{MPN: "ds3218", Supplier: "Digi-Key", Quantity: 2, UnitPrice: f64(12.5), LeadTimeDays: i64(5), PO: "PO-1001"},
		{MPN: "M3x8 ISO 4762", Supplier: "McMaster-Carr", Quantity: 100, UnitPrice: f64(0.045), LeadTimeDays: i64(2)},
	}}
	pdoc, err := write("Arm buy list", pr)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: 2 x 12.5 + 100 x 0.045 = 25 + 4.5 = 29.5 USD; longest lead 5 days.
	if math.Abs(pdoc.Summary["total"].(float64)-29.5) > 1e-9 || pdoc.Summary["currency"] != "USD" || pdoc.Summary["longest_lead_time_days"] != 5.0 {
		t.Errorf("procurement summary = %v", pdoc.Summary)
	}
	if len(pdoc.Concerns) != 1 || pdoc.Concerns[0] != "BOM-ELBOW-SERVO@1" || len(pdoc.UnmatchedMPNs) != 1 || pdoc.UnmatchedMPNs[0] != "M3x8 ISO 4762" {
		t.Errorf("procurement links %v, unmatched %v", pdoc.Concerns, pdoc.UnmatchedMPNs)
	}

	// A compliance checklist and a sketch.
	cc := twin.ComplianceChecklist{Coverage: "EU CE marking", Items: []twin.ComplianceItem{
		{Standard: "EN ISO 10218-1", Clause: "5.4.2", Status: "compliant", Evidence: "torque-limit test report TR-7"},
		{Standard: "EN 60204-1", Clause: "10.7", Status: "open"},
		{Standard: "EN 60204-1", Clause: "13.4", Status: "not_applicable", Evidence: "no enclosure"},
	}}
	cdoc, err := write("CE checklist", cc)
	if err != nil {
		t.Fatal(err)
	}
	if by := cdoc.Summary["by_status"].(map[string]any); by["compliant"] != 1.0 || by["open"] != 1.0 || by["not_applicable"] != 1.0 ||
		len(cdoc.Summary["unresolved"].([]any)) != 1 {
		t.Errorf("checklist summary = %v", cdoc.Summary)
	}
	sk := twin.DesignSketch{Intent: "hold the servo 40 mm off the base", Entities: []twin.SketchEntity{
		{Kind: "rectangle", Points: [][2]float64{{0, 0}, {60, 40}}, Label: "outline"},
		{Kind: "circle", Points: [][2]float64{{30, 20}}, Radius: f64(4)},
		{Kind: "arc", Points: [][2]float64{{0, 40}, {10, 50}, {20, 40}}},
	}, Parameters: []twin.SketchParameter{{Name: "standoff", Value: f64(40), Unit: "mm"}}}
	if sdoc, err := write("Servo mount sketch", sk, bracket.ID); err != nil || sdoc.Summary["entities"] != 3.0 || sdoc.Concerns[0] != "CAD-BRACKET@1" {
		t.Errorf("sketch = %v %v", sdoc.Summary, err)
	}

	// Refusals: nothing written.
	before := documentCount(t, s, g.p.ID)
	note := func(title string) error {
		_, err := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "note", Title: title, Text: "x"})
		return err
	}
	bad := []struct {
		title string
		c     twin.TypedDocument
		want  string
	}{
		{"x", twin.HazardAnalysis{}, "hazards is empty"},
		{"x", twin.HazardAnalysis{Hazards: []twin.HazardRow{{Hazard: "h", Cause: "c", Severity: 6, Likelihood: 1, Mitigation: "m"}}}, "severity 6"},
		{"x", twin.HazardAnalysis{Hazards: []twin.HazardRow{{Hazard: "h", Cause: "c", Severity: 2, Likelihood: 2, Mitigation: "m",
			ResidualSeverity: i64(3), ResidualLikelihood: i64(1)}}}, "worse than before mitigation"},
		{"x", twin.HazardAnalysis{Hazards: []twin.HazardRow{{Hazard: "h", Cause: "c", Severity: 2, Likelihood: 2}}}, "mitigation is blank"},
		{"x", twin.ComplianceChecklist{Items: []twin.ComplianceItem{{Standard: "EN 1", Clause: "1", Status: "compliant"}}}, "gives no evidence"},
		{"x", twin.ComplianceChecklist{Items: []twin.ComplianceItem{{Standard: "EN 1", Clause: "1", Status: "done"}}}, `status "done"`},
		{"x", twin.ProcurementRecord{Lines: []twin.ProcurementLine{{MPN: "a", Supplier: "s", Quantity: 0, UnitPrice: f64(1), LeadTimeDays: i64(1)}}}, "quantity 0"},
		{"x", twin.ProcurementRecord{Lines: []twin.ProcurementLine{{MPN: "a", Supplier: "s", Quantity: 1, UnitPrice: f64(-1), LeadTimeDays: i64(1)}}}, "unit_price must be"},
		{"x", twin.ProcurementRecord{Currency: "dollars", Lines: pr.Lines}, `currency "dollars"`},
		{"x", twin.TechnicalDrawing{PartRef: "CAD-BRACKET", Dimensions: []twin.DrawingDimension{{Feature: "l", Nominal: f64(10), Unit: "mm",
			PlusTolerance: f64(0), MinusTolerance: f64(0)}}, Inspection: dw.Inspection}, "tolerance band is zero"},
		{"x", twin.TechnicalDrawing{PartRef: "CAD-BRACKET", Dimensions: []twin.DrawingDimension{{Feature: "l", Nominal: f64(10), Unit: "kg",
			PlusTolerance: f64(1), MinusTolerance: f64(1)}}, Inspection: dw.Inspection}, `unit "kg"`},
		{"x", twin.TechnicalDrawing{PartRef: "CAD-BRACKET", Dimensions: dw.Dimensions, Inspection: dw.Inspection,
			GDT: []twin.GDTCallout{{Characteristic: "flatness", Feature: "f", Tolerance: f64(0.1), Unit: "mm", Datums: []string{"A"}}}}, "takes no datum"},
		{"x", twin.TechnicalDrawing{PartRef: "CAD-BRACKET", Dimensions: dw.Dimensions, Inspection: dw.Inspection,
			GDT: []twin.GDTCallout{{Characteristic: "perpendicularity", Feature: "f", Tolerance: f64(0.1), Unit: "mm"}}}, "needs at least one datum"},
		{"x", twin.TechnicalDrawing{PartRef: "CAD-BRACKET", Dimensions: dw.Dimensions}, "inspection is empty"},
		{"x", twin.TechnicalDrawing{PartRef: "CAD-NOPE", Dimensions: dw.Dimensions, Inspection: dw.Inspection}, "CAD-NOPE names no item"},
		{"x", twin.DesignSketch{Intent: "i"}, "entities"},
		{"x", twin.DesignSketch{Intent: "i", Entities: []twin.SketchEntity{{Kind: "arc", Points: [][2]float64{{0, 0}, {1, 1}, {2, 2}}}}}, "lie on one line"},
		{"x", twin.DesignSketch{Intent: "i", Entities: []twin.SketchEntity{{Kind: "circle", Points: [][2]float64{{0, 0}}}}}, "radius must be"},
		{"x", twin.DesignSketch{Intent: "i", Description: "d", Unit: "deg"}, `unit "deg"`},
		// A typed document never revises one of another kind.
		{"Arm hazards", cc, "DOC-ARM-HAZARDS is a hazard_analysis (head DOC-ARM-HAZARDS@2); a compliance_checklist cannot revise it"},
	}
	for _, tc := range bad {
		_, err := write(tc.title, tc.c)
		if tc.want == "CAD-NOPE names no item" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%T: %v, want %q", tc.c, err, tc.want)
			}
			continue
		}
		if !refusal(err, tc.want) {
			t.Errorf("%T %+v: %v, want a refusal saying %q", tc.c, tc.c, err, tc.want)
		}
	}
	if _, err := write("x", hz, "CAD-NOPE"); err == nil || !strings.Contains(err.Error(), "concerns CAD-NOPE") {
		t.Errorf("unknown concerns = %v", err)
	}
	if err := note("Arm hazards"); !refusal(err, "a note cannot revise it. Give this document another title, or revise that one with twin.commit_hazard_analysis") {
		t.Errorf("a note over a hazard analysis = %v", err)
	}
	if _, err := twin.RecordDocument(bg, s, twin.DocumentWrite{Project: g.p, DocumentType: "hazard_analysis", Title: "y", Text: "free text"}); !refusal(err, "write it with twin.commit_hazard_analysis") {
		t.Errorf("a hazard analysis as free text = %v", err)
	}
	if n := documentCount(t, s, g.p.ID); n != before {
		t.Fatalf("refused documents wrote %d revisions", n-before)
	}
	if err := note("Loose note"); err != nil {
		t.Fatal(err)
	}
	if _, err := write("Loose note", hz); !refusal(err, "DOC-LOOSE-NOTE is a note") {
		t.Errorf("a hazard analysis over a note = %v", err)
	}
}
