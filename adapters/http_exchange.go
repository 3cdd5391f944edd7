package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

const (
	// defaultTimeout bounds a DialHTTP or Health whose ctx has no deadline, so a
	// server that never answers cannot hang start-up or a probe.
	defaultTimeout = 10 * time.Second
	// deadlineGrace is how long past ctx's deadline a call still waits for
	// the adapter's own answer to running out of time (spice's TOOL_TIMEOUT
	// once it has stopped ngspice), so a timeout reads as it would in
	// process. The server's limit is timeout_seconds, ctx's remaining time
	// rounded up to a whole second, so it may fall a second after ctx's.
	deadlineGrace = 2 * time.Second
)

// request posts one JSON-RPC request and decodes its result into out. Its
// errors are the adapter's *protocol.Error, a transient *protocol.Error when
// no answer came back, or ctx's error once ctx has ended (joined to the
// adapter's answer when one came).
func (c *HTTPAdapter) request(ctx context.Context, method string, params any, toolID string, out any) error {
	what := method
	if toolID != "" {
		what += " " + toolID
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("adapter %q: %s: %w", c.id, what, err)
	}
	rawParams, err := json.Marshal(params)
	if err != nil {
		return protocol.Invalid("%s: the request cannot be encoded as JSON: %v", what, err)
	}
	id := json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10))
	body, err := json.Marshal(RPCRequest{JSONRPC: "2.0", ID: id, Method: method, Params: rawParams})
	if err != nil {
		return protocol.Invalid("%s: the request cannot be encoded as JSON: %v", what, err)
	}
	if len(body) > MaxStdioLineBytes {
		return protocol.Invalid("%s: the request is %d bytes, over the %d MiB a message may carry; pass large inputs as files and send their paths",
			what, len(body), MaxStdioLineBytes>>20)
	}

	xctx, release := exchangeContext(ctx)
	defer release()
	err = c.post(xctx, what, body, toolID, out)
	if err == nil || ctx.Err() == nil {
		return err
	}
	if pe := (*protocol.Error)(nil); errors.As(err, &pe) {
		return fmt.Errorf("%w (%w)", pe, ctx.Err())
	}
	return fmt.Errorf("adapter %q: %s: %w", c.id, what, ctx.Err())
}

// post makes one HTTP exchange. Anything but a JSON-RPC answer (no
// connection, a proxy's error page) is transient: nothing says how the call
// went, and the next attempt may get through. It returns ctx's error bare
// when ctx ends first.
func (c *HTTPAdapter) post(ctx context.Context, what string, body []byte, toolID string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return protocol.Transient("adapter %q: %s got no answer: %v", c.id, what, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxStdioLineBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return protocol.Transient("adapter %q at %s: reading the answer to %s: %v", c.id, c.endpoint, what, err)
	}
	var rr RPCResponse
	if len(raw) > MaxStdioLineBytes || json.Unmarshal(raw, &rr) != nil || (rr.Error == nil && isAbsent(rr.Result)) {
		return protocol.Transient("adapter %q at %s answered %s with HTTP %s and no JSON-RPC answer: %q",
			c.id, c.endpoint, what, resp.Status, raw[:min(len(raw), 200)])
	}
	if rr.Error != nil {
		return rr.Error.ProtocolError(toolID)
	}
	if err := json.Unmarshal(rr.Result, out); err != nil {
		return &protocol.Error{Code: protocol.InternalError, ToolID: toolID,
			Details: fmt.Sprintf("adapter %q answered %s with a result that does not decode: %v", c.id, what, err)}
	}
	return nil
}

// exchangeContext is the context of one HTTP exchange: it ends as soon as
// ctx is cancelled, but outlives ctx's deadline by deadlineGrace.
func exchangeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	xctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline.Add(deadlineGrace))
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return xctx, func() { stop(); cancel() }
}

// withDefaultTimeout gives ctx defaultTimeout when it has no deadline.
func withDefaultTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, defaultTimeout)
}
