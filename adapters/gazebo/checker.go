package gazebo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// The checker program, and how to get it.
const (
	// CheckerName is the program deploy/sdfcheck/build.sh builds.
	CheckerName = "metaforge-sdfcheck"
	// EnvChecker names the checker's path, overriding the search.
	EnvChecker = "METAFORGE_SDFCHECK"
	// Install says how to build the checker, in a TOOL_UNAVAILABLE answer.
	Install = "build it with `bash deploy/sdfcheck/build.sh` from the MetaForge source (it needs g++, pkg-config and " +
		"Debian's libsdformat-dev: apt-get install g++ pkg-config libsdformat-dev; `sudo bash deploy/install-solvers.sh` does both), " +
		"or set " + EnvChecker + " to the program's path"
)

// userChecker is where build.sh puts the checker for a user that is not
// root, off PATH: the adapter looks there too.
func userChecker() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "metaforge", "bin", CheckerName)
}

// checkerPath finds the checker: the option, $METAFORGE_SDFCHECK, PATH,
// then build.sh's folder for a user that is not root. Not found is
// TOOL_UNAVAILABLE saying how to build it.
func (a *Adapter) checkerPath() (string, error) {
	if p := a.checker; p != "" {
		return executable(p, "the gazebo adapter's checker")
	}
	if p := os.Getenv(EnvChecker); p != "" {
		return executable(p, "$"+EnvChecker)
	}
	if p, err := exec.LookPath(CheckerName); err == nil {
		return p, nil
	}
	if p := userChecker(); p != "" {
		if _, err := executable(p, ""); err == nil {
			return p, nil
		}
	}
	where := "on PATH"
	if p := userChecker(); p != "" {
		where += " or at " + p
	}
	return "", protocol.Unavailable("the libsdformat checker %s is not installed (not %s); %s", CheckerName, where, Install)
}

// executable checks that path is a program this process may run.
func executable(path, named string) (string, error) {
	st, err := os.Stat(path)
	if err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
		return path, nil
	}
	why := "is not an executable file"
	if err != nil {
		why = "cannot be used: " + err.Error()
	}
	return "", protocol.Unavailable("%s %s %s; %s", named, path, why, Install)
}

// checkerVersion is what `metaforge-sdfcheck --version` answers.
type checkerVersion struct {
	Library  string `json:"libsdformat_version"`
	Protocol string `json:"sdf_protocol_version"`
}

func (a *Adapter) checkerVersion(ctx context.Context) (checkerVersion, error) {
	path, err := a.checkerPath()
	if err != nil {
		return checkerVersion{}, err
	}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := solver.Run(hctx, solver.Command{Binary: path, Args: []string{"--version"}, Install: Install})
	if err != nil {
		return checkerVersion{}, err
	}
	var v checkerVersion
	if res.ExitCode != 0 || json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &v) != nil || v.Library == "" {
		return checkerVersion{}, protocol.Unavailable("%s --version did not answer (exit status %d%s): %s; rebuild it: %s",
			path, res.ExitCode, signal(res.Signal), tail(res.Stderr+res.Stdout, 500), Install)
	}
	return v, nil
}

// check runs the checker on file (already resolved inside the read roots)
// and decodes its report. Exit 0 and 1 both carry a report (valid or
// not); anything else is the checker failing, not the file.
func (a *Adapter) check(ctx context.Context, file string) (*report, error) {
	path, err := a.checkerPath()
	if err != nil {
		return nil, err
	}
	res, err := solver.Run(ctx, solver.Command{
		Binary:      path,
		Args:        []string{file},
		Env:         checkerEnv(),
		Install:     Install,
		TimeoutHint: "a world that includes many models may need a longer timeout",
	})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 && res.ExitCode != 1 {
		return nil, protocol.Refusal("%s could not check %s (exit status %d%s): %s", CheckerName, file, res.ExitCode, signal(res.Signal), tail(res.Stderr+"\n"+res.Stdout, 1500))
	}
	var r report
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &r); err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: CheckerName + "'s report does not decode (" + err.Error() + "); rebuild it: " + Install}
	}
	if r.Valid != (res.ExitCode == 0) {
		return nil, &protocol.Error{Code: protocol.InternalError,
			Details: fmt.Sprintf("%s exited with status %d but its report says valid=%v; rebuild it: %s", CheckerName, res.ExitCode, r.Valid, Install)}
	}
	return &r, nil
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
