package approvals

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/metaforge/metaforge/workflows"
)

// Tracker is told of the holds this process sees end, so its listing drops
// them before visibility catches up.
type Tracker interface {
	// Ended records a hold known to be over: decided here or elsewhere,
	// timed out, or its call gone.
	Ended(approvalID string)
}

// DefaultRefresh is how old the full visibility read behind a listing may
// be (Index.Refresh).
const DefaultRefresh = 5 * time.Second

// Lag allowances. A read of the recent holds looks back recentLag before
// the previous read began, so a hold visibility showed late (or a clock a
// little off the server's) is still found. A hold this process saw end
// stays hidden for endedLag, however late visibility catches up with it.
const (
	recentLag = 5 * time.Second
	endedLag  = 30 * time.Second
)

// quietAfter is how old a full read may be before a listing waits for the
// next one; between Refresh and quietAfter it is made in the background,
// so a page that lists every few seconds never waits for it.
const quietAfter = 30 * time.Second

// Index is the approvals queue as a server lists it, without reading every
// held workflow from visibility on each request. It keeps the pending
// holds of its last full visibility read (the memo carries each one's
// Ask), and on each listing asks visibility only for the holds started
// since its previous read, a query that returns a few rows however many
// calls are held. The full read is made again in the background when
// older than Refresh, and waited for when older than quietAfter.
//
// How current it is: a new hold, from any process, is listed as soon as
// visibility shows it (as before); a hold this process decides is dropped
// at once, and a hold whose window ended at its ExpiresAt; a hold decided
// by another process is dropped within Refresh plus one full read while
// listings come every few seconds, and at most quietAfter after the
// decision otherwise. Nothing is lost across a restart: the holds live in
// Temporal, and a new Index reads them all on its first use.
type Index struct {
	Queue Queue
	// Refresh bounds the age of the full visibility read (DefaultRefresh).
	Refresh time.Duration

	mu       sync.Mutex
	visible  map[string]HeldCall
	fullAt   time.Time // when the last full read began; zero: never
	recentAt time.Time // when the last read of either kind began
	ended    map[string]time.Time
	// reading is closed when the read in flight, begun at readBegan,
	// ends with readErr; nil when none is in flight.
	reading   chan struct{}
	readBegan time.Time
	readErr   error
	// fullReading is a full read running in the background.
	fullReading bool
}

// List returns the pending holds in the queue under f, oldest first.
func (x *Index) List(ctx context.Context, f Filter) ([]HeldCall, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if err := x.read(ctx); err != nil {
		return nil, err
	}
	now := time.Now()
	x.mu.Lock()
	out := make([]HeldCall, 0, len(x.visible))
	for id, h := range x.visible {
		if _, over := x.ended[id]; !over && now.Before(h.ExpiresAt) && f.matches(h) {
			out = append(out, h)
		}
	}
	x.mu.Unlock()
	sortHeld(out)
	return out, nil
}

// Load reads every pending hold from visibility now, as a restarted
// server does before its first listing.
func (x *Index) Load(ctx context.Context) error { return x.read(ctx) }

// Decide applies a decision through the queue; a hold it finds over
// leaves the index at once.
func (x *Index) Decide(ctx context.Context, approvalID string, d workflows.Decision) (workflows.HoldState, error) {
	state, err := x.Queue.Decide(ctx, approvalID, d)
	if err == nil || errors.Is(err, ErrNotPending) || errors.Is(err, ErrNoSuchHold) {
		x.Ended(approvalID)
	}
	return state, err
}

// Ended drops a hold this process knows is over.
func (x *Index) Ended(approvalID string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ended == nil {
		x.ended = map[string]time.Time{}
	}
	x.ended[approvalID] = time.Now()
	delete(x.visible, approvalID)
}

// read brings the index up to the moment it is called: a read begun after
// that moment, shared with concurrent listings, of the holds started
// since the previous read, or of all of them when the last full read is
// older than quietAfter (or there was none). A full read older than
// Refresh is repeated in the background. A read is not cut short by the
// context of the listing that began it.
func (x *Index) read(ctx context.Context) error {
	asked := time.Now()
	x.mu.Lock()
	for x.reading != nil {
		wait, began := x.reading, x.readBegan
		x.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		x.mu.Lock()
		if !began.Before(asked) {
			err := x.readErr
			x.mu.Unlock()
			return err
		}
	}
	refresh := x.Refresh
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	age := time.Since(x.fullAt)
	full := x.fullAt.IsZero() || age >= max(quietAfter, refresh)
	if !full && age >= refresh && !x.fullReading {
		x.fullReading = true
		go x.readAll()
	}
	var since time.Time
	if !full {
		since = x.recentAt.Add(-recentLag)
	}
	done, began := make(chan struct{}), time.Now()
	x.reading, x.readBegan = done, began
	x.mu.Unlock()

	readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	held, err := x.Queue.list(readCtx, Filter{}, since)
	cancel()

	x.mu.Lock()
	defer x.mu.Unlock()
	x.reading, x.readErr = nil, err
	close(done)
	if err != nil {
		return err
	}
	if full {
		x.replace(held, began)
	} else {
		for _, h := range held {
			x.visible[h.ApprovalID] = h
		}
	}
	x.recentAt = began
	return nil
}

// readAll is the full read made in the background while listings answer
// from the index. When it fails, a later listing tries again, and once
// the last full read is older than quietAfter, one waits for it.
func (x *Index) readAll() {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	held, err := x.Queue.list(ctx, Filter{}, time.Time{})
	cancel()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fullReading = false
	if err == nil {
		x.replace(held, began)
	}
}

// replace makes a full read, begun at began, the index. A hold started
// after that moment (less the lag) may be missing from it; the reads of
// recent holds found it, so it stays. A read older than the one applied
// last changes nothing.
func (x *Index) replace(held []HeldCall, began time.Time) {
	if began.Before(x.fullAt) {
		return
	}
	visible := make(map[string]HeldCall, len(held))
	for id, h := range x.visible {
		if !h.HeldSince.Before(began.Add(-recentLag)) {
			visible[id] = h
		}
	}
	for _, h := range held {
		visible[h.ApprovalID] = h
	}
	x.visible, x.fullAt = visible, began
	for id, at := range x.ended {
		if at.Before(began.Add(-endedLag)) {
			delete(x.ended, id)
		}
	}
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
