package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The token is 32 random bytes, readable only by this user, new each start,
// and gone when serve stops.
func TestOperatorTokenIsPrivateAndNewEachStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, path, err := writeOperatorToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "operator-token") || len(first) != 64 {
		t.Fatalf("token %q at %s; want 64 hex digits at <data-dir>/operator-token", first, path)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("the token file's mode is %04o, want 0600", perm)
	}
	if got, err := readOperatorToken(dir); err != nil || got != first {
		t.Fatalf("readOperatorToken: %q, %v; want the token written", got, err)
	}
	second, _, err := writeOperatorToken(dir)
	if err != nil || second == first {
		t.Fatalf("a second start wrote %q (%v); want a new token", second, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the data dir holds %d files after two starts, want only the token: %v", len(entries), entries)
	}
	removeOperatorToken(path, first) // another serve's token: kept
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("removing an older token deleted the current one: %v", err)
	}
	removeOperatorToken(path, second)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the token outlived its serve: %v", err)
	}
}

// A symlink planted where the token goes is replaced, not written through.
func TestOperatorTokenReplacesASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, operatorTokenPath(dir)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := writeOperatorToken(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "untouched" {
		t.Fatalf("the token was written through the symlink into %s: %q", target, b)
	}
	if info, err := os.Lstat(operatorTokenPath(dir)); err != nil || !info.Mode().IsRegular() {
		t.Fatalf("the token file is not a regular file: %v %v", info, err)
	}
}

// serve refuses to start without a token file, naming it; the CLI refuses
// a token it cannot trust, saying what to do.
func TestOperatorTokenRefusals(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	ro := t.TempDir()
	if err := os.Chmod(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(ro, 0o700) })
	if _, _, err := writeOperatorToken(ro); err == nil || !strings.Contains(err.Error(), operatorTokenPath(ro)) || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("writing into a read-only data dir: %v; want a refusal naming the file and --data-dir", err)
	}

	missing := t.TempDir()
	if _, err := readOperatorToken(missing); err == nil || !strings.Contains(err.Error(), "start metaforge serve") || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("no token file: %v; want: start metaforge serve or pass --data-dir", err)
	}
	open := t.TempDir()
	if err := os.WriteFile(operatorTokenPath(open), []byte("abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readOperatorToken(open); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a token file others can read: %v; want it refused", err)
	}
}
