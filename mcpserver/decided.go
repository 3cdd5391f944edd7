package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// decisionWaiters wake a held call's wait when this server applied its
// decision (its dashboard, REST API, or an inline answer). A held call
// waits minutes; long-polling its workflow all that time cost every held
// call a stream of history polls, so a hold is waited out cheaply instead:
// woken here, or found ended by an occasional check (a decision made by
// another process, the window's end).
type decisionWaiters struct {
	mu      sync.Mutex
	waiters map[string]chan struct{}
}

func (d *decisionWaiters) wait(approvalID string) (<-chan struct{}, func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.waiters == nil {
		d.waiters = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	d.waiters[approvalID] = ch
	return ch, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.waiters[approvalID] == ch {
			delete(d.waiters, approvalID)
		}
	}
}

func (d *decisionWaiters) wake(approvalID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if ch, ok := d.waiters[approvalID]; ok {
		close(ch)
		delete(d.waiters, approvalID)
	}
}

// wakingDecider is the approvals queue as this server uses it: every
// decision it applies wakes the call that waits on it.
type wakingDecider struct {
	approvals.Decider
	wake func(approvalID string)
}

func (w wakingDecider) Decide(ctx context.Context, approvalID string, d workflows.Decision) (workflows.HoldState, error) {
	state, err := w.Decider.Decide(ctx, approvalID, d)
	w.wake(approvalID)
	return state, err
}

// awaitHeld waits for a held call: until this server applies its decision,
// its workflow is found closed, or the window (and backstop) has passed;
// then it calls decided (the hold is over: stop reporting it) and waits for
// the result.
func (s *Server) awaitHeld(ctx context.Context, in workflows.ToolCallInput, runID string, decided func()) (workflows.ToolCallResult, *jsonrpc.Error) {
	woken, stop := s.decided.wait(in.CallID)
	defer stop()
	windowEnd := time.Now().Add(time.Duration(in.Hold.WindowSeconds+in.Hold.BackstopSeconds)*time.Second + 250*time.Millisecond)
	wait := awaitRound
	for {
		next := min(wait, max(time.Until(windowEnd), 50*time.Millisecond))
		if time.Now().After(windowEnd) {
			next = wait
		}
		select {
		case <-woken:
			decided()
			return s.awaitCall(ctx, in, runID)
		case <-ctx.Done():
			decided()
			return s.awaitCall(ctx, in, runID)
		case <-time.After(next):
		}
		wait = min(wait*2, maxAwaitRound)
		if ended, err := s.opts.Engine.CallEnded(ctx, in.CallID, runID); err == nil && ended {
			// Decided elsewhere, or its window ended: no longer listed.
			if s.held != nil {
				s.held.Ended(in.CallID)
			}
			decided()
			return s.awaitCall(ctx, in, runID)
		}
	}
}
