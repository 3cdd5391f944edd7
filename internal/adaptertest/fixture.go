// Package adaptertest is a test fixture: an adapter named "fixture" whose
// tools misbehave on request (refuse, sleep, fail transiently, count
// attempts), for tests of the durable call path. It is never registered by
// the metaforge binary.
package adaptertest

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Fixture is the test-fixture adapter. The zero value is ready to use.
type Fixture struct {
	mu       sync.Mutex
	attempts map[string]int // per "key" argument
}

// Attempts is how many times a tool ran for the given key.
func (f *Fixture) Attempts(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts[key]
}

func (f *Fixture) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.attempts == nil {
		f.attempts = map[string]int{}
	}
	f.attempts[key]++
	return f.attempts[key]
}

// ID is "fixture".
func (f *Fixture) ID() string { return "fixture" }

// Version of the fixture.
func (f *Fixture) Version() string { return "test" }

// keyed is every fixture tool's input schema, generated from fixtureArgs.
var keyed = adapters.SchemaFor[fixtureArgs](
	adapters.At("sleep_ms", adapters.Minimum(0)),
	adapters.At("fail_times", adapters.Minimum(0)),
)

// Manifests: fixture.echo, .refuse, .sleep (idempotent), .sleep_once (not
// idempotent), .flaky (idempotent, fails transiently fail_times times),
// .timeout, .local_sleep (idempotent and short, so a call runs it as a
// local activity of its workflow; it sleeps sleep_ms all the same, for a
// test to stop its worker mid-run), and two writes for approval holds:
// .write (a plain write, counted per key) and .sign_off (a human-authority
// write that reports who approved it).
func (f *Fixture) Manifests() []adapters.Manifest {
	m := func(name string, idempotent bool, timeout int) adapters.Manifest {
		return adapters.Manifest{ToolID: "fixture." + name, AdapterID: "fixture", Name: name, Description: "test fixture: " + name,
			Capability: "test", InputSchema: keyed, Idempotent: idempotent, TimeoutSeconds: timeout}
	}
	return []adapters.Manifest{
		m("echo", true, 30),
		m("refuse", true, 30),
		m("sleep", true, 60),
		m("sleep_once", false, 60),
		m("flaky", true, 30),
		m("timeout", true, 1),
		m("write", false, 30),
		m("sign_off", false, 30),
		short(m("local_sleep", true, 30)),
	}
}

func short(m adapters.Manifest) adapters.Manifest {
	m.Short = true
	return m
}

type fixtureArgs struct {
	Key       string `json:"key,omitempty"`
	SleepMs   int    `json:"sleep_ms,omitempty"`
	FailTimes int    `json:"fail_times,omitempty"`
}

// Call runs a fixture tool.
func (f *Fixture) Call(ctx context.Context, toolID string, raw json.RawMessage) (*adapters.Result, error) {
	var a fixtureArgs
	if err := adapters.DecodeArguments(raw, &a); err != nil {
		return nil, err
	}
	n := f.count(a.Key)
	sleep := func(d time.Duration) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	switch toolID {
	case "fixture.echo", "fixture.write":
	case "fixture.sign_off":
		ci := adapters.CallInfoFrom(ctx)
		data, _ := json.Marshal(map[string]any{"key": a.Key, "attempt": n, "tool": toolID,
			"signed_by": ci.ApprovedBy, "signer_verified": ci.ApproverVerified})
		return &adapters.Result{Data: data}, nil
	case "fixture.refuse":
		return nil, protocol.Refusal("fixture refuses key %q; pass another key", a.Key)
	case "fixture.sleep", "fixture.sleep_once", "fixture.local_sleep":
		if err := sleep(time.Duration(a.SleepMs) * time.Millisecond); err != nil {
			return nil, err
		}
	case "fixture.flaky":
		if n <= a.FailTimes {
			return nil, protocol.Transient("fixture transient failure %d of %d", n, a.FailTimes)
		}
	case "fixture.timeout":
		if err := sleep(time.Hour); err != nil {
			return nil, err
		}
	default:
		return nil, protocol.Invalid("unknown fixture tool %s", toolID)
	}
	data, _ := json.Marshal(map[string]any{"key": a.Key, "attempt": n, "tool": toolID})
	return &adapters.Result{Data: data}, nil
}

// Health always answers.
func (f *Fixture) Health(ctx context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{AdapterID: "fixture", Status: "healthy", Version: "test", ToolsAvailable: len(f.Manifests())}, nil
}

var _ adapters.Adapter = (*Fixture)(nil)
