package mcpserver

import (
	"context"
	"sync"
)

// scheduler shares the server's running calls fairly between callers: a
// call runs when its caller has fewer than its class's running limit and
// the server fewer than its global one, and otherwise waits in its
// caller's FIFO queue. A freed slot goes to the waiting caller with the
// fewest calls running, so a caller with a hundred queued calls delays
// another caller's one call by at most the one slot being freed.
type scheduler struct {
	mu      sync.Mutex
	global  int // running calls the whole server allows
	running int
	callers map[string]*callerQueue
	// order is the callers with waiting calls, oldest waiter first: ties
	// on running calls go to the caller that has waited longest.
	order []*callerQueue
}

// callerQueue is one caller's calls: how many run, which wait.
type callerQueue struct {
	key     string
	running int
	limit   int
	waiting []*slotWaiter
}

// slotWaiter is one waiting call; granted is closed when it may run.
type slotWaiter struct {
	granted chan struct{}
	ok      bool // under mu: the slot is this call's
}

func newScheduler(global int) *scheduler {
	return &scheduler{global: max(global, 1), callers: map[string]*callerQueue{}}
}

// admitted is how many calls of a caller are running or waiting.
func (s *scheduler) admitted(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.callers[key]; q != nil {
		return q.running + len(q.waiting)
	}
	return 0
}

// acquire waits for a slot for one call of the caller key, whose class
// lets it run limit calls at once. It returns release, which frees the
// slot, or ctx's error if the caller went away first.
func (s *scheduler) acquire(ctx context.Context, key string, limit int) (release func(), err error) {
	w := &slotWaiter{granted: make(chan struct{})}
	s.mu.Lock()
	q := s.callers[key]
	if q == nil {
		q = &callerQueue{key: key}
		s.callers[key] = q
	}
	q.limit = max(limit, 1)
	if len(q.waiting) == 0 {
		s.order = append(s.order, q)
	}
	q.waiting = append(q.waiting, w)
	s.grant()
	s.mu.Unlock()

	release = func() { s.release(q) }
	select {
	case <-w.granted:
		return release, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.ok { // granted while ctx ended: give the slot back
		s.releaseLocked(q)
		return nil, ctx.Err()
	}
	for i, other := range q.waiting {
		if other == w {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			break
		}
	}
	s.tidy(q)
	return nil, ctx.Err()
}

func (s *scheduler) release(q *callerQueue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked(q)
}

func (s *scheduler) releaseLocked(q *callerQueue) {
	q.running--
	s.running--
	s.grant()
	s.tidy(q)
}

// grant hands free slots to waiting calls, each to the caller with the
// fewest running, the longest-waiting caller first among equals.
func (s *scheduler) grant() {
	for s.running < s.global {
		best := -1
		for i, q := range s.order {
			if q.running < q.limit && (best < 0 || q.running < s.order[best].running) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		q := s.order[best]
		w := q.waiting[0]
		q.waiting = q.waiting[1:]
		q.running++
		s.running++
		w.ok = true
		close(w.granted)
		// The caller goes to the back of the line, behind those it served
		// before; it leaves the line when nothing of it waits.
		s.order = append(s.order[:best], s.order[best+1:]...)
		if len(q.waiting) > 0 {
			s.order = append(s.order, q)
		}
	}
}

// tidy forgets a caller with nothing running or waiting, and takes one
// with nothing waiting out of the line.
func (s *scheduler) tidy(q *callerQueue) {
	if len(q.waiting) == 0 {
		for i, o := range s.order {
			if o == q {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
	if q.running == 0 && len(q.waiting) == 0 && s.callers[q.key] == q {
		delete(s.callers, q.key)
	}
}
