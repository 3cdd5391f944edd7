package kicad

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

func TestPinMappingOfConnector(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	// ecc83-pp's P3 is the power terminal: pin 1 the supply, pin 2 ground.
	for _, file := range []map[string]any{
		{"schematic_file": demo("ecc83/ecc83-pp.kicad_sch")},
		{"board_file": demo("ecc83/ecc83-pp.kicad_pcb")},
	} {
		args := map[string]any{"reference": "P3"}
		for k, v := range file {
			args[k] = v
		}
		got, _ := call[PinMappingResult](t, a, ToolGetPinMapping, args)
		if len(got.Pins) != 2 || got.Pins[0].Pin != "1" || got.Pins[1].Pin != "2" || got.Pins[1].Net != "GND" || got.Pins[0].Net == "GND" || got.Value != "POWER" {
			t.Errorf("%s P3 pins %+v (value %q)", got.Source, got.Pins, got.Value)
		}
	}
	_, err := callErr(t, a, ToolGetPinMapping, map[string]any{"schematic_file": demo("ecc83/ecc83-pp.kicad_sch"), "reference": "J99"})
	if pe := wantCode(t, err, protocol.InvalidParams); !strings.Contains(pe.Details, "J99") || !strings.Contains(pe.Details, "P3") {
		t.Errorf("details %q should name the unknown reference and list real ones", pe.Details)
	}
}

// Without kicad-cli (KiCad 6), run_erc checks the schematic itself
// instead of answering TOOL_UNAVAILABLE.
func TestERCWithoutKiCadCLIChecksItself(t *testing.T) {
	needDemos(t)
	a, _ := newAdapter(t)
	t.Setenv("PATH", t.TempDir()) // no kicad-cli, whatever this machine has
	got, _ := call[ERCResult](t, a, ToolRunERC, map[string]any{"schematic_file": demo("ecc83/ecc83-pp.kicad_sch")})
	if got.Checker != CheckerKiCad6 || !got.Passed {
		t.Errorf("checker %q passed %v", got.Checker, got.Passed)
	}
}

func TestBadInputsRunNothing(t *testing.T) {
	needDemos(t)
	a, ws := newAdapter(t)
	// A python that would fail loudly proves nothing ran.
	a.Python = "/nonexistent/python-must-not-run"
	text := filepath.Join(ws.Root, "notes.kicad_pcb")
	outside := filepath.Join(t.TempDir(), "board.kicad_pcb")
	for _, p := range []string{text, outside} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(text, []byte("just some notes\n"), 0o644)
	os.WriteFile(outside, []byte("(kicad_pcb (version 20211014))\n"), 0o644)
	cases := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"missing", ToolRunDRC, map[string]any{"board_file": filepath.Join(ws.Root, "nope.kicad_pcb")}, "does not exist"},
		{"outside roots", ToolRunDRC, map[string]any{"board_file": outside}, "outside the allowed roots"},
		{"text file", ToolExportGerber, map[string]any{"board_file": text}, "is not a KiCad board"},
		{"schematic as board", ToolRunDRC, map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_sch")}, "is a KiCad schematic, not a KiCad board"},
		{"board as schematic", ToolExportBOM, map[string]any{"schematic_file": demo("ecc83/ecc83-pp.kicad_pcb")}, "is a KiCad board, not a KiCad schematic"},
		{"both files", ToolExportNetlist, map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb"), "schematic_file": demo("ecc83/ecc83-pp.kicad_sch")}, ""},
		{"spice from board", ToolExportNetlist, map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb"), "format": "spice"}, "format spice needs schematic_file"},
		{"bad format", ToolExportNetlist, map[string]any{"schematic_file": demo("ecc83/ecc83-pp.kicad_sch"), "format": "xml"}, ""},
		{"unknown field", ToolRunDRC, map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb"), "strict": true}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := callErr(t, a, c.tool, c.args)
			pe := wantCode(t, err, protocol.InvalidParams)
			if !strings.Contains(pe.Details, c.want) {
				t.Errorf("details %q, want %q", pe.Details, c.want)
			}
		})
	}
	// The same checks hold on a direct call, without the registry's schema.
	_, err := a.Call(context.Background(), ToolRunDRC, []byte(`{"board_file": "`+text+`"}`))
	wantCode(t, err, protocol.InvalidParams)
	if entries, _ := os.ReadDir(filepath.Join(ws.Root, "calls")); len(entries) != 0 {
		t.Errorf("bad input made %d call folders", len(entries))
	}
}

func TestMissingPythonIsUnavailable(t *testing.T) {
	needDemos(t)
	a, _ := newAdapter(t)
	t.Setenv(PythonEnv, "/nonexistent/python3")
	_, err := callErr(t, a, ToolRunDRC, map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb")})
	wantCode(t, err, protocol.ToolUnavailable)
	if _, err := a.Health(context.Background()); err == nil {
		t.Error("Health is fine without a Python")
	}
	// A Python that runs but has no pcbnew (the pyenv one, or any other).
	script := filepath.Join(t.TempDir(), "python3")
	os.WriteFile(script, []byte("#!/bin/sh\nexec "+DefaultPython+" -I -S \"$@\"\n"), 0o755)
	t.Setenv(PythonEnv, script)
	_, err = callErr(t, a, ToolRunDRC, map[string]any{"board_file": demo("ecc83/ecc83-pp.kicad_pcb")})
	if pe := wantCode(t, err, protocol.ToolUnavailable); !strings.Contains(pe.Details, "pcbnew Python module is not importable") {
		t.Errorf("details %q", pe.Details)
	}
	_, err = a.Health(context.Background())
	wantCode(t, err, protocol.ToolUnavailable)
}

func TestHealthAndManifests(t *testing.T) {
	needKiCad(t)
	a, _ := newAdapter(t)
	h, err := a.Health(context.Background())
	if err != nil || h.Status != "healthy" || !strings.Contains(h.Version, "KiCad 6") || h.ToolsAvailable != 7 {
		t.Errorf("health %+v, %v", h, err)
	}
	for _, m := range a.Manifests() {
		if !m.Idempotent || m.TimeoutSeconds == 0 || m.AdapterID != AdapterID {
			t.Errorf("manifest %+v", m)
		}
	}
}

func TestHierarchicalBusesAreRefused(t *testing.T) {
	needDemos(t)
	a, _ := newAdapter(t)
	_, err := callErr(t, a, ToolExportNetlist, map[string]any{"schematic_file": demo("video/video.kicad_sch")})
	if pe := wantCode(t, err, protocol.ToolExecutionError); !strings.Contains(pe.Details, "buses between sheets") {
		t.Errorf("details %q", pe.Details)
	}
}
