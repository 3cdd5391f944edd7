// Package hostile counts the outcomes of a catalogue of hostile inputs
// (frames, paths, writes, decisions) tried against MetaForge, and prints one
// line per area that `make hostile` collects: how many were tried, how many
// the server held (refused, confined, kept waiting for a person), and how
// many got through. A catalogue passes only when nothing got through.
package hostile

import (
	"fmt"
	"sync"
	"testing"
)

// Tally is one area's count. Its test fails when any attempt got through,
// and prints "hostile <area>: tried N held H failed F" when it ends.
type Tally struct {
	t      testing.TB
	area   string
	mu     sync.Mutex
	tried  int
	held   int
	failed []string
}

// New starts the tally of area for t.
func New(t testing.TB, area string) *Tally {
	t.Helper()
	tl := &Tally{t: t, area: area}
	t.Cleanup(tl.report)
	return tl
}

// Held records an attempt the server held.
func (tl *Tally) Held(name string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.tried++
	tl.held++
}

// Failed records an attempt that got through, and why that is a defect.
func (tl *Tally) Failed(name, why string, args ...any) {
	tl.t.Helper()
	tl.mu.Lock()
	tl.tried++
	tl.failed = append(tl.failed, name)
	tl.mu.Unlock()
	tl.t.Errorf("hostile %s: %s got through: %s", tl.area, name, fmt.Sprintf(why, args...))
}

// Check records one attempt: held when err is nil, failed with err's
// message otherwise.
func (tl *Tally) Check(name string, err error) {
	tl.t.Helper()
	if err != nil {
		tl.Failed(name, "%v", err)
		return
	}
	tl.Held(name)
}

// Counts is what was tried, held and failed so far.
func (tl *Tally) Counts() (tried, held, failed int) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.tried, tl.held, len(tl.failed)
}

func (tl *Tally) report() {
	tried, held, failed := tl.Counts()
	if tried == 0 {
		tl.t.Errorf("hostile %s: the catalogue tried nothing", tl.area)
	}
	// Printed, not logged: `make hostile` runs the catalogue with -v and
	// keeps these lines whatever the test's verbosity.
	fmt.Printf("hostile %-24s tried %5d  held %5d  failed %d\n", tl.area+":", tried, held, failed)
}
