package hostile

import (
	"errors"
	"testing"
)

// recorder is a testing.TB that keeps its errors instead of failing.
type recorder struct {
	testing.TB
	errors  int
	cleanup []func()
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }
func (r *recorder) Cleanup(f func())      { r.cleanup = append(r.cleanup, f) }
func (r *recorder) runCleanup() {
	for _, f := range r.cleanup {
		f()
	}
}

func TestTallyFailsOnAnythingThatGotThrough(t *testing.T) {
	r := &recorder{TB: t}
	tl := New(r, "example")
	tl.Check("held", nil)
	tl.Check("escaped", errors.New("read /etc/hostname"))
	r.runCleanup()
	if tried, held, failed := tl.Counts(); tried != 2 || held != 1 || failed != 1 {
		t.Errorf("counts %d/%d/%d, want 2/1/1", tried, held, failed)
	}
	if r.errors != 1 {
		t.Errorf("%d errors reported, want 1 (the escape)", r.errors)
	}
}

func TestTallyThatTriedNothingFails(t *testing.T) {
	r := &recorder{TB: t}
	New(r, "empty")
	r.runCleanup()
	if r.errors != 1 {
		t.Errorf("an empty catalogue reported %d errors, want 1", r.errors)
	}
}
