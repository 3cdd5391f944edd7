package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// elicitationRevision is the first MCP revision with elicitation/create.
const elicitationRevision = "2025-06-18"

// canElicit is the three conditions for asking this call's client
// inline: a channel back to it, the elicitation capability declared at
// initialize, and a negotiated revision of 2025-06-18 or later.
func (s *Server) canElicit(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	if negotiatedRevision(p.ProtocolVersion) < elicitationRevision {
		return false
	}
	return s.hasChannelBack(req)
}

// hasChannelBack: stdio always has one; over HTTP an open GET /mcp for the
// session, or this POST accepting text/event-stream, in which case the
// question is asked on the POST's own stream.
func (s *Server) hasChannelBack(req *mcp.CallToolRequest) bool {
	if s.opts.Transport != TransportHTTP {
		return true
	}
	if s.streams.open(req.Session.ID()) {
		return true
	}
	return req.Extra != nil && acceptsEventStream(req.Extra.Header.Values("Accept"))
}

func acceptsEventStream(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if strings.TrimSpace(strings.SplitN(part, ";", 2)[0]) == "text/event-stream" {
				return true
			}
		}
	}
	return false
}

// askInline puts the hold's question to the client and applies the answer.
// Whenever the server stops waiting (the window ended, the call's request
// ended, the client hung up) the SDK withdraws the question with
// notifications/cancelled, and the hold ends timed_out: nobody decided.
func (s *Server) askInline(ctx context.Context, req *mcp.CallToolRequest, in workflows.ToolCallInput, ask approvals.Ask) {
	window := time.Duration(ask.WindowSeconds) * time.Second
	askCtx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	onGet := s.opts.Transport == TransportHTTP && s.streams.open(req.Session.ID())
	if onGet {
		// The session's own GET stream carries it (the SDK routes a
		// request made outside any call's context there).
		detached, stop := context.WithTimeout(context.Background(), window)
		defer stop()
		context.AfterFunc(askCtx, stop)
		askCtx, cancel = detached, stop
	}
	sessionID := req.Session.ID()
	forget := s.asks.add(sessionID, openAsk{withdraw: cancel, onGet: onGet})
	res, err := req.Session.Elicit(askCtx, &mcp.ElicitParams{
		Meta:    taskMeta(ctx),
		Message: elicitMessage(in, ask),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"approve": map[string]any{"type": "boolean", "title": fmt.Sprintf("Run %s?", in.ToolID)},
			},
			"required": []string{"approve"},
		},
	})
	forget()
	if err != nil && askCtx.Err() != nil {
		err = fmt.Errorf("%w (%v)", askCtx.Err(), err)
	}
	d := decisionFromAnswer(res, err, in.Client)
	if err != nil {
		// Withdrawn at the window, the client is still there to hear it;
		// withdrawn because the client went away, nobody is.
		s.opts.Logger.Info("mcp_elicitation_withdrawn", "approval_id", in.CallID, "tool", in.ToolID, "reason", err.Error(),
			"delivered", errors.Is(askCtx.Err(), context.DeadlineExceeded))
	}
	decideCtx, stop := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
	defer stop()
	if _, derr := s.holds.Decider.Decide(decideCtx, in.CallID, d); derr != nil {
		s.opts.Logger.Info("mcp_elicitation_answer_not_applied", "approval_id", in.CallID, "outcome", d.Outcome, "error", derr.Error())
	}
}

// decisionFromAnswer maps the three-action response onto outcomes. An
// accept without a boolean approve is a refusal: guessing the other way is
// an unreviewed write.
func decisionFromAnswer(res *mcp.ElicitResult, err error, client string) workflows.Decision {
	d := workflows.Decision{Route: workflows.RouteElicitation}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed):
		d.Outcome, d.Comment = workflows.OutcomeTimedOut, "the question was withdrawn before anyone answered"
		return d
	case err != nil:
		// The client answered, but not with a yes this server can read
		// (content off the schema, or an error): never a write.
		d.Outcome, d.Comment = workflows.OutcomeRejected, "the client's answer was not an approval: "+err.Error()
		return d
	case res == nil:
		d.Outcome, d.Comment = workflows.OutcomeTimedOut, "the question was withdrawn before anyone answered"
		return d
	}
	switch res.Action {
	case "accept":
		approve, ok := res.Content["approve"].(bool)
		switch {
		case !ok:
			d.Outcome, d.Comment = workflows.OutcomeRejected, "the answer carried no boolean approve, which is taken as a refusal"
		case approve:
			d.Outcome = workflows.OutcomeApproved
			d.Approver = "the user of " + clientLabel(client)
		default:
			d.Outcome, d.Comment = workflows.OutcomeRejected, "asked in the client and answered no"
		}
	case "decline":
		d.Outcome, d.Comment = workflows.OutcomeRejected, "the prompt was declined"
	default:
		d.Outcome, d.Comment = workflows.OutcomeTimedOut, "the prompt was dismissed without a decision"
	}
	return d
}

func clientLabel(client string) string {
	if client == "" {
		return "the MCP client"
	}
	return client
}

// elicitMessage is the question: the tool, what it writes and why it is
// held, the arguments summarised (credentials redacted, long values
// clipped), who asked, and how long the question stays open.
func elicitMessage(in workflows.ToolCallInput, ask approvals.Ask) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MetaForge wants to run %s.\n\n%s\n\nArguments:\n%s\n\n", in.ToolID, ask.Reason, ask.Summary)
	if ask.ProjectID != "" {
		fmt.Fprintf(&b, "Project: %s\n", ask.ProjectID)
	}
	fmt.Fprintf(&b, "Requested by: %s", ask.Caller)
	if ask.Client != "" {
		fmt.Fprintf(&b, " (%s)", ask.Client)
	}
	fmt.Fprintf(&b, "\nApproval %s; this question closes in %ds.", in.CallID, ask.WindowSeconds)
	return b.String()
}

// sessionCounts counts something open per session: the GET /mcp streams,
// one of which can carry a question.
type sessionCounts struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *sessionCounts) add(session string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	if c.counts[session] += n; c.counts[session] <= 0 {
		delete(c.counts, session)
	}
}

func (c *sessionCounts) open(session string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[session] > 0
}

// noteLateAnswer logs a client's answer that arrives when no question is
// open for its session: the question was withdrawn, the call already ended
// timed_out, and the answer is acknowledged and never applied.
func (s *Server) noteLateAnswer(session string, body []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "" || len(msg.ID) == 0 || (msg.Result == nil && msg.Error == nil) {
		return
	}
	if !s.asks.any(session) {
		s.opts.Logger.Info("mcp_elicitation_late_response_ignored", "session", session, "id", string(msg.ID))
	}
}
