package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// HoldPolicy is how approval holds behave: which callers' writes are held,
// how long a hold waits, and how often a held call reports itself.
type HoldPolicy struct {
	// HoldLocalWrites holds local (stdio) writes even from a client that
	// cannot be asked (--hold-local-writes).
	HoldLocalWrites bool
	// Window is the hold's length without a progress channel
	// (METAFORGE_APPROVAL_HOLD_SECONDS, 100); ProgressWindow with one
	// (METAFORGE_APPROVAL_HOLD_PROGRESS_SECONDS, 180).
	Window         time.Duration
	ProgressWindow time.Duration
	// ProgressInterval is how often a held call reports itself
	// (METAFORGE_APPROVAL_PROGRESS_INTERVAL_SECONDS, 10).
	ProgressInterval time.Duration
	// DashboardURL is where the Approvals page is (METAFORGE_DASHBOARD_URL).
	DashboardURL string
	// QueueReachable says a person can decide a hold outside the client:
	// this server's Temporal is one the dashboard and the CLI reach. When
	// false, a held call whose client cannot be asked is not_configured.
	QueueReachable bool
	// Decider applies inline answers to holds. Without it nothing can be
	// asked inline either.
	Decider approvals.Decider
}

// elicitationBackstopSeconds is how long past the window the workflow of
// an inline hold waits for the server that asked to report the outcome.
const elicitationBackstopSeconds = 5

// Defaults of HoldPolicy. The window without a progress channel (100 s) is
// below common client tool timeouts (Claude Code's is 120 s), so the server
// answers before the client gives up.
const (
	DefaultHoldWindow         = 100 * time.Second
	DefaultHoldProgressWindow = 180 * time.Second
	DefaultProgressInterval   = 10 * time.Second
)

func (p HoldPolicy) withDefaults() HoldPolicy {
	if p.Window <= 0 {
		p.Window = DefaultHoldWindow
	}
	if p.ProgressWindow <= 0 {
		p.ProgressWindow = DefaultHoldProgressWindow
	}
	if p.ProgressInterval <= 0 {
		p.ProgressInterval = DefaultProgressInterval
	}
	return p
}

// ruling is the server's decision about one call: held or not, and if held
// where the question goes and for how long.
type ruling struct {
	held   bool
	route  string // workflows.RouteElicitation, RouteDashboard, or OutcomeNotConfigured
	reason string
	window time.Duration
	ann    adapters.Annotations
}

// rule decides whether a call is held. It is the one hold rule: every
// tools/call of every dialect passes through dispatch, which asks it, and
// it reads only the tool's approval class, the same one tools/list shows
// the client (adapters.Annotations.Approval). A read or a proposal (which a
// person decides through its own approval) is not held. A write is held
// for a remote or untrusted caller; for a local one only when its client
// can be asked or --hold-local-writes says so. A human-authority tool is
// always held. A tool nobody classified is a write.
func (s *Server) rule(req *mcp.CallToolRequest, in workflows.ToolCallInput) ruling {
	ann, _ := adapters.AnnotationsFor(in.ToolID)
	ann = ann.Given(s.opts.AllowTwinMutations)
	r := ruling{ann: ann}
	approval := ann.Approval()
	if approval == adapters.ApprovalNone || approval == adapters.ApprovalProposal {
		return r
	}
	canElicit := s.canElicit(req)
	switch {
	case approval == adapters.ApprovalHumanAuthority:
		r.held, r.reason = true, "records a human decision; always held for an identified approver"
	case in.Caller != CallerLocal:
		r.held, r.reason = true, fmt.Sprintf("writes; held for approval (%s caller)", in.Caller)
	case s.holds.HoldLocalWrites:
		r.held, r.reason = true, "writes; held for approval (--hold-local-writes)"
	case canElicit:
		r.held, r.reason = true, "writes; held for approval (local caller whose client can be asked)"
	default:
		return r
	}
	// Only a local caller (stdio, or HTTP with the operator token) is
	// asked inline: its answer is the operator's. Any other client's
	// answer would be the caller approving its own write, so its holds go
	// to the queue, where a verified person decides.
	switch {
	case canElicit && in.Caller == CallerLocal && s.holds.Decider != nil:
		r.route = workflows.RouteElicitation
	case s.holds.QueueReachable && s.holds.Decider != nil:
		r.route = workflows.RouteDashboard
	default:
		r.route = workflows.OutcomeNotConfigured
	}
	r.window = s.holds.Window
	if req != nil && req.Params.GetProgressToken() != nil {
		r.window = s.holds.ProgressWindow
	}
	return r
}

