package kicad

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaforge/metaforge/internal/solver"
)

func TestZZDbg(t *testing.T) {
	fr, _ := locateFreerouting()
	dir := t.TempDir()
	runPython(t, `
import sys, pcbnew
pcbnew.ExportSpecctraDSN(pcbnew.LoadBoard(sys.argv[1]), sys.argv[2])
`, demo("ecc83/ecc83-pp.kicad_pcb"), filepath.Join(dir, "b.dsn"))
	os.MkdirAll(filepath.Join(dir, userDataDir), 0o755)
	wrapper := filepath.Join(t.TempDir(), "java")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nexec /usr/bin/strace -f -qq -e trace=connect -o /tmp/rt/dbg.trace "+fr.java+" \"$@\"\n"), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := freerouting{jar: fr.jar, java: wrapper}
	res, err := solver.Run(ctx, solver.Command{Binary: wrapper, Args: f.args(routeRun{dsn: "b.dsn", ses: "b.ses", jobSeconds: 60}, 0), Dir: dir, Env: freeroutingEnv()})
	t.Logf("err %v\nstdout %s\nstderr %s", err, res.Stdout, res.Stderr)
}
