package omniverseusd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// entryScript is the tools' Python, in the installed bundle.
const entryScript = "run.py"

// marker starts the line the script answers on.
const marker = "METAFORGE_JSON "

// answer is the script's last line.
type answer struct {
	Data        json.RawMessage `json:"data"`
	Error       string          `json:"error"`
	Unavailable string          `json:"unavailable"`
}

// run has one Python process do the script's function fn on req (its
// arguments, already checked and resolved), in dir (the call's folder, or
// "" for a tool that writes nothing), and decodes its data into out.
func (a *Adapter) run(ctx context.Context, fn string, req any, dir string, out any) error {
	codeDir, err := a.bundle.install(a.ws.Root)
	if err != nil {
		return err
	}
	args, err := json.Marshal(req)
	if err != nil {
		return &protocol.Error{Code: protocol.InternalError, Details: "the script's arguments cannot be encoded: " + err.Error()}
	}
	res, err := solver.Run(ctx, solver.Command{
		Binary:      a.python,
		Args:        []string{filepath.Join(codeDir, entryScript), fn, string(args)},
		Dir:         dir,
		Env:         append(os.Environ(), "PYTHONPATH="+codeDir, "PYTHONDONTWRITEBYTECODE=1"),
		Install:     "install Python 3 and " + Install + ", or set " + EnvPython + " to a Python that has it",
		TimeoutHint: "give a smaller stage or allow the call more time",
	})
	if err != nil {
		return err
	}
	i := strings.LastIndex(res.Stdout, marker)
	if i < 0 {
		return protocol.Refusal("usd-core (%s) ended without an answer (exit status %d%s): %s",
			a.python, res.ExitCode, signal(res.Signal), tail(res.Stderr+"\n"+res.Stdout, 1500))
	}
	line := res.Stdout[i+len(marker):]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var ans answer
	if err := json.Unmarshal([]byte(line), &ans); err != nil {
		return &protocol.Error{Code: protocol.InternalError, Details: "the USD script's answer does not decode: " + err.Error()}
	}
	switch {
	case ans.Unavailable != "":
		return protocol.Unavailable("usd-core does not import in %s (%s); %s, or set %s to a Python that has it", a.python, ans.Unavailable, Install, EnvPython)
	case ans.Error != "":
		return protocol.Refusal("%s", ans.Error)
	}
	if err := json.Unmarshal(ans.Data, out); err != nil {
		return &protocol.Error{Code: protocol.InternalError, Details: "the USD script's data for " + fn + " does not decode: " + err.Error()}
	}
	return nil
}

// produce runs fn for a tool that writes one file, named name (checked
// with OutputName), in the call's own folder: build gets the file's
// absolute path and returns the script's arguments. A call that fails
// leaves neither the file nor an empty folder behind.
func (a *Adapter) produce(ctx context.Context, fn, field, name string, build func(file string) any, out any) error {
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return protocol.Transient("the call's folder has no absolute path: %v", err)
	}
	file, err := a.ws.ResolveWrite(dir, field, name)
	if err != nil {
		_ = os.Remove(dir)
		return err
	}
	if err := a.run(ctx, fn, build(file), dir, out); err != nil {
		_ = os.Remove(file)
		_ = os.Remove(dir) // only if nothing else is in it
		return err
	}
	return nil
}

func signal(name string) string {
	if name == "" {
		return ""
	}
	return ", " + name
}

// tail keeps the last n bytes of a program's output, where its error is.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}
