package mcpserver

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/metaforge/metaforge/mcpserver/stdiotest"
)

// limitedServer is realServer's stack (its Temporal, workers and fixture)
// behind a server with the given limits for its local callers.
func limitedServer(t *testing.T, c ClassLimits) *Server {
	base := realServer(t)
	opts := base.opts
	opts.Limits = Limits{Classes: map[string]ClassLimits{CallerLocal: c}}
	return New(opts)
}

// refusedForLimit checks answer is the retryable limit error: -32003
// TOOL_UNAVAILABLE with retryable true and retry_after seconds in _meta.
func refusedForLimit(t *testing.T, answer []byte, limit string) {
	t.Helper()
	var resp struct {
		Error *struct {
			Code int `json:"code"`
			Data struct {
				ErrorType string `json:"error_type"`
				Retryable bool   `json:"retryable"`
				Limit     string `json:"limit"`
				Meta      struct {
					RetryAfter int `json:"retry_after"`
				} `json:"_meta"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil || resp.Error == nil {
		t.Fatalf("answer %s is not an error (%v)", answer, err)
	}
	e := resp.Error
	if e.Code != -32003 || e.Data.ErrorType != "TOOL_UNAVAILABLE" || !e.Data.Retryable || e.Data.Limit != limit || e.Data.Meta.RetryAfter < 1 {
		t.Fatalf("answer %s, want -32003 TOOL_UNAVAILABLE retryable, limit %q, _meta.retry_after >= 1", answer, limit)
	}
}

// A caller over its class's rate is refused at once, retryable, and told
// when to try again; its earlier calls within the burst ran.
func TestRateLimitRefusesRetryably(t *testing.T) {
	s := limitedServer(t, ClassLimits{Running: 2, Rate: 0.01, Burst: 2})
	call := overRPC(t, s)
	for i := range 2 {
		answer, _ := call(t, "", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"key":"rate-%d"}}}`, i, i))
		if !json.Valid(answer) || string(answer) == "" || jsonHas(answer, "error") {
			t.Fatalf("call %d within the burst: %s", i, answer)
		}
	}
	started := time.Now()
	answer, _ := call(t, "", `{"jsonrpc":"2.0","id":3,"method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"key":"rate-3"}}}`)
	refusedForLimit(t, answer, "rate")
	if took := time.Since(started); took > 2*time.Second {
		t.Fatalf("the refusal took %s: a limit answers at once", took)
	}
}

// A caller with as many calls running or waiting as its class allows has
// one more refused at once, retryable, instead of hanging; the others run.
func TestQueuedLimitRefusesRetryably(t *testing.T) {
	s := limitedServer(t, ClassLimits{Running: 1, Queued: 2})
	c := stdiotest.Serve(t, s)
	t.Cleanup(func() { c.Close(t) })
	for i := range 2 {
		c.Send(t, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow-%d","method":"tool/call","params":{"tool_id":"fixture.sleep","arguments":{"key":"queued-%d","sleep_ms":1000}}}`, i, i)))
	}
	time.Sleep(300 * time.Millisecond) // both are admitted: one runs, one waits
	started := time.Now()
	c.Send(t, []byte(`{"jsonrpc":"2.0","id":"third","method":"tool/call","params":{"tool_id":"fixture.echo","arguments":{"key":"queued-3"}}}`))
	answer, _ := c.Await(t, `"third"`, 5*time.Second)
	refusedForLimit(t, answer, "queued")
	if took := time.Since(started); took > 900*time.Millisecond {
		t.Fatalf("the refusal took %s, as long as a queued call: it waited instead of being refused", took)
	}
	for i := range 2 {
		answer, _ := c.Await(t, fmt.Sprintf(`"slow-%d"`, i), 30*time.Second)
		if jsonHas(answer, "error") {
			t.Fatalf("admitted call %d failed: %s", i, answer)
		}
	}
}

func jsonHas(msg []byte, key string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(msg, &m)
	_, ok := m[key]
	return ok
}

func TestParseClassLimits(t *testing.T) {
	c, err := ParseClassLimits(CallerUntrusted, "running=3, rate=0.5")
	if err != nil || c.Running != 3 || c.Rate != 0.5 || c.Queued != DefaultClassLimits[CallerUntrusted].Queued {
		t.Fatalf("got %+v, %v", c, err)
	}
	for _, bad := range []string{"running", "speed=3", "rate=-1", "rate=x"} {
		if _, err := ParseClassLimits(CallerLocal, bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
	if _, err := ParseClassLimits("admin", ""); err == nil {
		t.Error("an unknown class was accepted")
	}
}
