package kicad

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// The expected results of these tests are KiCad 6's own: KiCad 6 has ERC
// only in the eeschema GUI, so each report under testdata/erc
// (*.kicad6.rpt) was made by eeschema 6.0.11 (Debian bookworm), driven on
// a virtual display by testdata/erc/kicad6_gui_erc.sh, on a copy of the
// schematic, and saved from its ERC dialog. The checker must find the
// same markers (rule, severity, sheet, place) and counts, except
// lib_symbol_issues, which compares symbols with the libraries of the
// machine KiCad ran on and which this checker does not run.

func ercFixtures(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "erc"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// ercAdapter reads the demos and the ERC fixtures, and makes sure the
// adapter's own checker runs: no kicad-cli on PATH.
func ercAdapter(t *testing.T) (*Adapter, *workspace.Workspace) {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	ws := workspace.New(t.TempDir(), demos, ercFixtures(t))
	return New(ws), ws
}

// ercDemos are KiCad's demos with KiCad 6.0.11's report of each.
var ercDemos = []struct {
	sch, report string
	errors      int // KiCad 6's, without lib_symbol_issues
}{
	{"ecc83/ecc83-pp.kicad_sch", "ecc83-pp", 0},
	{"ecc83/ecc83-pp_v2.kicad_sch", "ecc83-pp_v2", 0},
	{"pic_programmer/pic_programmer.kicad_sch", "pic_programmer", 0},
	{"complex_hierarchy/complex_hierarchy.kicad_sch", "complex_hierarchy", 0},
	{"flat_hierarchy/flat_hierarchy.kicad_sch", "flat_hierarchy", 0},
	// 33 hierarchical labels on the root sheet, each on one pin of a
	// cable: a label reaching a single pin is dangling.
	{"electric/electric.kicad_sch", "electric", 33},
	{"interf_u/interf_u.kicad_sch", "interf_u", 0},
	{"sonde xilinx/sonde xilinx.kicad_sch", "sonde_xilinx", 0},
	{"stickhub/StickHub.kicad_sch", "StickHub", 0},
	{"test_xil_95108/carte_test.kicad_sch", "carte_test", 0},
	{"simulation/laser_driver/laser_driver.kicad_sch", "laser_driver", 0},
	{"simulation/pspice/pspice.kicad_sch", "pspice", 0},
	{"simulation/rectifier/rectifier.kicad_sch", "rectifier", 0},
	{"simulation/sallen_key/sallen_key.kicad_sch", "sallen_key", 0},
	{"simulation/v_i_sources/v_i_sources.kicad_sch", "v_i_sources", 0},
}

func TestERCMatchesKiCad6OnDemos(t *testing.T) {
	needDemos(t)
	a, _ := ercAdapter(t)
	for _, d := range ercDemos {
		t.Run(d.report, func(t *testing.T) {
			got, _ := call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": demo(d.sch)})
			if got.Checker != CheckerKiCad6 || got.Severity != SeverityAll {
				t.Errorf("checker %q severity %q", got.Checker, got.Severity)
			}
			if got.ErrorCount != d.errors {
				t.Errorf("%d errors, KiCad 6 reports %d", got.ErrorCount, d.errors)
			}
			compareWithKiCad6(t, got, readKiCad6Report(t, filepath.Join(ercFixtures(t), "reports", d.report+".kicad6.rpt")))
		})
	}
}

// The fixtures are one clean circuit and variants of it made to break one
// rule once each (testdata/erc/make_fixtures.py says how); KiCad 6's
// reports confirm each breaks exactly that rule.
func TestERCRuleFixtures(t *testing.T) {
	a, _ := ercAdapter(t)
	for _, c := range []struct{ fixture, rule, severity string }{
		{"clean", "", ""},
		{"pin_not_connected", rulePinNotConnected, sevError},
		{"pin_to_pin", rulePinToPin, sevError},
		{"power_pin_not_driven", rulePowerPinNotDriven, sevError},
		{"pin_not_driven", rulePinNotDriven, sevError},
		{"no_connect_connected", ruleNoConnectConn, sevWarning},
		{"no_connect_dangling", ruleNoConnectDangling, sevWarning},
		{"label_dangling", ruleLabelDangling, sevError},
		{"global_label_dangling", ruleGlobalLabel, sevWarning},
		{"multiple_net_names", ruleMultipleNetNames, sevWarning},
		{"wire_dangling", ruleWireDangling, sevError},
		{"duplicate_reference", ruleDuplicateRef, sevError},
		{"unannotated", ruleUnannotated, sevError},
		{"similar_labels", ruleSimilarLabels, sevWarning},
		{"hier_label_mismatch", ruleHierLabelMismatch, sevError},
		// The project's pin_map makes two connected outputs a warning.
		{"pin_map_override", rulePinToPin, sevWarning},
		// The project makes an unconnected pin a warning and ignores the
		// dangling no-connect flag the schematic also has.
		{"severity_override", rulePinNotConnected, sevWarning},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			sch := filepath.Join(ercFixtures(t), "erc_"+c.fixture+".kicad_sch")
			got, _ := call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": sch})
			var rules []string
			for _, v := range got.Violations {
				rules = append(rules, v.Rule+"/"+v.Severity)
			}
			want := ""
			if c.rule != "" {
				want = c.rule + "/" + c.severity
			}
			if strings.Join(rules, " ") != want {
				t.Errorf("violations %v, want %q", rules, want)
			}
			compareWithKiCad6(t, got, readKiCad6Report(t, strings.TrimSuffix(sch, ".kicad_sch")+".kicad6.rpt"))
		})
	}
}

