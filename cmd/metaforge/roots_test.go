package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
)

func TestRootFlagsAreAbsoluteFolders(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string // "" parses
	}{
		{[]string{"--read-root", dir, "--read-root", dir, "--write-root=" + dir}, ""},
		{[]string{"--read-root", "relative/dir"}, "--read-root"},
		{[]string{"--write-root", "out"}, "--write-root"},
		{[]string{"--write-root", filepath.Join(dir, "missing")}, "not an existing folder"},
	} {
		fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var r fileRoots
		r.register(fs)
		err := fs.Parse(c.args)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// Through the catalogue and a real tool: with roots, spice.run_simulation
// reads a netlist_path inside the read root, refuses one beside it with an
// invalid-params error naming the root, and health says confined.
func TestSpiceNetlistPathIsConfined(t *testing.T) {
	if _, err := exec.LookPath("ngspice"); err != nil {
		t.Skip("ngspice is not installed")
	}
	t.Setenv("METAFORGE_ADAPTER_SPICE_URL", "")
	base := t.TempDir()
	work, work2 := filepath.Join(base, "work"), filepath.Join(base, "work2")
	const divider = "divider\nV1 in 0 DC 5\nR1 in out 1k\nR2 out 0 1k\n.op\n.end\n"
	for _, d := range []string{work, work2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "divider.cir"), []byte(divider), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var tf temporalFlags
	tf.register(fs)
	if _, _, err := tf.parse(fs, []string{"--read-root", work}, false); err != nil {
		t.Fatal(err)
	}

	tw, err := openTwin(context.Background(), t.TempDir(), false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	reg, checker, err := catalog(context.Background(), &worker.Temporal{}, tw, workspaceFor(t.TempDir(), tf.roots), &runs.Service{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, sp, ok := reg.Tool("spice.run_simulation")
	if !ok {
		t.Fatal("spice.run_simulation is not served")
	}
	run := func(path string) error {
		raw, _ := json.Marshal(map[string]any{"netlist_path": path})
		if err := reg.ValidateArguments("spice.run_simulation", raw); err != nil {
			return err
		}
		_, err := sp.Call(context.Background(), "spice.run_simulation", raw)
		return err
	}
	if err := run(filepath.Join(work, "divider.cir")); err != nil {
		t.Errorf("a netlist inside the read root: %v", err)
	}
	err = run(filepath.Join(work2, "divider.cir"))
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams || !strings.Contains(err.Error(), work) || !strings.Contains(err.Error(), "netlist_path") {
		t.Errorf("a netlist in /work2 with the read root /work: %v, want an invalid-params error naming netlist_path and %s", err, work)
	}

	c := checker.Components["file_access"](context.Background())
	if c.Mode != "confined" || !strings.Contains(c.Detail, work) {
		t.Errorf("health: %+v, want confined naming %s", c, work)
	}
}

// An unknown --profile stops the server before anything starts, naming the
// profiles that exist; a known one becomes the default.
func TestProfileFlag(t *testing.T) {
	for _, c := range []struct {
		arg, wantErr string
	}{
		{"core", ""},
		{"nope", "the profiles are core, electronics, mechanical, mechanical_product, robotics, simulation"},
		{"robotics", ""},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		var tf temporalFlags
		tf.register(fs)
		_, _, err := tf.parse(fs, []string{"--profile", c.arg}, false)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("--profile %s: %v", c.arg, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("--profile %s: error %v, want one containing %q", c.arg, err, c.wantErr)
		case c.wantErr == "" && tf.runtime(never).profile != c.arg:
			t.Errorf("--profile %s did not become the default profile", c.arg)
		}
	}
}
