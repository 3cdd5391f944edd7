//go:build unix

package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The /circuits page in headless Chromium on a real metaforge serve: an RC
// low-pass (R = 1 kOhm, C = 16 nF) is simulated by ngspice through
// spice.run_simulation; its result's page plots the AC sweep's magnitude
// and phase on a log frequency axis, and cursor A typed at 9947 Hz (the
// corner, 1 / (2 pi R C) = 9947.18 Hz) reads -3.0 dB and -45 degrees. A
// drag zooms both plots (the URL keeps it) and Reset zoom undoes it; the
// list without ?result= offers the call. Screenshots of both views go to
// E2E_SCREENSHOTS.
func TestCircuitsPage(t *testing.T) {
	r := startPageRig(t)
	netlist := "RC low-pass\nV1 in 0 DC 0 AC 1\nR1 in out 1k\nC1 out 0 16n\n"
	callID := vizCallID(t, r.session, "spice.run_simulation", map[string]any{"netlist": netlist, "analysis_type": "ac",
		"vectors": []string{"out"}, "max_points": 10000, "params": map[string]any{"variation": "dec", "points": 100, "fstart": 10, "fstop": "1meg"}})

	var o struct {
		Analysis      string            `json:"analysis"`
		Plots         []string          `json:"plots"`
		CanvasInk     map[string]int    `json:"canvasInk"`
		ReadoutA      map[string]string `json:"readoutA"`
		HeaderA       string            `json:"headerA"`
		AddressCursor string            `json:"addressAfterCursor"`
		AddressZoom   string            `json:"addressAfterZoom"`
		ZoomedRange   []float64         `json:"zoomedRange"`
		PhaseRange    []float64         `json:"phaseRangeAfterZoom"`
		ResetRange    []float64         `json:"resetRange"`
		ListRow       string            `json:"listRow"`
		BadCursor     string            `json:"badCursorMessage"`
		PageErrors    []string          `json:"pageErrors"`
		ConsoleErrors []string          `json:"consoleErrors"`
		Shots         []string          `json:"screenshots"`
	}
	runPageScript(t, r, 2*time.Minute, &o, "circuits_page.mjs", callID)
	if o.Analysis != "ac" || strings.Join(o.Plots, ",") != "magnitude,phase" {
		t.Errorf("the page shows analysis %q with plots %v, want ac with magnitude,phase", o.Analysis, o.Plots)
	}
	for plot, ink := range o.CanvasInk {
		if ink < 500 {
			t.Errorf("the %s plot's canvas has %d drawn pixels: the traces were not drawn", plot, ink)
		}
	}
	// The corner: |H| = 1/sqrt(2) = -3.0103 dB; the test's tolerance is
	// 0.05 dB around -3.0 dB, and 0.5 degrees around -45.
	const wantDB, tolDB, wantDeg, tolDeg = -3.0, 0.05, -45.0, 0.5
	readNum := func(name string) float64 {
		var v float64
		if _, err := fmt.Sscan(o.ReadoutA[name], &v); err != nil {
			t.Fatalf("readout %q at cursor A: %q (%v); all: %v", name, o.ReadoutA[name], err, o.ReadoutA)
		}
		return v
	}
	if db := readNum("v(out) magnitude"); math.Abs(db-wantDB) > tolDB {
		t.Errorf("cursor A at 9947 Hz reads %.4f dB, want %.1f +- %.2f", db, wantDB, tolDB)
	}
	if deg := readNum("v(out) phase"); math.Abs(deg-wantDeg) > tolDeg {
		t.Errorf("cursor A at 9947 Hz reads %.3f degrees, want %.0f +- %.1f", deg, wantDeg, tolDeg)
	}
	if o.HeaderA != "A = 9.947 kHz" || !strings.Contains(o.AddressCursor, "a=9947") {
		t.Errorf("cursor A's header %q, address %q; want A = 9.947 kHz and a=9947 in the URL", o.HeaderA, o.AddressCursor)
	}
	if !strings.Contains(o.BadCursor, "write meg for 1e6") {
		t.Errorf("typing 1M into cursor B said %q, want it to ask for meg", o.BadCursor)
	}
	// The drag zoomed into a part of the sweep, both plots alike, and the
	// URL kept it; Reset zoom went back to 10 Hz .. 1 MHz.
	if len(o.ZoomedRange) != 2 || o.ZoomedRange[0] <= 10 || o.ZoomedRange[1] >= 1e6 || o.ZoomedRange[0] >= o.ZoomedRange[1] ||
		fmt.Sprint(o.ZoomedRange) != fmt.Sprint(o.PhaseRange) || !strings.Contains(o.AddressZoom, "xmin=") {
		t.Errorf("after the drag the x range is %v (phase plot %v), address %q", o.ZoomedRange, o.PhaseRange, o.AddressZoom)
	}
	if len(o.ResetRange) != 2 || math.Abs(o.ResetRange[0]-10) > 1e-6 || math.Abs(o.ResetRange[1]-1e6) > 1e-3 {
		t.Errorf("after Reset zoom the x range is %v, want [10 1e6]", o.ResetRange)
	}
	if !strings.Contains(o.ListRow, callID) || !strings.Contains(o.ListRow, "ac dec 100 10 1e+06") {
		t.Errorf("the list's row for the call: %q", o.ListRow)
	}
	if len(o.PageErrors) > 0 || len(o.ConsoleErrors) > 0 {
		t.Errorf("the page threw %v, logged errors %v", o.PageErrors, o.ConsoleErrors)
	}
	for _, s := range o.Shots {
		if st, err := os.Stat(s); err != nil || st.Size() < 10_000 {
			t.Errorf("screenshot %s: %v", s, err)
		}
	}
	t.Logf("cursor A at 9947 Hz: %s dB, %s deg; screenshots %v", o.ReadoutA["v(out) magnitude"], o.ReadoutA["v(out) phase"], o.Shots)
}

// vizCallID calls a tool over MCP and returns its callId from _meta,
// failing on any error.
func vizCallID(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: %v", tool, res.Content)
	}
	id, _ := res.Meta["callId"].(string)
	if id == "" {
		t.Fatalf("%s: no callId in _meta %v", tool, res.Meta)
	}
	return id
}

// vizScreenshotDir is where the page tests write their PNGs:
// $METAFORGE_TEST_ARTIFACTS/screenshots when set (kept for a person to
// look at), else a folder under the test's temporary directory.
func vizScreenshotDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv("METAFORGE_TEST_ARTIFACTS")
	if root == "" {
		root = t.TempDir()
	}
	dir := filepath.Join(root, "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
