package mcpserver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ClassLimits bound what one caller of a class (one MCP session, or one
// remote address on /rpc) may ask of the server. A zero field is no limit.
type ClassLimits struct {
	// Running is how many of the caller's calls run at once; the rest
	// wait their turn in the caller's queue.
	Running int
	// Queued is how many calls the caller may have running or waiting;
	// one more is refused at once as retryable, never left to hang.
	Queued int
	// Rate is calls per second the caller may start, with bursts of up to
	// Burst (Rate when unset); a call over it is refused as retryable.
	Rate  float64
	Burst int
}

// Limits are the server's call limits: a global bound on running calls
// and each caller class's own (spec 003's local, remote, untrusted).
type Limits struct {
	// MaxRunning is how many tools/call run at once on the whole server.
	MaxRunning int
	Classes    map[string]ClassLimits
}

// DefaultMaxRunning is how many calls run at once on the whole server:
// above the 32 clients of the throughput benchmark, each of whose calls
// runs at once; past it calls wait, each caller in turn.
const DefaultMaxRunning = 64

// DefaultClassLimits are the limits of a class nobody configured. Every
// caller runs two calls at once (on one Temporal the calls of all callers
// share, more from one caller is what slows everyone else's); the engineer
// at the keyboard is not otherwise limited; a verified remote caller may
// queue a full batch (MaxBatch) and start 20 calls a second; an
// unidentified one half the batch, at 5 a second.
var DefaultClassLimits = map[string]ClassLimits{
	CallerLocal:     {Running: 2},
	CallerRemote:    {Running: 2, Queued: MaxBatch, Rate: 20, Burst: MaxBatch},
	CallerUntrusted: {Running: 2, Queued: MaxBatch / 2, Rate: 5, Burst: MaxBatch / 2},
}

func (l Limits) withDefaults() Limits {
	if l.MaxRunning <= 0 {
		l.MaxRunning = DefaultMaxRunning
	}
	classes := map[string]ClassLimits{}
	for c, d := range DefaultClassLimits {
		classes[c] = d
	}
	for c, given := range l.Classes {
		classes[c] = given
	}
	l.Classes = classes
	return l
}

// of is a class's limits; an unknown class gets the untrusted ones.
func (l Limits) of(class string) ClassLimits {
	if c, ok := l.Classes[class]; ok {
		return c
	}
	return l.Classes[CallerUntrusted]
}

// ParseClassLimits reads "running=4,queued=100,rate=20,burst=100" (any of
// the four, in any order) over the class's defaults; "0" lifts a limit.
func ParseClassLimits(class, spec string) (ClassLimits, error) {
	c, ok := DefaultClassLimits[class]
	if !ok {
		return c, fmt.Errorf("no caller class %q: the classes are %s, %s and %s", class, CallerLocal, CallerRemote, CallerUntrusted)
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, found := strings.Cut(part, "=")
		n, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if !found || err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
			return c, fmt.Errorf("%s limits %q: %q is not name=number (running, queued, rate, burst; 0 for no limit)", class, spec, part)
		}
		switch strings.TrimSpace(key) {
		case "running":
			c.Running = int(n)
		case "queued":
			c.Queued = int(n)
		case "rate":
			c.Rate = n
		case "burst":
			c.Burst = int(n)
		default:
			return c, fmt.Errorf("%s limits %q: no limit named %q; give running, queued, rate or burst", class, spec, key)
		}
	}
	return c, nil
}

// String is the limits as ParseClassLimits reads them.
func (c ClassLimits) String() string {
	return fmt.Sprintf("running=%d,queued=%d,rate=%g,burst=%d", c.Running, c.Queued, c.Rate, c.Burst)
}

// rateBuckets are each caller's token bucket for its class's Rate.
type rateBuckets struct {
	mu      sync.Mutex
	buckets map[string]*tokenBucket
}

type tokenBucket struct {
	tokens float64
	at     time.Time
}

// take spends one call of key's budget, or says how long until one is
// free. Buckets that have refilled are dropped, so idle callers cost
// nothing.
func (r *rateBuckets) take(key string, c ClassLimits, now time.Time) (wait time.Duration, ok bool) {
	if c.Rate <= 0 {
		return 0, true
	}
	burst := float64(c.Burst)
	if burst < 1 {
		burst = math.Max(c.Rate, 1)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buckets == nil {
		r.buckets = map[string]*tokenBucket{}
	}
	b := r.buckets[key]
	if b == nil {
		b = &tokenBucket{tokens: burst, at: now}
		r.buckets[key] = b
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.at).Seconds()*c.Rate)
	b.at = now
	if len(r.buckets) > 1024 {
		r.forgetFull(burst, c.Rate, now)
	}
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / c.Rate * float64(time.Second)), false
	}
	b.tokens--
	return 0, true
}

// forgetFull drops the buckets that would be full by now.
func (r *rateBuckets) forgetFull(burst, rate float64, now time.Time) {
	for k, b := range r.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*rate >= burst {
			delete(r.buckets, k)
		}
	}
}