func TestERCProjectSettingsReported(t *testing.T) {
	a, _ := ercAdapter(t)
	fx := ercFixtures(t)
	got, _ := call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": filepath.Join(fx, "erc_pin_map_override.kicad_sch")})
	if s := got.Settings; s == nil || s.ProjectFile != filepath.Join(fx, "erc_pin_map_override.kicad_pro") || s.PinMapCells != 1 || len(s.RuleSeverities) != 0 {
		t.Errorf("settings %+v", got.Settings)
	}
	got, _ = call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": filepath.Join(fx, "erc_severity_override.kicad_sch")})
	if s := got.Settings; s == nil || s.RuleSeverities[rulePinNotConnected] != sevWarning || s.RuleSeverities[ruleNoConnectDangling] != sevIgnore || s.PinMapCells != 0 {
		t.Errorf("settings %+v", got.Settings)
	}
	for _, r := range got.Checks {
		if r == ruleNoConnectDangling {
			t.Errorf("checks %v list an ignored rule", got.Checks)
		}
	}
	got, _ = call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": filepath.Join(fx, "erc_clean.kicad_sch")})
	if got.Settings == nil || got.Settings.ProjectFile != "" || len(got.Checks) != len(ercRules) || len(got.NotChecked) == 0 {
		t.Errorf("without a project: settings %+v, checks %v, not checked %v", got.Settings, got.Checks, got.NotChecked)
	}
}

func TestERCSeverityFilterKeepsCounts(t *testing.T) {
	a, _ := ercAdapter(t)
	fx := ercFixtures(t)
	for _, c := range []struct {
		fixture, severity string
		listed            int
		errors, warnings  int
	}{
		{"pin_to_pin", SeverityWarning, 0, 1, 0},
		{"pin_to_pin", SeverityError, 1, 1, 0},
		{"no_connect_connected", SeverityError, 0, 0, 1},
		{"no_connect_connected", SeverityWarning, 1, 0, 1},
		{"no_connect_connected", SeverityAll, 1, 0, 1},
	} {
		got, _ := call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": filepath.Join(fx, "erc_"+c.fixture+".kicad_sch"), "severity": c.severity})
		if len(got.Violations) != c.listed || got.ErrorCount != c.errors || got.WarningCount != c.warnings || got.Passed != (c.errors == 0) || got.Severity != c.severity {
			t.Errorf("%s severity %s: %d listed, %d errors, %d warnings, passed %v", c.fixture, c.severity, len(got.Violations), got.ErrorCount, got.WarningCount, got.Passed)
		}
		for _, v := range got.Violations {
			if c.severity != SeverityAll && v.Severity != c.severity {
				t.Errorf("%s severity %s lists a %s", c.fixture, c.severity, v.Severity)
			}
		}
	}
}

