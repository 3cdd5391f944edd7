package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// HTTPAdapter is an adapter served by Handler, usually on another machine. Its
// tools are fixed at DialHTTP; every Call and Health is one HTTP request, so a
// server that restarts is simply reached again. It is safe for concurrent
// use.
type HTTPAdapter struct {
	id        string
	endpoint  string // the server's POST /mcp
	http      *http.Client
	manifests []Manifest

	nextID atomic.Int64

	mu      sync.Mutex
	version string // from the last health/check that succeeded
}

var _ Adapter = (*HTTPAdapter)(nil)

// DialHTTP reaches adapter id served at baseURL and asks for its tools, each of
// which must declare adapter_id id, and for its version. A server that does
// not answer tool/list is an error; an adapter that answers but reports
// itself unhealthy is not, since its health check says so, as it would in
// process. A ctx without a deadline gets defaultTimeout.
func DialHTTP(ctx context.Context, id, baseURL string) (*HTTPAdapter, error) {
	if id == "" {
		return nil, fmt.Errorf("adapters.DialHTTP: the adapter id is empty")
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("adapter %q: %q is not an http:// or https:// URL", id, baseURL)
	}
	c := &HTTPAdapter{id: id, endpoint: u.JoinPath("mcp").String(), http: &http.Client{}}
	ctx, cancel := withDefaultTimeout(ctx)
	defer cancel()

	var list ToolListResult
	if err := c.request(ctx, MethodToolList, struct{}{}, "", &list); err != nil {
		return nil, fmt.Errorf("adapter %q at %s did not answer tool/list: %w", id, baseURL, err)
	}
	var wrong []string
	for _, m := range list.Tools {
		if m.AdapterID != id {
			wrong = append(wrong, fmt.Sprintf("%s declares adapter_id %q", m.ToolID, m.AdapterID))
		}
	}
	if len(wrong) > 0 {
		return nil, fmt.Errorf("adapter %q at %s: its tools must declare adapter_id %q: %v", id, baseURL, id, wrong)
	}
	c.manifests = list.Tools
	_, _ = c.Health(ctx) // for the version; an unhealthy adapter is still reached
	return c, nil
}

// ID is the adapter id DialHTTP was given.
func (c *HTTPAdapter) ID() string { return c.id }

// Version is what the adapter's last successful health check reported,
// empty until one succeeds.
func (c *HTTPAdapter) Version() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Manifests are the adapter's tools as tool/list reported them at DialHTTP.
func (c *HTTPAdapter) Manifests() []Manifest { return slices.Clone(c.manifests) }

// Call runs one tool on the server. ctx's deadline travels as
// timeout_seconds; cancelling ctx abandons the request, which cancels the
// call on the server. The adapter's errors come back as the *protocol.Error
// it returned; a server that cannot be reached is a transient error.
func (c *HTTPAdapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*Result, error) {
	args = ArgumentsOrEmpty(args)
	params := ToolCallParams{ToolID: toolID, Arguments: args}
	if d, ok := ctx.Deadline(); ok {
		secs := math.Ceil(time.Until(d).Seconds())
		params.TimeoutSeconds = int(min(max(secs, MinTimeoutSeconds), MaxTimeoutSeconds))
	}
	var res ToolCallResult
	if err := c.request(ctx, MethodToolCall, params, toolID, &res); err != nil {
		return nil, err
	}
	if res.Status != "" && res.Status != "success" {
		return nil, protocol.Refusal("adapter %q answered %s with status %q and no error; an adapter reports a failure as a JSON-RPC error",
			c.id, toolID, res.Status)
	}
	out := &Result{Data: res.Data}
	if len(res.OutputFiles) > 0 {
		out.OutputFiles = res.OutputFiles
	}
	return out, nil
}

// Health asks the adapter's health/check. A ctx without a deadline gets
// defaultTimeout.
func (c *HTTPAdapter) Health(ctx context.Context) (HealthStatus, error) {
	ctx, cancel := withDefaultTimeout(ctx)
	defer cancel()
	var st HealthStatus
	if err := c.request(ctx, MethodHealthCheck, struct{}{}, "", &st); err != nil {
		return HealthStatus{}, err
	}
	if st.Version != "" {
		c.mu.Lock()
		c.version = st.Version
		c.mu.Unlock()
	}
	return st, nil
}
