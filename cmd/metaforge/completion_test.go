package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Each completion script names every command, verb and flag of the
// table, and its shell parses it (zsh and fish when installed:
// deploy/test-deps.sh installs them).
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		var out bytes.Buffer
		if err := runCompletion(context.Background(), []string{sh}, &out); err != nil {
			t.Fatal(err)
		}
		script := out.String()
		for _, c := range commands() {
			if !regexp.MustCompile(`\b` + c.name + `\b`).MatchString(script) {
				t.Errorf("the %s script does not name the command %s", sh, c.name)
			}
			flags := slices.Clone(c.flags)
			for _, v := range c.verbs {
				if !strings.Contains(script, v.name) {
					t.Errorf("the %s script does not name %s %s", sh, c.name, v.name)
				}
				flags = append(flags, v.flags...)
			}
			for _, f := range flags {
				if !strings.Contains(script, "--"+f) && !strings.Contains(script, "-l "+f+"\n") {
					t.Errorf("the %s script does not offer %s's flag --%s", sh, c.name, f)
				}
			}
		}
		path := filepath.Join(t.TempDir(), "metaforge."+sh)
		if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := exec.LookPath(sh); err != nil {
			if sh == "bash" {
				t.Fatal("bash is not installed")
			}
			t.Logf("%s is not installed (deploy/test-deps.sh installs it): its script is not parsed", sh)
			continue
		}
		if b, err := exec.Command(sh, "-n", path).CombinedOutput(); err != nil {
			t.Errorf("%s -n rejects its completion script: %v\n%s", sh, err, b)
		}
	}
	var out bytes.Buffer
	if err := runCompletion(context.Background(), []string{"powershell"}, &out); err == nil || statusOf(err) != 2 {
		t.Fatalf("completion powershell: %v, want a usage error (exit 2)", err)
	}
}

// bash completes from the script as a person would type: a command's
// verbs, then a verb's flags.
func TestBashCompletionCompletes(t *testing.T) {
	var out bytes.Buffer
	if err := runCompletion(context.Background(), []string{"bash"}, &out); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "metaforge.bash")
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"metaforge proj":             "project",
		"metaforge twin h":           "history",
		"metaforge twin find --all-": "--all-revisions",
		"metaforge tools --pro":      "--profile",
	} {
		words := strings.Fields(line)
		script := `source "$1"; COMP_WORDS=(` + strings.Join(words, " ") + `); COMP_CWORD=` + string(rune('0'+len(words)-1)) +
			`; _metaforge; echo "${COMPREPLY[*]}"`
		b, err := exec.Command("bash", "-c", script, "bash", path).CombinedOutput()
		if err != nil || strings.TrimSpace(string(b)) != want {
			t.Errorf("completing %q gave %q (%v), want %q", line, b, err, want)
		}
	}
}

// The table's flags are each command's own: what -h prints for every
// command and verb, so completion offers no flag a command refuses and
// misses none it takes.
func TestCommandTableFlagsAreTheCommands(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	for _, c := range commands() {
		if c.name == "completion" {
			continue
		}
		cases := map[string][]string{c.name: c.flags}
		if len(c.verbs) > 0 {
			cases = map[string][]string{}
			for _, v := range c.verbs {
				cases[c.name+" "+v.name] = v.flags
			}
		}
		for line, want := range cases {
			args := append(strings.Fields(line)[1:], "-h")
			printed, err := captureStderr(t, func() error { return c.run(context.Background(), args) })
			if !errors.Is(err, flag.ErrHelp) {
				t.Errorf("metaforge %s -h: %v, want the flags printed", line, err)
				continue
			}
			var got []string
			for _, m := range flagLine.FindAllStringSubmatch(printed, -1) {
				got = append(got, m[1])
			}
			slices.Sort(got)
			w := slices.Sorted(slices.Values(want))
			if !slices.Equal(got, w) {
				t.Errorf("metaforge %s takes %v; the command table (commands.go) says %v", line, got, w)
			}
		}
	}
}

// captureStderr runs f with os.Stderr, where a FlagSet prints, captured.
func captureStderr(t *testing.T, f func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	ferr := f()
	os.Stderr = saved
	w.Close()
	return <-done, ferr
}