// runHeld runs a held call: it starts the workflow with the hold and what
// a reviewer is shown, reports the hold to a client that asked for
// progress, puts the question inline when the client can be asked, and
// waits for the outcome.
func (s *Server) runHeld(ctx context.Context, req *mcp.CallToolRequest, in workflows.ToolCallInput, r ruling) (workflows.ToolCallResult, *jsonrpc.Error) {
	if r.route == workflows.OutcomeNotConfigured {
		return s.heldNowhere(in), nil
	}
	in, ask := s.withHold(in, r)
	runID, err := s.opts.Engine.StartCall(ctx, in, &ask)
	if err != nil {
		return workflows.ToolCallResult{}, s.startError(in, err)
	}
	s.opts.Logger.Info("mcp_tool_call_held_for_approval", "tool", in.ToolID, "callId", in.CallID, "approval_id", in.CallID,
		"caller", in.Caller, "route", r.route, "window_seconds", ask.WindowSeconds)

	watchCtx, stopWatching := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	go func() { s.reportHold(watchCtx, req, in, ask); done <- struct{}{} }()
	go func() {
		if r.route == workflows.RouteElicitation {
			s.askInline(watchCtx, req, in, ask)
		}
		done <- struct{}{}
	}()
	// Once the hold is decided the tool runs: no more "held" progress.
	res, rpcErr := s.awaitHeld(ctx, in, runID, stopWatching)
	stopWatching()
	<-done
	<-done
	return res, rpcErr
}

// heldNowhere is a held call's result when nobody can decide its hold: it
// never starts.
func (s *Server) heldNowhere(in workflows.ToolCallInput) workflows.ToolCallResult {
	s.opts.Logger.Warn("mcp_tool_call_held_for_approval", "tool", in.ToolID, "callId", in.CallID, "caller", in.Caller,
		"outcome", workflows.OutcomeNotConfigured)
	return workflows.ToolCallResult{CallID: in.CallID, ToolID: in.ToolID, Status: workflows.StatusError,
		Approval: &workflows.Approval{Held: true, Outcome: workflows.OutcomeNotConfigured, Route: "none", ApprovalID: in.CallID},
		Error:    &workflows.CallError{Type: workflows.ApprovalRequired}}
}

// withHold is the call's input with its hold, and what its reviewer is
// shown.
func (s *Server) withHold(in workflows.ToolCallInput, r ruling) (workflows.ToolCallInput, approvals.Ask) {
	windowSeconds := int(r.window.Round(time.Second) / time.Second)
	in.Hold = &workflows.Hold{ApprovalID: in.CallID, Route: r.route, WindowSeconds: windowSeconds, Reason: r.reason,
		HumanAuthority: r.ann.HumanAuthority}
	if r.route == workflows.RouteElicitation {
		// This server withdraws its question at the window and decides
		// timed_out itself, so notifications/cancelled reaches the client
		// before the result; the workflow's timer is the backstop.
		in.Hold.BackstopSeconds = elicitationBackstopSeconds
	}
	ask := approvals.Ask{ToolID: in.ToolID, AdapterID: in.AdapterID, Summary: approvals.Summarize(in.Arguments),
		Reason: r.reason, Caller: in.Caller, Client: in.Client, ProjectID: projectOf(in.Arguments), Route: r.route,
		WindowSeconds: windowSeconds}
	return in, ask
}

// projectOf is the project a call names, for the reviewer and the
// MfProject filter.
func projectOf(args json.RawMessage) string {
	var a struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(args, &a)
	return a.ProjectID
}

// where tells a person how to decide a hold on this route.
func (s *Server) where(route, approvalID string) string {
	if route == workflows.RouteElicitation {
		return "the prompt in your MCP client (elicitation)"
	}
	if route != workflows.RouteDashboard {
		return "no approval queue a person can reach and the client cannot be asked; " +
			"connect through metaforge serve (its Approvals page) or use a client that supports elicitation"
	}
	page := "/approvals"
	if s.holds.DashboardURL != "" {
		page = strings.TrimRight(s.holds.DashboardURL, "/") + "/approvals"
	}
	return fmt.Sprintf("the Approvals page %s (GET /v1/approvals), or metaforge approve %s / metaforge reject %s", page, approvalID, approvalID)
}

// reportHold sends notifications/progress while the call is held, at once
// and then every ProgressInterval, so a client that resets its timeout on
// progress keeps waiting.
func (s *Server) reportHold(ctx context.Context, req *mcp.CallToolRequest, in workflows.ToolCallInput, ask approvals.Ask) {
	if req == nil || req.Session == nil || req.Params.GetProgressToken() == nil {
		return
	}
	token := req.Params.GetProgressToken()
	start := time.Now()
	last := 0.0
	tick := time.NewTicker(s.holds.ProgressInterval)
	defer tick.Stop()
	for {
		held := time.Since(start).Seconds()
		progress := max(roundTo(held, 0.1), last+0.1)
		last = progress
		msg := fmt.Sprintf("%s is held for approval %s (%s); decide it at %s. Held %.0fs of a %ds window.",
			in.ToolID, in.CallID, ask.Reason, s.where(ask.Route, in.CallID), held, ask.WindowSeconds)
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			Meta: taskMeta(ctx), ProgressToken: token, Progress: progress, Total: float64(ask.WindowSeconds), Message: msg,
		})
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func roundTo(v, step float64) float64 { return float64(int64(v/step+0.5)) * step }
