package mcpserver

import (
	"context"
	"testing"
	"time"
)

// granted says whether a waiter's slot came within a moment.
func grantedSoon(got <-chan func()) (func(), bool) {
	select {
	case release := <-got:
		return release, true
	case <-time.After(200 * time.Millisecond):
		return nil, false
	}
}

func acquireAsync(s *scheduler, ctx context.Context, key string, limit int) <-chan func() {
	got := make(chan func(), 1)
	go func() {
		if release, err := s.acquire(ctx, key, limit); err == nil {
			got <- release
		}
	}()
	return got
}

// A caller with a hundred calls queued delays another caller's one call by
// one freed slot at most: the slot goes to the caller with fewer running.
func TestSchedulerGivesTheNextSlotToTheCallerWithFewestRunning(t *testing.T) {
	s := newScheduler(2)
	ctx := context.Background()
	var running []func()
	for range 2 {
		release, err := s.acquire(ctx, "flood", 2)
		if err != nil {
			t.Fatal(err)
		}
		running = append(running, release)
	}
	flood := make(chan func(), 100)
	for range 100 {
		go func() {
			if release, err := s.acquire(ctx, "flood", 2); err == nil {
				flood <- release
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // the flood's calls are queued first
	single := acquireAsync(s, ctx, "single", 2)
	if _, ok := grantedSoon(single); ok {
		t.Fatal("a call ran beyond the global limit of 2")
	}
	running[0]()
	release, ok := grantedSoon(single)
	if !ok {
		t.Fatal("the freed slot went to the flooding caller's queue, not to the caller with none running")
	}
	release()
	// The flood's own calls then all run, as slots free.
	running[1]()
	for i := range 100 {
		r, ok := grantedSoon(flood)
		if !ok {
			t.Fatalf("the flood's call %d never ran", i)
		}
		r()
	}
}

// A caller's own running limit holds even when the server has room, and a
// call that stops waiting gives up its place.
func TestSchedulerHoldsACallerToItsRunningLimit(t *testing.T) {
	s := newScheduler(10)
	ctx := context.Background()
	first, _ := s.acquire(ctx, "a", 1)
	waitCtx, cancel := context.WithCancel(ctx)
	second := acquireAsync(s, waitCtx, "a", 1)
	if _, ok := grantedSoon(second); ok {
		t.Fatal("a caller limited to 1 running call ran 2")
	}
	cancel()
	time.Sleep(20 * time.Millisecond)
	if n := s.admitted("a"); n != 1 {
		t.Fatalf("after a waiter gave up the caller has %d calls admitted, want 1", n)
	}
	first()
	if n := s.admitted("a"); n != 0 || len(s.callers) != 0 || s.running != 0 {
		t.Fatalf("after all ended: admitted %d, callers %d, running %d", n, len(s.callers), s.running)
	}
}
