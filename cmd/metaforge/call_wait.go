package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/metaforge/metaforge/runs"
)

// callWaitEvery is how often call --wait reads the call.
const callWaitEvery = 500 * time.Millisecond

// callRunning is the state of a call that has not ended: under way, or
// held for a person's decision.
const callRunning = "running"

// waitForCall is call ID --wait: it reads the call (GET /v1/calls/{id})
// until it has ended; the caller then shows it. While it waits,
// errOut shows the tool, the time spent and a bar that sweeps (a solver
// reports no fraction done) when it is a terminal. Interrupted, it stops
// waiting; the call runs on, as a workflow does.
func waitForCall(ctx context.Context, c *serveClient, id string, errOut io.Writer) error {
	started := time.Now()
	drawn := false
	defer func() {
		if drawn {
			fmt.Fprint(errOut, "\r\x1b[K")
		}
	}()
	for frame := 0; ; frame++ {
		var d runs.CallDetail
		if err := c.do(ctx, "GET", "/v1/calls/"+url.PathEscape(id), nil, &d); err != nil {
			return err
		}
		if d.State != callRunning {
			return nil
		}
		if isTerminal(errOut) {
			fmt.Fprintf(errOut, "\r%s\x1b[K", callProgressLine(d, frame, time.Since(started)))
			drawn = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for call %s (it runs on; metaforge call %s shows it): %w", id, id, ctx.Err())
		case <-time.After(callWaitEvery):
		}
	}
}

// sweepWidth is the sweeping block's width in the bar.
const sweepWidth = 6

// callProgressLine is one frame of a running call's bar: a block that
// moves one step a frame (back and forth), the tool, and the time spent.
func callProgressLine(d runs.CallDetail, frame int, elapsed time.Duration) string {
	span := barWidth - sweepWidth
	pos := frame % (2 * span)
	if pos > span {
		pos = 2*span - pos
	}
	sweep := strings.Repeat(" ", pos) + strings.Repeat("#", sweepWidth) + strings.Repeat(" ", span-pos)
	return fmt.Sprintf("[%s] %s %s %s  %.1fs", sweep, d.CallID, d.ToolID, d.State, elapsed.Seconds())
}
