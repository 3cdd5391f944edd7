package cadquery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// cadqueryVersion is the CadQuery this adapter is built and tested with:
// the one the install hints name.
const cadqueryVersion = "2.8.0"

// probeTimeout bounds the quick check for CadQuery.
const probeTimeout = 10 * time.Second

// probeScript finds CadQuery without importing it: an import takes
// seconds, more than a health check may spend. Exit status 3 means CadQuery
// is not installed; stdout then carries the error an import would raise.
const probeScript = `import importlib.metadata, importlib.util, sys
if importlib.util.find_spec("cadquery") is None:
    print("ModuleNotFoundError: No module named 'cadquery'")
    sys.exit(3)
try:
    print(importlib.metadata.version("cadquery"))
except importlib.metadata.PackageNotFoundError:
    print("(version unknown)")
`

// Health is healthy, with CadQuery's version, when the Python has
// CadQuery; otherwise TOOL_UNAVAILABLE saying why and how to fix it. It
// starts nothing and stays quick: see kernel.health.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	v, err := a.kernel.health(ctx)
	if err != nil {
		return adapters.HealthStatus{}, err
	}
	return a.calls.Healthy(AdapterID, version+" (CadQuery "+v+")", len(tools)), nil
}

// probe checks that python runs and has CadQuery, and returns CadQuery's
// version. It runs in dir, the kernel's own folder, so no module in the
// server's working directory can pass for CadQuery.
func probe(ctx context.Context, python, dir string) (string, error) {
	path, err := exec.LookPath(python)
	if err != nil {
		if strings.ContainsRune(python, '/') {
			return "", protocol.Unavailable("%s does not exist or is not executable; set %s (or Options.Python) to a Python 3 "+
				"with CadQuery installed (`pip install cadquery==%s`)", python, EnvPython, cadqueryVersion)
		}
		return "", protocol.Unavailable("%s not found on PATH; install Python 3 and CadQuery (`pip install cadquery==%s`), "+
			"or set %s to a Python that has it", python, cadqueryVersion, EnvPython)
	}
	probeCtx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(probeCtx, path, "-c", probeScript)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	out := strings.TrimSpace(stdout.String())
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return out, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 3:
		return "", cadqueryUnavailable(python, out)
	case ctx.Err() != nil:
		return "", fmt.Errorf("checking %s for CadQuery: %w", python, ctx.Err())
	case probeCtx.Err() != nil:
		return "", protocol.Unavailable("%s did not answer within %s when asked whether CadQuery is installed", python, probeTimeout)
	default:
		return "", protocol.Unavailable("%s could not check for CadQuery (%v): %s", python, err, lastLine(stderr.String()))
	}
}

// cadqueryUnavailable words a failure to import CadQuery, reason being the
// error Python gave ("ModuleNotFoundError: No module named 'cadquery'").
func cadqueryUnavailable(python, reason string) *protocol.Error {
	if strings.Contains(reason, "No module named 'cadquery'") {
		return protocol.Unavailable("CadQuery is not installed for %s (%s); install it with `%s -m pip install cadquery==%s`",
			python, reason, python, cadqueryVersion)
	}
	return protocol.Unavailable("CadQuery is installed for %s but does not import (%s); reinstall it with "+
		"`%s -m pip install --force-reinstall cadquery==%s`", python, reason, python, cadqueryVersion)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
