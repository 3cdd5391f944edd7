package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
)

func TestResolveConfinesInputFiles(t *testing.T) {
	data, outside := t.TempDir(), t.TempDir()
	ws := New(data)
	ctx := adapters.WithCallInfo(context.Background(), adapters.CallInfo{CallID: "../../etc/abc123"})
	dir, err := ws.ForCall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != filepath.Join(ws.Root, "calls") {
		t.Fatalf("a call id cannot climb out of the calls folder: %s", dir)
	}
	again, _ := ws.ForCall(ctx)
	if again != dir {
		t.Errorf("a retried call gets the same folder: %s, then %s", dir, again)
	}
	inside := filepath.Join(dir, "part.step")
	secret := filepath.Join(outside, "secret.step")
	for _, f := range []string{inside, secret} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := ws.ResolveRead("input_file", inside); err != nil || got != inside {
		t.Errorf("a file in the workspace: %q, %v", got, err)
	}
	rel, _ := filepath.Rel(ws.Root, inside)
	if got, err := ws.ResolveRead("input_file", rel); err != nil || got != inside {
		t.Errorf("a path relative to the workspace: %q, %v", got, err)
	}
	link := filepath.Join(dir, "link.step")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ path, want string }{
		"outside":     {secret, "outside the allowed roots"},
		"symlink out": {link, "outside the allowed roots"},
		"dot-dot":     {filepath.Join(ws.Root, "..", "..", filepath.Base(outside), "secret.step"), "outside the allowed roots"},
		"missing":     {filepath.Join(dir, "nope.step"), "does not exist"},
		"a folder":    {dir, "not a regular file"},
		"empty":       {" ", "is empty"},
	} {
		if _, err := ws.ResolveRead("input_file", c.path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "input_file") {
			t.Errorf("%s: %v, want an error naming input_file and saying %q", name, err, c.want)
		}
	}
	// An extra root lets the same file in.
	if _, err := New(data, outside).ResolveRead("input_file", secret); err != nil {
		t.Errorf("a file under an extra root: %v", err)
	}
}

// A relative data dir still gives absolute paths (results name files by
// absolute path, and confinement compares absolute paths).
func TestRelativeDataDir(t *testing.T) {
	t.Chdir(t.TempDir())
	ws := New("data")
	if !filepath.IsAbs(ws.Root) {
		t.Fatalf("root %q is relative", ws.Root)
	}
	dir, err := ws.ForCall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "a.inp")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ws.ResolveRead("mesh_file", f); err != nil || got != f {
		t.Errorf("a file inside the workspace: %q, %v", got, err)
	}
}
