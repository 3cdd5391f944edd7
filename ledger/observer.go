package ledger

import (
	"context"
	"log/slog"

	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/telemetry"
)

// Recorder records every call the MCP server ends as an action with its
// attribution stamp, and every hold a person (or the clock) decided. A
// ledger that cannot be written never fails the call: the trouble is
// logged.
type Recorder struct {
	Ledger *Ledger
	Logger *slog.Logger
}

// maxUnknownToolID bounds how much of a name nobody registered is kept.
const maxUnknownToolID = 128

// CallEnded records e. It implements mcpserver.CallObserver.
func (r Recorder) CallEnded(ctx context.Context, e mcpserver.CallEvent) {
	a := Action{
		At: e.Started.UTC(), CallID: e.CallID, ToolID: e.ToolID, AdapterID: e.AdapterID,
		SessionID: e.SessionID, ProjectID: e.ProjectID, Caller: e.Caller, Status: e.Status,
		ErrorType: e.ErrorType, DurationMs: float64(e.Duration.Microseconds()) / 1000,
		Stamp: Stamp{Actor: e.Actor, ActorVerified: e.ActorVerified},
	}
	if !e.Known && len(a.ToolID) > maxUnknownToolID {
		a.ToolID = a.ToolID[:maxUnknownToolID] // a client's text, kept to a bound
	}
	if e.Status == StatusError {
		a.ErrorClass = telemetry.ClassOfFailure(e.ErrorCode, e.HoldOutcome, e.Known)
	}
	if e.ClientName != "" || e.ClientVersion != "" {
		a.Client = &Client{Name: e.ClientName, Version: e.ClientVersion}
	}
	if e.ClaimedModel != "" {
		a.Claimed = &Claimed{Model: e.ClaimedModel}
	}
	if err := r.Ledger.RecordAction(ctx, a); err != nil {
		r.logger().Error("the ledger did not record a call; the call is unaffected", "tool", e.ToolID, "callId", e.CallID, "error", err)
	}
	if ap := e.Approval; ap != nil && ap.Held {
		d := Decision{
			At: e.Started.Add(e.Duration).UTC(), ApprovalID: ap.ApprovalID, CallID: e.CallID, ToolID: e.ToolID,
			SessionID: e.SessionID, ProjectID: e.ProjectID, Outcome: ap.Outcome,
			By: ap.ApprovedBy, ByVerified: ap.ApproverVerified, Route: ap.Route, Comment: ap.Comment,
		}
		if err := r.Ledger.RecordDecision(ctx, d); err != nil {
			r.logger().Error("the ledger did not record a decision; the call is unaffected", "tool", e.ToolID, "approvalId", ap.ApprovalID, "error", err)
		}
	}
}

func (r Recorder) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}
