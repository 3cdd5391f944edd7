package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/runs"
)

// runWaitEvery is how often run start --wait reads the run's state.
const runWaitEvery = 500 * time.Millisecond

// waitAtGate is run start --wait: it reads the run until it waits at a
// gate for a person's decision, or ends, and says which on out. While it
// waits, errOut shows the ingest's kind of bar (phases done of phases, the
// phase and its state, and the time spent) when it is a terminal.
func waitAtGate(ctx context.Context, svc *runs.Service, runID string, out, errOut io.Writer) error {
	started := time.Now()
	drawn := false
	defer func() {
		if drawn {
			fmt.Fprint(errOut, "\r\x1b[K")
		}
	}()
	for {
		st, err := svc.RunState(ctx, runID)
		if err != nil {
			return fmt.Errorf("read run %s while waiting for its gate: %w (metaforge run status %s reads it again)", runID, err, runID)
		}
		if said, done := runWaitEnd(st); done {
			if drawn {
				fmt.Fprint(errOut, "\r\x1b[K")
				drawn = false
			}
			_, err := fmt.Fprintln(out, said)
			return err
		}
		if isTerminal(errOut) {
			fmt.Fprintf(errOut, "\r%s\x1b[K", runProgressLine(st, time.Since(started)))
			drawn = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for run %s (it runs on; metaforge run status %s shows where it is): %w", runID, runID, ctx.Err())
		case <-time.After(runWaitEvery):
		}
	}
}

// runWaitEnd says whether the wait is over: the run waits at a gate (what
// to decide, and how) or has ended (how).
func runWaitEnd(st flows.RunState) (string, bool) {
	switch st.Status {
	case flows.RunAtGate:
		g := flows.GateState{}
		if st.PhaseIndex < len(st.Phases) {
			g = st.Phases[st.PhaseIndex].Gate
		}
		var crit []string
		if g.Result != nil {
			for _, c := range g.Result.Criteria {
				crit = append(crit, c.Kind+"="+c.Status)
			}
		}
		return fmt.Sprintf("run %s waits at gate %s of phase %s (criteria: %s; allowed: %s): metaforge run decide %s --approve|--reject|--rework-to PHASE",
			st.RunID, g.Name, st.Phase, orDash(strings.Join(crit, " ")), orDash(strings.Join(g.Allowed, ",")), st.RunID), true
	case flows.RunCompletedVerified, flows.RunCompletedUnverified, flows.RunRejected:
		said := fmt.Sprintf("run %s ended: %s", st.RunID, st.Status)
		if st.Reason != "" {
			said += " (" + st.Reason + ")"
		}
		return said, true
	}
	return "", false
}

// runProgressLine is one frame of the run's bar: phases done of phases,
// the phase and its state, and the time spent.
func runProgressLine(st flows.RunState, elapsed time.Duration) string {
	n := len(st.Phases)
	phase := "-"
	if st.PhaseIndex < n {
		phase = fmt.Sprintf("%s: %s", st.Phases[st.PhaseIndex].Name, st.Phases[st.PhaseIndex].Status)
	}
	return fmt.Sprintf("[%s] phase %d/%d %s  %.1fs", bar(st.PhaseIndex, n), min(st.PhaseIndex+1, n), n, phase, elapsed.Seconds())
}
