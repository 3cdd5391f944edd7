package workspace

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

// The path-traversal and link corpus: each path is allowed or refused for
// reading and for writing as the confinement rules say (inside a read or
// write root after links are resolved, no ../ out of it), and a
// refusal is an invalid-params error naming the roots it was judged by.
func TestConfinementCorpus(t *testing.T) {
	base := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{base}, parts...)...) }
	// raw keeps .. where filepath.Join would clean it away.
	raw := func(parts ...string) string { return base + "/" + strings.Join(parts, "/") }
	work, out := p("work"), p("out") // the read root and the write root
	for _, d := range []string{work, out, p("work2"), p("out2"), p("data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{p("work", "in.txt"), p("out", "prev.txt"), p("work2", "secret.txt"), p("out2", "x.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		p("work", "link-out"):    p("work2", "secret.txt"),
		p("work", "dangling"):    p("nowhere", "x"),
		p("out", "link-out"):     p("work2", "secret.txt"),
		p("out", "dangling"):     p("nowhere", "y"),
		p("out", "dir-out"):      p("work2"),
		p("work", "link-in"):     p("work", "in.txt"),
		p("work", "dangling-in"): p("work", "gone.txt"),
		p("out", "dangling-in"):  p("out", "gone.txt"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	ws := New(p("data"))
	ws.Confine([]string{work}, []string{out})
	call, err := ws.ForCall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(call, "mesh.inp"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	const ok = ""
	for _, c := range []struct {
		name, path string
		write      bool
		want       string // "" allowed, else part of the refusal
	}{
		{"a file in the read root", p("work", "in.txt"), false, ok},
		{"a link inside the read root", p("work", "link-in"), false, ok},
		{"a file in the write root is readable", p("out", "prev.txt"), false, ok},
		{"the call's own file", filepath.Join(call, "mesh.inp"), false, ok},
		{"relative to the workspace", filepath.Join("calls", filepath.Base(call), "mesh.inp"), false, ok},
		{"read: ../ out of the workspace", "../../work2/secret.txt", false, "outside the allowed roots for reading"},
		{"read: ../ through the read root", raw("work", "..", "work2", "secret.txt"), false, "outside the allowed roots for reading"},
		{"read: absolute, outside", "/etc/passwd", false, "outside the allowed roots for reading"},
		{"read: /work2 is not inside /work", p("work2", "secret.txt"), false, "outside the allowed roots for reading"},
		{"read: a link leading out", p("work", "link-out"), false, "outside the allowed roots for reading"},
		{"read: a link to nowhere outside", p("work", "dangling"), false, "outside the allowed roots for reading"},
		{"read: a link to nowhere inside", p("work", "dangling-in"), false, "does not exist"},
		{"read: .. below a missing folder", raw("work", "missing", "..", "in.txt"), false, "does not exist"},

		{"a new file in the write root", p("out", "new.txt"), true, ok},
		{"a new file in a new folder of the write root", p("out", "sub", "new.txt"), true, ok},
		{"an existing file in the write root", p("out", "prev.txt"), true, ok},
		{"a plain name in the call's folder", "result.step", true, ok},
		{"write: the read root is not writable", p("work", "new.txt"), true, "outside the allowed roots for writing"},
		{"write: ../ out of the call's folder", "../../../../out2/x.txt", true, "outside the allowed roots for writing"},
		{"write: absolute, outside", "/etc/metaforge-test", true, "outside the allowed roots for writing"},
		{"write: /out2 is not inside /out", p("out2", "x.txt"), true, "outside the allowed roots for writing"},
		{"write: a link leading out", p("out", "link-out"), true, "outside the allowed roots for writing"},
		{"write: a folder link leading out", p("out", "dir-out", "new.txt"), true, "outside the allowed roots for writing"},
		{"write: a link to nowhere outside", p("out", "dangling"), true, "outside the allowed roots for writing"},
		{"write: a link to nowhere inside", p("out", "dangling-in"), true, "leads nowhere"},
		{"write: .. below a missing folder", raw("out", "missing", "..", "new.txt"), true, ".. below"},
		{"write: .. below a missing folder, back in", raw("out", "missing", "..", "..", "out", "new.txt"), true, ".. below"},
		{"write: nearest existing folder outside", p("elsewhere", "sub", "new.txt"), true, "outside the allowed roots for writing"},
		{"write: a folder", p("out"), true, "is a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got string
			var err error
			if c.write {
				got, err = ws.ResolveWrite(call, "output_file", c.path)
			} else {
				got, err = ws.ResolveRead("input_file", c.path)
			}
			if c.want == ok {
				if err != nil {
					t.Fatalf("%s: %v", c.path, err)
				}
				if !filepath.IsAbs(got) {
					t.Errorf("%s resolved to %q, not an absolute path", c.path, got)
				}
				return
			}
			var pe *protocol.Error
			if err == nil || !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
				t.Fatalf("%s: %v (resolved to %q), want an invalid-params refusal", c.path, err, got)
			}
			msg := err.Error()
			root := work // a read refusal names the read roots
			if c.write {
				root = out
			}
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "output_file") && !strings.Contains(msg, "input_file") {
				t.Errorf("%s: %q, want it to say %q and name the argument", c.path, msg, c.want)
			}
			if strings.Contains(c.want, "outside") && !strings.Contains(msg, root) {
				t.Errorf("%s: %q does not name the root %s", c.path, msg, root)
			}
		})
	}
}

