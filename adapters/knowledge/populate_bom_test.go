package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

func qty(x float64) *float64 { return &x }

// A BOM enriched for one purchase unit: lines whose datasheets carry its
// tag match within it; a line whose datasheet is untagged is searched
// again without the filter and flagged; a line nothing mentions comes
// back unmatched with the reason.
// (On both stores: the lookups use only the Store contract.)
func TestPopulateBOMWithPurchaseUnit(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testPopulateBOMWithPurchaseUnit(t, newLibrary(t)) })
	t.Run("postgres", func(t *testing.T) { testPopulateBOMWithPurchaseUnit(t, newPostgresLibrary(t)) })
}

func testPopulateBOMWithPurchaseUnit(t *testing.T, lib *library) {
	got, err := populateBOM(context.Background(), lib.store, populateBOMArgs{PurchaseUnit: "drone-lab", Lines: []bomLine{
		{Ref: "U1", MPN: "MFB2307", Quantity: qty(2)},
		{Ref: "U2", MPN: "MFA358"},
		{Ref: "U3", Description: "low-dropout linear regulator", Category: "LDO"},
		{Ref: "U4", MPN: "MFZ9999"},
		{Ref: "U5", Description: "stepper motor controllers", Category: "motor_driver"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Matched != 3 || got.Unmatched != 2 || !got.PurchaseUnitFilterDegraded || got.PurchaseUnit != "drone-lab" || len(got.Lines) != 5 {
		t.Fatalf("matched %d, unmatched %d, degraded %v, purchase_unit %q, %d lines; want 3, 2, true, drone-lab, 5",
			got.Matched, got.Unmatched, got.PurchaseUnitFilterDegraded, got.PurchaseUnit, len(got.Lines))
	}
	type want struct {
		method, source, mpn, manufacturer, category string
		degraded                                    bool
		figures                                     int
	}
	for i, w := range []want{
		{MatchMPNTag, lib.ids["MFB2307"], "MFB2307", "Acme Power", "buck-converter", false, 14},
		{MatchMPNSearch, lib.ids["MFA358"], "MFA358", "Borealis Analog", "op-amp", true, 12},
		{MatchDescription, lib.ids["MFL1117"], "mfl1117", "Acme Power", "LDO", false, 11},
	} {
		l := got.Lines[i]
		if !l.Matched || l.MatchMethod != w.method || l.Source == nil || l.Source.ID != w.source || l.MPN != w.mpn ||
			l.Manufacturer != w.manufacturer || l.Category != w.category || l.PurchaseUnitFilterDegraded != w.degraded || len(l.Figures) != w.figures {
			t.Errorf("line %s: %+v (source %+v)\nwant %+v", l.Ref, l, l.Source, w)
		}
		if l.Page < 1 || !strings.Contains(l.Snippet, "**") {
			t.Errorf("line %s: page %d snippet %q; want the best passage's page and its marked snippet", l.Ref, l.Page, l.Snippet)
		}
		if l.Reason != "" {
			t.Errorf("line %s: matched with reason %q", l.Ref, l.Reason)
		}
	}
	if q := got.Lines[0].Quantity; q == nil || *q != 2 {
		t.Errorf("U1 quantity %v, want 2 as given", q)
	}
	// The LDO was found by its description: the passage is page 1's.
	if got.Lines[2].Page != 1 {
		t.Errorf("U3: page %d, want 1 (the description's words are on page 1)", got.Lines[2].Page)
	}
	u4 := got.Lines[3]
	if u4.Matched || u4.Source != nil || !u4.PurchaseUnitFilterDegraded || !strings.Contains(u4.Reason, "MFZ9999") || !strings.Contains(u4.Reason, "purchase_unit=drone-lab, then without it") {
		t.Errorf("U4: %+v; want unmatched, degraded, a reason naming the MPN and both searches", u4)
	}
	u5 := got.Lines[4]
	if u5.Matched || !strings.Contains(u5.Reason, "category motor_driver") {
		t.Errorf("U5: %+v; want unmatched (the op-amp's \"motor controllers\" is not a motor driver), its reason naming the category", u5)
	}
}

// The purchase unit narrows: the same MPN is the datasheet for one unit
// and the application note for the other; without a purchase unit
// nothing is flagged.
func TestPopulateBOMPurchaseUnitNarrows(t *testing.T) {
	lib := newLibrary(t)
	ctx := context.Background()
	for _, tc := range []struct {
		unit, source string
		figures      int
	}{
		{"drone-lab", lib.ids["MFB2307"], 14},
		{"rover-lab", lib.ids["appnote"], 0},
		{"", lib.ids["MFB2307"], 14},
	} {
		got, err := populateBOM(ctx, lib.store, populateBOMArgs{PurchaseUnit: tc.unit, Lines: []bomLine{{Ref: "U1", MPN: "MFB2307"}}})
		if err != nil {
			t.Fatal(err)
		}
		l := got.Lines[0]
		if !l.Matched || l.Source == nil || l.Source.ID != tc.source || len(l.Figures) != tc.figures || l.PurchaseUnitFilterDegraded || got.PurchaseUnitFilterDegraded {
			t.Errorf("purchase_unit %q: %+v; want %s with %d figures, not degraded", tc.unit, l, tc.source, tc.figures)
		}
	}
}

// Bad input is refused naming what to fix.
func TestPopulateBOMRefusesBadInput(t *testing.T) {
	lib := newLibrary(t)
	for _, in := range []populateBOMArgs{
		{},
		{Lines: []bomLine{{Ref: "U1", Quantity: qty(1)}}},
		{Lines: []bomLine{{Ref: "U1", MPN: "MFB2307", Quantity: qty(-1)}}},
		{PurchaseUnit: "  ", Lines: []bomLine{{MPN: "MFB2307"}}},
	} {
		_, err := populateBOM(context.Background(), lib.store, in)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
			t.Errorf("%+v: %v, want INVALID_PARAMS", in, err)
		}
	}
}

// Through the adapter, with the JSON an agent sends: the degraded flag
// and the unmatched reason are in the answer it reads.
func TestPopulateBOMThroughAdapter(t *testing.T) {
	lib := newLibrary(t)
	a := New(Options{Store: lib.store})
	res, err := a.Call(context.Background(), ToolPopulateBOM, json.RawMessage(`{"purchase_unit": "drone-lab", "lines": [
		{"ref": "U1", "mpn": "mfb2307", "quantity": 1},
		{"ref": "U2", "description": "dual operational amplifier", "category": "op_amp"},
		{"ref": "U3", "mpn": "MFZ9999"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Degraded bool `json:"purchase_unit_filter_degraded"`
		Matched  int  `json:"matched"`
		Lines    []struct {
			Ref          string `json:"ref"`
			Matched      bool   `json:"matched"`
			MatchMethod  string `json:"match_method"`
			Manufacturer string `json:"manufacturer"`
			Degraded     bool   `json:"purchase_unit_filter_degraded"`
			Page         int    `json:"page"`
			Reason       string `json:"reason"`
			Source       *struct {
				ID    string `json:"id"`
				Title string `json:"title"`
			} `json:"source"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(res.Data, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Degraded || got.Matched != 2 || len(got.Lines) != 3 {
		t.Fatalf("answer %s", res.Data)
	}
	u1, u2, u3 := got.Lines[0], got.Lines[1], got.Lines[2]
	if !u1.Matched || u1.MatchMethod != "mpn_tag" || u1.Manufacturer != "Acme Power" || u1.Degraded || u1.Source == nil || u1.Source.ID != lib.ids["MFB2307"] {
		t.Errorf("U1: %+v", u1)
	}
	if !u2.Matched || u2.MatchMethod != "description_search" || u2.Manufacturer != "Borealis Analog" || !u2.Degraded || u2.Source == nil || u2.Source.ID != lib.ids["MFA358"] || u2.Page != 1 {
		t.Errorf("U2: %+v", u2)
	}
	if u3.Matched || u3.Source != nil || !u3.Degraded || !strings.Contains(u3.Reason, "knowledge.ingest") {
		t.Errorf("U3: %+v", u3)
	}
	if _, err := a.Call(context.Background(), ToolPopulateBOM, json.RawMessage(`{"lines": [{"ref": "U1", "mpn": "MFB2307", "qty": 1}]}`)); err == nil {
		t.Error("an unknown line field was accepted")
	}
	if ann, ok := adapters.AnnotationsFor(ToolPopulateBOM); !ok || !ann.ReadOnly || !ann.Idempotent || ann.OpenWorld || ann.Destructive {
		t.Errorf("annotations %+v, want read-only, idempotent, not open-world", ann)
	}
}
