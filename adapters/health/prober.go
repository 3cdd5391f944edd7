package health

import (
	"context"
	"time"
)

// restIntervals is how many intervals the prober runs on with nobody
// asking: a probe can start Python (CadQuery's import costs seconds of CPU),
// so a server nobody asks for its health does not probe every few seconds
// for ever; the next caller finds the measurement old and probes first.
const restIntervals = 4

// prober is the background loop that keeps the measurements fresh: all
// of them at three quarters of Interval, and what was found down again
// after RetryAfter, doubling while it stays down, for as long as somebody
// asked within restIntervals intervals.
type prober struct {
	wake chan struct{}
}

// poke tells the loop a flight has landed, so it schedules a retry of what
// was found down at once rather than at its next timer.
func (p *prober) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start starts the background prober, or keeps it running: Check and
// Refresh call it, so a process never asked for its health probes nothing;
// serve calls it at start-up so its first /healthz finds a probe under way.
func (c *Checker) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = time.Now()
	if c.prober != nil || c.closed {
		return
	}
	p := &prober{wake: make(chan struct{}, 1)}
	c.prober = p
	ctx := c.lifeLocked()
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		c.probeLoop(ctx, p)
	}()
}

// Close stops the prober and any probe under way, and waits for them:
// no goroutine of the checker outlives it (but for a wedged adapter's
// Health, which ignores its context). Later checks answer the last
// measurement without probing.
func (c *Checker) Close() {
	c.mu.Lock()
	c.closed = true
	if c.endLife != nil {
		c.endLife()
	}
	c.mu.Unlock()
	c.running.Wait()
}

// lifeLocked is the context probes run in: not a caller's, since every
// caller shares the probe, and ended by Close.
func (c *Checker) lifeLocked() context.Context {
	if c.life == nil {
		c.life, c.endLife = context.WithCancel(context.Background())
	}
	return c.life
}

// backoff is the wait before the n-th probe again of something found down.
func (c *Checker) backoff(n int) time.Duration {
	d := c.RetryAfter
	if d <= 0 {
		d = time.Second
	}
	for ; n > 1 && d < c.interval(); n-- {
		d *= 2
	}
	return min(d, c.interval())
}

func (c *Checker) probeLoop(ctx context.Context, p *prober) {
	var (
		landed, failures int
		retryAt          time.Time
	)
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		list := c.Registry.Adapters()
		now := time.Now()
		down := c.downLocked(list)
		if c.landed != landed { // a flight landed since we last looked
			landed = c.landed
			if down {
				failures++
				retryAt = now.Add(c.backoff(failures))
			} else {
				failures = 0
			}
		}
		oldest, measured := c.oldestLocked(list)
		due := oldest.Add(c.interval() - c.interval()/4)
		if !measured {
			due = now
		}
		var f *flight
		switch {
		case c.inflight != nil:
			f = c.inflight
		case now.Sub(c.asked) >= restIntervals*c.interval():
			c.prober = nil // the next Start runs another
			c.mu.Unlock()
			return
		case !now.Before(due):
			f = c.beginLocked(list, true)
		case down && !now.Before(retryAt):
			f = c.beginLocked(list, false)
		}
		c.mu.Unlock()

		if f != nil {
			select {
			case <-ctx.Done():
				return
			case <-f.done:
			}
			continue
		}
		next := due
		if down && retryAt.Before(next) {
			next = retryAt
		}
		timer := time.NewTimer(time.Until(next))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		case <-p.wake:
			timer.Stop()
		}
	}
}
