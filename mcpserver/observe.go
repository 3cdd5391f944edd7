package mcpserver

import (
	"context"
	"encoding/json"
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

// observe tells every observer how a call ended: with a workflow result, or
// with the JSON-RPC error that stopped it first.
func (s *Server) observe(ctx context.Context, party callParty, toolID string, in *workflows.ToolCallInput,
	args json.RawMessage, res *workflows.ToolCallResult, rpcErr *jsonrpc.Error, started time.Time) {
	if len(s.opts.Observers) == 0 {
		return
	}
	e := CallEvent{
		ToolID: toolID, SessionID: party.sessionID, Caller: party.caller,
		Actor: party.actor, ActorVerified: party.verified,
		ClientName: party.clientName, ClientVersion: party.clientVers, ClaimedModel: party.claimedModel,
		Started: started, Duration: time.Since(started), Status: workflows.StatusSuccess,
	}
	if m, _, ok := s.opts.Registry.Tool(toolID); ok {
		e.Known, e.AdapterID = true, m.AdapterID
	}
	if in != nil {
		e.CallID = in.CallID
	}
	e.ProjectID = projectOf(args)
	if res != nil {
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
	}
	if rpcErr != nil {
		e.Status, e.ErrorCode = workflows.StatusError, protocol.Code(rpcErr.Code)
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
					s.opts.Logger.Error("a call observer panicked; the call is unaffected", "tool", toolID, "panic", r)
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

// resultOrNil is res when the call produced one.
func resultOrNil(res workflows.ToolCallResult, rpcErr *jsonrpc.Error) *workflows.ToolCallResult {
	if rpcErr != nil {
		return nil
	}
	return &res
}
