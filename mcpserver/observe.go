package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// CallEvent is one tools/call (or legacy tool/call) as it ended: what the
// ledger records as an action with its attribution stamp (who made it,
// with which client) and what the metrics count.
type CallEvent struct {
	CallID    string
	ToolID    string
	AdapterID string
	// Known is false for a tool name nobody registered: metrics must not
	// take it as a label, since a client can send any name.
	Known     bool
	SessionID string
	ProjectID string
	// Caller is the connection's class; Actor who acted, ActorVerified
	// true only when a verified token established it.
	Caller        string
	Actor         string
	ActorVerified bool
	// ClientName and ClientVersion come from the initialize handshake;
	// empty when the client never said.
	ClientName    string
	ClientVersion string
	// ClaimedModel is the request's _meta.model: asserted, never checked.
	ClaimedModel string
	// Status is "success" or "error". ErrorCode is the taxonomy code of a
	// failure (zero on success); HoldOutcome how a hold ended ("" when the
	// call was not held).
	Status      string
	ErrorCode   protocol.Code
	ErrorType   string
	HoldOutcome string
	Approval    *workflows.Approval
	Started     time.Time
	Duration    time.Duration
}

// CallObserver hears every call that ended. It must not fail or slow the
// call: an observer logs its own trouble and returns.
type CallObserver interface {
	CallEnded(ctx context.Context, e CallEvent)
}

// observeTimeout bounds the observers' work on one call.
const observeTimeout = 2 * time.Second

// callParty is who made a call and with what, as far as this server knows.
type callParty struct {
	caller, actor          string
	verified               bool
	clientName, clientVers string
	claimedModel           string
	sessionID              string
}

// partyOf reads the party of an MCP tools/call.
func (s *Server) partyOf(req *mcp.CallToolRequest) callParty {
	p := callParty{caller: s.callerOf(req.Extra), sessionID: s.sessionID(req.Session)}
	p.actor = p.caller
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		p.actor, p.verified = "user:"+req.Extra.TokenInfo.UserID, true
	}
	if req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			p.clientName, p.clientVers = ip.ClientInfo.Name, ip.ClientInfo.Version
		}
	}
	if req.Params != nil {
		if m, ok := req.Params.GetMeta()["model"].(string); ok {
			p.claimedModel = m
		}
	}
	return p
}

// callRecord is one call as its dialect's dispatch saw it end. The
// dispatch (observeCalls for MCP, observeLegacyCall for the legacy
// dialect) makes it and reports it once; the call's handler, finding it
// with recordOf, fills in what the answer alone does not show: the
// arguments it read, the workflow input it prepared and the workflow
// result.
type callRecord struct {
	party   callParty
	toolID  string
	started time.Time
	// args are nil for a call refused before its handler read them.
	args json.RawMessage
	in   *workflows.ToolCallInput
	// res is the workflow's result; once set, the answer's own error (an
	// error result, a refused hold) is read from it, not from err.
	res *workflows.ToolCallResult
	// err is what the call answered when it produced no result.
	err error
	// deferred says the call went on as a task: whoever follows it to
	// its end reports it, not the dispatch that answered CreateTaskResult.
	deferred bool
}

type callRecordKey struct{}

// withCallRecord is ctx carrying c for the call's handler to fill.
func withCallRecord(ctx context.Context, c *callRecord) context.Context {
	return context.WithValue(ctx, callRecordKey{}, c)
}

// recordOf is the record of the call ctx belongs to; a call nobody
// observes gets a record that goes nowhere.
func recordOf(ctx context.Context) *callRecord {
	if c, ok := ctx.Value(callRecordKey{}).(*callRecord); ok {
		return c
	}
	return &callRecord{}
}

// observeCalls is the middleware that tells every observer how each
// tools/call ended, once, whichever step answered it: a refusal before the
// handler (unknown tool, outside the profile) or the handler itself.
func (s *Server) observeCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || r.Params == nil || len(s.opts.Observers) == 0 {
			return next(ctx, method, req)
		}
		c := &callRecord{party: s.partyOf(r), toolID: r.Params.Name, started: time.Now()}
		res, err := next(withCallRecord(ctx, c), method, req)
		if c.deferred {
			return res, err
		}
		c.err = err
		s.observe(ctx, c)
		return res, err
	}
}

// observe tells every observer how a call ended: with a workflow result, or
// with the JSON-RPC error that stopped it first.
func (s *Server) observe(ctx context.Context, c *callRecord) {
	if len(s.opts.Observers) == 0 {
		return
	}
	party := c.party
	e := CallEvent{
		ToolID: c.toolID, SessionID: party.sessionID, Caller: party.caller,
		Actor: party.actor, ActorVerified: party.verified,
		ClientName: party.clientName, ClientVersion: party.clientVers, ClaimedModel: party.claimedModel,
		Started: c.started, Duration: time.Since(c.started), Status: workflows.StatusSuccess,
	}
	if m, _, ok := s.opts.Registry.Tool(c.toolID); ok {
		e.Known, e.AdapterID = true, m.AdapterID
	}
	if c.in != nil {
		e.CallID = c.in.CallID
	}
	e.ProjectID = projectOf(c.args)
	if res := c.res; res != nil {
		if e.CallID == "" {
			e.CallID = res.CallID
		}
		if e.ProjectID == "" && res.Status == workflows.StatusSuccess {
			e.ProjectID = projectInResult(res.Data)
		}
		e.Approval = res.Approval
		if a := res.Approval; a != nil && a.Held {
			e.HoldOutcome = a.Outcome
		}
		if res.Status != workflows.StatusSuccess {
			e.Status, e.ErrorCode, e.ErrorType = workflows.StatusError, protocol.ToolExecutionError, protocol.ToolExecutionError.Name()
			if res.Error != nil {
				e.ErrorCode, e.ErrorType = protocol.Code(res.Error.Code), res.Error.Type
			}
		}
		if e.HoldOutcome != "" && e.HoldOutcome != workflows.OutcomeApproved {
			e.Status = workflows.StatusError
		}
	} else if c.err != nil {
		code := protocol.InternalError
		var rpcErr *jsonrpc.Error
		if errors.As(c.err, &rpcErr) {
			code = protocol.Code(rpcErr.Code)
		}
		e.Status, e.ErrorCode = workflows.StatusError, code
		e.ErrorType = e.ErrorCode.Name()
		if !e.Known {
			e.ErrorType = "TOOL_NOT_FOUND"
		}
	}
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), observeTimeout)
	defer cancel()
	for _, o := range s.opts.Observers {
		func() {
			defer func() {
				if r := recover(); r != nil {
					s.opts.Logger.Error("a call observer panicked; the call is unaffected", "tool", c.toolID, "panic", r)
				}
			}()
			o.CallEnded(octx, e)
		}()
	}
}

// projectInResult is the project a result names: its project_id, or the
// project it opened ({"project": {"project_id"}}).
func projectInResult(data json.RawMessage) string {
	var r struct {
		ProjectID string `json:"project_id"`
		Project   struct {
			ProjectID string `json:"project_id"`
		} `json:"project"`
	}
	if json.Unmarshal(data, &r) != nil {
		return ""
	}
	if r.ProjectID != "" {
		return r.ProjectID
	}
	return r.Project.ProjectID
}
