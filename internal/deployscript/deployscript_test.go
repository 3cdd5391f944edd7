package deployscript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// From a package folder deep in the repository, Path finds the scripts at
// its root, and a script that is not there is an error naming it.
func TestPathFindsTheRepositorysScripts(t *testing.T) {
	for _, script := range []string{"start-neo4j.sh", "start-postgres.sh"} {
		p, err := Path(script)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(filepath.Dir(p)) != "deploy" {
			t.Errorf("Path(%q) = %s, want it in deploy/", script, p)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(p)), "go.mod")); err != nil {
			t.Errorf("Path(%q) = %s, not beside the module's go.mod", script, p)
		}
	}
	if _, err := Path("no-such-script.sh"); err == nil || !strings.Contains(err.Error(), "no-such-script.sh") {
		t.Errorf("a missing script: %v, want an error naming it", err)
	}
}

func TestTailKeepsTheLastLines(t *testing.T) {
	if got := Tail("a\nb\nc\nd\n", 2); got != "c\nd" {
		t.Errorf("Tail = %q, want the last two lines", got)
	}
	if got := Tail("only", 5); got != "only" {
		t.Errorf("Tail of a short text = %q", got)
	}
}