// Without read or write roots, reads stay where they were (the workspace
// and Extra) and writes go only to the call's own folder.
func TestUnconfined(t *testing.T) {
	base := t.TempDir()
	extra, other := filepath.Join(base, "extra"), filepath.Join(base, "other")
	for _, d := range []string{extra, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := New(filepath.Join(base, "data"), extra)
	if ws.Confined {
		t.Fatal("a workspace without roots is unconfined")
	}
	call, err := ws.ForCall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ResolveRead("f", filepath.Join(extra, "f.txt")); err != nil {
		t.Errorf("METAFORGE_ALLOWED_ROOTS stays readable: %v", err)
	}
	if _, err := ws.ResolveRead("f", filepath.Join(other, "f.txt")); err == nil {
		t.Error("a folder outside the roots is readable")
	}
	if _, err := ws.ResolveWrite(call, "f", "out.step"); err != nil {
		t.Errorf("the call's own folder is writable: %v", err)
	}
	if _, err := ws.ResolveWrite(call, "f", filepath.Join(extra, "new.txt")); err == nil || !strings.Contains(err.Error(), "no write roots") {
		t.Errorf("a read root is not writable, and the refusal says there are no write roots: %v", err)
	}
	// Confined, the roots replace Extra.
	ws.Confine([]string{other}, nil)
	if _, err := ws.ResolveRead("f", filepath.Join(extra, "f.txt")); err == nil {
		t.Error("confined, METAFORGE_ALLOWED_ROOTS gives way to the read roots")
	}
	if _, err := ws.ResolveRead("f", filepath.Join(other, "f.txt")); err != nil {
		t.Errorf("a read root is readable: %v", err)
	}
}

// A path that leads outside the roots gets one answer whatever is there:
// an existing file, a missing one, a folder, a link to either, a link
// chain, /proc. The refusal names the roots (which help an honest caller)
// but never where a link points nor whether the target exists; that goes
// to the server's log, at warn.
func TestOutsideGetsOneAnswer(t *testing.T) {
	base := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{base}, parts...)...) }
	for _, d := range []string{p("work"), p("out"), p("secret", "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p("secret", "exists.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"to-file":    p("secret", "exists.txt"),
		"to-missing": p("secret", "missing.txt"),
		"to-dir":     p("secret", "dir"),
		"to-link":    p("work", "to-file"),
		"relative":   "../secret/exists.txt",
	}
	for _, dir := range []string{"work", "out"} {
		for name, target := range links {
			if err := os.Symlink(target, p(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	ws := New(p("data"))
	ws.Confine([]string{p("work")}, []string{p("out")})
	call, err := ws.ForCall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, write := range []bool{false, true} {
		dir := "work"
		if write {
			dir = "out"
		}
		paths := []string{
			p("secret", "exists.txt"), p("secret", "missing.txt"), p("secret", "dir"), p("secret", "nodir", "x.txt"),
			p(dir, "to-file"), p(dir, "to-missing"), p(dir, "to-dir"), p(dir, "to-link"), p(dir, "relative"),
			p(dir, "to-dir", "x.txt"), p(dir, "..", "secret", "exists.txt"), "/proc/self/environ", "/etc/hostname", "/nonexistent/x",
		}
		answers := map[string][]string{}
		for _, path := range paths {
			var err error
			if write {
				_, err = ws.ResolveWrite(call, "output_file", path)
			} else {
				_, err = ws.ResolveRead("input_file", path)
			}
			if err == nil {
				t.Errorf("write=%v: %s was allowed", write, path)
				continue
			}
			msg := strings.Replace(err.Error(), strconv.Quote(path), "PATH", 1)
			answers[msg] = append(answers[msg], path)
			if strings.Contains(msg, p("secret")) {
				t.Errorf("write=%v: the refusal of %s tells where it leads: %s", write, path, msg)
			}
			if !strings.Contains(msg, p(dir)) {
				t.Errorf("write=%v: the refusal of %s does not name the allowed roots: %s", write, path, msg)
			}
		}
		if len(answers) != 1 {
			t.Errorf("write=%v: outside paths got %d different answers, want one:", write, len(answers))
			for msg, ps := range answers {
				t.Logf("  %q for %v", msg, ps)
			}
		}
	}
	if !strings.Contains(logged.String(), "level=WARN") || !strings.Contains(logged.String(), p("secret", "exists.txt")) {
		t.Errorf("the server log does not say where a refused path led:\n%s", logged.String())
	}
}
