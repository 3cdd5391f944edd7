// Package deployscript finds the repository's deploy/ scripts for the test
// helpers that start real services with them (twin/neo4jtest,
// ledger/pgtest), wherever go test runs from.
package deployscript

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Path is deploy/<script> in the repository: in the go.mod folder above the
// working directory that has it, or else beside the main module's go.mod
// (go env GOMOD).
func Path(script string) (string, error) {
	rel := filepath.Join("deploy", script)
	has := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, rel))
		return err == nil
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && has(dir) {
				return filepath.Join(dir, rel), nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("no go.mod with %s above the working directory, and go env GOMOD: %w", rel, err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("no go.mod with %s above the working directory, and no main module", rel)
	}
	if dir := filepath.Dir(gomod); has(dir) {
		return filepath.Join(dir, rel), nil
	}
	return "", errors.New(gomod + " has no " + rel + " beside it")
}

// Tail is the last n lines of a script's output, for a failure message.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
