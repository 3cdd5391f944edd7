package approvals

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/metaforge/metaforge/workflows"
)

// Tracker is told of the holds this process starts and sees end, so a
// listing need not read every held workflow from visibility each time.
type Tracker interface {
	// Started records a hold whose workflow has started.
	Started(h HeldCall)
	// Ended records a hold known to be over: decided here or elsewhere,
	// timed out, or its call gone.
	Ended(approvalID string)
}

// DefaultRefresh is how old the visibility read behind a listing may be
// (Index.Refresh).
const DefaultRefresh = 5 * time.Second

// Lag allowances. A hold this process started is listed before
// visibility shows it, until a read that began startedLag after its start
// leaves it out (it ended: decided elsewhere, or timed out). A hold this
// process saw end stays hidden for endedLag, however late visibility
// catches up with the end.
const (
	startedLag = 5 * time.Second
	endedLag   = 30 * time.Second
)

// Index is the approvals queue as a server lists it: one visibility read
// of the pending holds (the memo carries each one's Ask), kept in step by
// the holds this process starts and the decisions it applies, and read
// again when it is older than Refresh. A listing is then a copy of a
// small map, not a visibility query per request.
//
// How current it is: a hold this process starts or decides is listed or
// dropped at once; a hold whose window ended is dropped at once (its
// ExpiresAt); a decision made by another process, or a hold started by
// one, shows within Refresh, plus startedLag for a hold this process
// started (its waiting call also notices the end within its next check,
// at most 10 s). Nothing is lost across a restart of the process: the
// holds live in Temporal, and a new Index reads them on its first use.
type Index struct {
	Queue Queue
	// Refresh bounds the age of the visibility read (DefaultRefresh).
	Refresh time.Duration

	mu      sync.Mutex
	visible map[string]HeldCall
	readAt  time.Time // when the read behind visible began; zero: never read
	started map[string]startedHold
	ended   map[string]time.Time
	// reading is closed when the read in flight ends; nil when none.
	reading chan struct{}
	readErr error
}

type startedHold struct {
	h  HeldCall
	at time.Time
}

// List returns the pending holds in the queue under f, oldest first,
// reading visibility again first when the last read is older than Refresh.
func (x *Index) List(ctx context.Context, f Filter) ([]HeldCall, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if err := x.fresh(ctx); err != nil {
		return nil, err
	}
	now := time.Now()
	x.mu.Lock()
	out := make([]HeldCall, 0, len(x.visible)+len(x.started))
	keep := func(h HeldCall) {
		if _, over := x.ended[h.ApprovalID]; over || !now.Before(h.ExpiresAt) || !f.matches(h) {
			return
		}
		out = append(out, h)
	}
	for _, h := range x.visible {
		keep(h)
	}
	for id, s := range x.started {
		if _, seen := x.visible[id]; !seen {
			keep(s.h)
		}
	}
	x.mu.Unlock()
	sortHeld(out)
	return out, nil
}

// Decide applies a decision through the queue; a hold it finds over
// leaves the index at once.
func (x *Index) Decide(ctx context.Context, approvalID string, d workflows.Decision) (workflows.HoldState, error) {
	state, err := x.Queue.Decide(ctx, approvalID, d)
	if err == nil || errors.Is(err, ErrNotPending) || errors.Is(err, ErrNoSuchHold) {
		x.Ended(approvalID)
	}
	return state, err
}

// Started lists a hold this process started. A hold put to its client
// inline is not in the queue, so it is not listed.
func (x *Index) Started(h HeldCall) {
	if h.Route == workflows.RouteElicitation {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.started == nil {
		x.started = map[string]startedHold{}
	}
	x.started[h.ApprovalID] = startedHold{h: h, at: time.Now()}
}

// Ended drops a hold this process knows is over.
func (x *Index) Ended(approvalID string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ended == nil {
		x.ended = map[string]time.Time{}
	}
	x.ended[approvalID] = time.Now()
	delete(x.started, approvalID)
}

// Load reads the pending holds from visibility, unless a read younger than
// Refresh has been made.
func (x *Index) Load(ctx context.Context) error { return x.fresh(ctx) }

// fresh reads visibility again when the last read is older than Refresh.
// Concurrent listings share one read; the read is not cut short by the
// context of the listing that started it.
func (x *Index) fresh(ctx context.Context) error {
	refresh := x.Refresh
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	x.mu.Lock()
	if !x.readAt.IsZero() && time.Since(x.readAt) < refresh {
		x.mu.Unlock()
		return nil
	}
	if wait := x.reading; wait != nil {
		x.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.readErr
	}
	done := make(chan struct{})
	x.reading = done
	x.mu.Unlock()

	began := time.Now()
	readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	held, err := x.Queue.List(readCtx, Filter{})
	cancel()

	x.mu.Lock()
	defer x.mu.Unlock()
	x.reading, x.readErr = nil, err
	close(done)
	if err != nil {
		return err
	}
	x.visible = make(map[string]HeldCall, len(held))
	for _, h := range held {
		x.visible[h.ApprovalID] = h
	}
	x.readAt = began
	for id, s := range x.started {
		if s.at.Before(began.Add(-startedLag)) {
			delete(x.started, id)
		}
	}
	for id, at := range x.ended {
		if at.Before(began.Add(-endedLag)) {
			delete(x.ended, id)
		}
	}
	return nil
}

// sortHeld orders holds oldest first, ties by id, so a page cursor
// (held_since, approval_id) names one place in the order.
func sortHeld(held []HeldCall) {
	sort.Slice(held, func(i, j int) bool {
		if !held[i].HeldSince.Equal(held[j].HeldSince) {
			return held[i].HeldSince.Before(held[j].HeldSince)
		}
		return held[i].ApprovalID < held[j].ApprovalID
	})
}