// A violation names its items as the schematic has them, and the report
// in the call's folder is the result.
func TestERCViolationItemsAndReport(t *testing.T) {
	a, _ := ercAdapter(t)
	got, res := call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": filepath.Join(ercFixtures(t), "erc_pin_to_pin.kicad_sch")})
	if len(got.Violations) != 1 {
		t.Fatalf("violations %+v", got.Violations)
	}
	v := got.Violations[0]
	// U1 and U2 are 74LVC1G04s whose outputs (pin 4) meet at U1's output,
	// placed at U1 (101.6, 76.2) + (6.35, 0).
	if v.Sheet != "/" || v.Position == nil || v.Position.XMM != 107.95 || v.Position.YMM != 76.2 || len(v.Items) != 2 {
		t.Fatalf("violation %+v", v)
	}
	refs := map[string]bool{}
	for _, it := range v.Items {
		refs[it.Reference] = true
		if it.Kind != "pin" || it.Pin != "4" || it.PinType != "output" || !strings.Contains(it.Description, "Output") {
			t.Errorf("item %+v", it)
		}
	}
	if !refs["U1"] || !refs["U2"] {
		t.Errorf("items name %v, want U1 and U2", refs)
	}
	if len(res.OutputFiles) != 1 || res.OutputFiles[0] != got.ReportFile || filepath.Base(got.ReportFile) != "erc.json" {
		t.Fatalf("output files %v, report %q", res.OutputFiles, got.ReportFile)
	}
	raw, err := os.ReadFile(got.ReportFile)
	if err != nil {
		t.Fatal(err)
	}
	var written ERCResult
	if err := json.Unmarshal(raw, &written); err != nil || written.ErrorCount != 1 || len(written.Violations) != 1 || written.Violations[0].Rule != rulePinToPin {
		t.Errorf("report file holds %+v (%v)", written, err)
	}
}

func TestERCRefusals(t *testing.T) {
	needDemos(t)
	a, ws := ercAdapter(t)
	sch := filepath.Join(ercFixtures(t), "erc_clean.kicad_sch")
	_, err := callErr(t, a, ToolRunERC, map[string]any{"schematic_file": sch, "severity": "fatal"})
	wantCode(t, err, protocol.InvalidParams)
	// The same check holds on a direct call, without the registry's schema.
	_, err = a.Call(context.Background(), ToolRunERC, []byte(`{"schematic_file": "`+sch+`", "severity": "fatal"}`))
	if pe := wantCode(t, err, protocol.InvalidParams); !strings.Contains(pe.Details, "error") || !strings.Contains(pe.Details, "warning") {
		t.Errorf("details %q should say what severity can be", pe.Details)
	}
	if entries, _ := os.ReadDir(filepath.Join(ws.Root, "calls")); len(entries) != 0 {
		t.Errorf("refused calls made %d call folders", len(entries))
	}
	// Buses carried between sheets are not followed: no verdict on them.
	_, err = callErr(t, a, ToolRunERC, map[string]any{"schematic_file": demo("video/video.kicad_sch")})
	if pe := wantCode(t, err, protocol.ToolExecutionError); !strings.Contains(pe.Details, "buses between sheets") {
		t.Errorf("details %q", pe.Details)
	}
}
