package kicad

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kicad-cli-erc.json is a report written by hand in the shape of KiCad's
// ERC report schema (resources/schemas/erc.v1.json in KiCad's source, the
// format of `kicad-cli sch erc --format json`): two sheets, two errors,
// a warning and an excluded warning.
func TestKiCadCLIReportMapping(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "erc", "kicad-cli-erc.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := mapCLIReport(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.Checker != CheckerCLI || got.ErrorCount != 2 || got.WarningCount != 1 || got.Passed || len(got.Violations) != 4 || string(got.Report) != string(raw) {
		t.Fatalf("result %+v", got)
	}
	p2p := got.Violations[0]
	if p2p.Rule != "pin_to_pin" || p2p.Severity != "error" || p2p.Sheet != "/" || p2p.Position == nil || p2p.Position.XMM != 107.95 || p2p.Position.YMM != 76.2 || len(p2p.Items) != 2 {
		t.Fatalf("pin_to_pin %+v", p2p)
	}
	if it := p2p.Items[1]; it.Kind != "pin" || it.Reference != "U2" || it.Pin != "4" || it.PinName != "" || it.PinType != "output" || it.YMM != 60.96 {
		t.Errorf("pin item %+v", it)
	}
	if it := got.Violations[1].Items[0]; it.Reference != "#PWR01" || it.PinName != "GND" || it.PinType != "power_in" {
		t.Errorf("power pin item %+v", it)
	}
	if v := got.Violations[2]; v.Sheet != "/sub/" || v.Items[0].Kind != "item" || v.Items[0].Description != "Label 'sig'" {
		t.Errorf("label violation %+v", v)
	}
	if v := got.Violations[3]; v.Severity != "exclusion" || v.Rule != "global_label_dangling" {
		t.Errorf("excluded violation %+v", v)
	}
}

func TestKiCadCLIReportUnits(t *testing.T) {
	got, err := mapCLIReport([]byte(`{"coordinate_units": "mils", "sheets": [{"path": "/", "violations": [
		{"type": "wire_dangling", "severity": "error", "description": "Wires not connected to anything",
		 "items": [{"description": "Horizontal Wire, length 200 mils", "pos": {"x": 2400, "y": 4000}}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Violations[0].Position; p.XMM != 2400*0.0254 || p.YMM != 4000*0.0254 || got.ErrorCount != 1 {
		t.Errorf("position %+v, errors %d", p, got.ErrorCount)
	}
	for _, bad := range []string{`{"sheets": 3}`, `{}`, `{"coordinate_units": "furlongs", "sheets": []}`, `not json`} {
		if _, err := mapCLIReport([]byte(bad)); err == nil {
			t.Errorf("%s was read", bad)
		} else if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%s: empty error", bad)
		}
	}
}
