package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// How long a session waits for a worker to take it, how long the worker
// session may live before it is renewed (a renewal is a rebuild), and the
// bounds of one operation and of opening (with a journal replayed).
const (
	cadCreationTimeout = 2 * time.Minute
	cadSessionLifetime = 7 * 24 * time.Hour
	cadEditTimeout     = 5 * time.Minute
	cadOpenTimeout     = 15 * time.Minute
	// cadMaxRebuilds bounds the rebuilds one operation may cause, so an
	// operation that itself kills FreeCAD fails instead of looping.
	cadMaxRebuilds = 2
)

// CadSession holds one CAD editing session: a live FreeCAD document on
// one worker, pinned there by a Temporal worker session, edited through
// the workflow's Updates. Every edit that changes the document is
// journalled here, and every few edits the document is saved; when the
// worker or its FreeCAD process dies, the next operation rebuilds the
// document on whichever worker takes a new worker session, from its last
// saved state with the journal replayed, and the client keeps the same
// session id. The session closes when asked or after its idle time, and
// keeps its document (and, with a project, records it as a work product).
func CadSession(ctx workflow.Context, in CadSessionInput) (CadSessionState, error) {
	s := newCadRun(ctx, in)
	if err := s.handle(ctx); err != nil {
		return s.st, err
	}
	// The document opens now, so a session nobody can hold fails at open;
	// an edit that arrives meanwhile waits for it.
	if err := s.openFirst(ctx); err != nil {
		s.st.Status, s.st.ClosedReason, s.st.Error = CadSessionClosed, "could not open", err.Error()
		return s.st, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("CAD session %s could not open its document: %v", in.SessionID, err), "cad_session_not_opened", err)
	}
	reason := ""
	for reason == "" {
		seen := s.stir
		stirred, err := workflow.AwaitWithTimeout(ctx, s.idle, func() bool { return s.closeAsked != nil || s.stir != seen })
		switch {
		case err != nil:
			return s.st, err
		case s.closeAsked != nil:
			reason = "closed by " + orSomeone(s.closeAsked.By)
			if s.closeAsked.Reason != "" {
				reason += ": " + s.closeAsked.Reason
			}
		case !stirred && s.busy == 0:
			reason = fmt.Sprintf("idle for %s", s.idle)
		}
	}
	s.close(ctx, reason)
	err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return s.st, err
}

// cadRun is one session's workflow state.
type cadRun struct {
	in         CadSessionInput
	st         CadSessionState
	idle       time.Duration
	checkEvery int
	heartbeat  time.Duration

	// mu serialises the operations: one document, one edit at a time.
	mu workflow.Mutex
	// sctx is the worker session holding the document; nil when none does.
	sctx    workflow.Context
	journal []CadEdit
	// stir changes whenever an operation starts or ends, which restarts
	// the idle timer; busy counts the operations under way.
	stir, busy int
	closeAsked *CloseCadSessionRequest
	opened     bool
}

func newCadRun(ctx workflow.Context, in CadSessionInput) *cadRun {
	s := &cadRun{in: in, mu: workflow.NewMutex(ctx),
		idle: DefaultCadIdle, checkEvery: DefaultCadCheckpointEvery, heartbeat: DefaultCadHeartbeat}
	if in.IdleSeconds > 0 {
		s.idle = time.Duration(in.IdleSeconds) * time.Second
	}
	if in.CheckpointEvery > 0 {
		s.checkEvery = in.CheckpointEvery
	}
	if in.HeartbeatSeconds > 0 {
		s.heartbeat = time.Duration(in.HeartbeatSeconds) * time.Second
	}
	s.st = CadSessionState{SessionID: in.SessionID, ProjectID: in.ProjectID, Status: CadSessionOpen}
	return s
}

// apply runs one operation on the document, rebuilding the document first
// when its worker or FreeCAD process is gone. A journalled edit is
// journalled only once it has succeeded, so an edit that failed, or died
// with its worker, is not in the rebuilt document, and is applied to the
// rebuilt one instead.
func (s *cadRun) apply(ctx workflow.Context, e CadEdit) (CadEditResult, error) {
	if err := s.mu.Lock(ctx); err != nil {
		return CadEditResult{}, err
	}
	defer s.mu.Unlock()
	s.busy++
	s.stir++
	defer func() { s.busy--; s.stir++ }()

	rebuilds := s.st.Rebuilds
	for attempt := 0; ; attempt++ {
		if err := s.openDocument(ctx); err != nil {
			return CadEditResult{}, err
		}
		var data json.RawMessage
		err := workflow.ExecuteActivity(s.documentCtx(cadEditTimeout, "apply "+e.Op), ApplyCadEditActivity,
			ApplyCadEditRequest{SessionID: s.in.SessionID, Edit: e}).Get(ctx, &data)
		if err != nil {
			if s.documentLost(err) && attempt < cadMaxRebuilds {
				s.dropDocument()
				continue
			}
			return CadEditResult{}, err
		}
		if e.Journal {
			s.journal = append(s.journal, e)
			s.st.Edits++
			s.st.Journal = len(s.journal)
			now := workflow.Now(ctx)
			s.st.LastEditAt = &now
			s.checkpoint(ctx)
		}
		return CadEditResult{Data: data, Edits: s.st.Edits, Rebuilt: s.st.Rebuilds > rebuilds}, nil
	}
}

// openFirst opens the document at the start, before any operation runs.
func (s *cadRun) openFirst(ctx workflow.Context) error {
	if err := s.mu.Lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return s.openDocument(ctx)
}

// openDocument makes sure a worker session holds the document: if none
// does (at the start, or after its worker or FreeCAD process died), it
// takes a new worker session and opens the document there from the last
// saved state, replaying the journal.
func (s *cadRun) openDocument(ctx workflow.Context) error {
	if s.sctx != nil && workflow.GetSessionInfo(s.sctx).SessionState != workflow.SessionStateFailed {
		return nil
	}
	s.dropDocument()
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{TaskQueue: AdapterTaskQueue(CadSessionAdapter)})
	sctx, err := workflow.CreateSession(actx, &workflow.SessionOptions{
		CreationTimeout: cadCreationTimeout, ExecutionTimeout: cadSessionLifetime, HeartbeatTimeout: s.heartbeat})
	if err != nil {
		return fmt.Errorf("no worker serving %s took the session within %s (is a worker with FreeCAD running?): %w",
			AdapterTaskQueue(CadSessionAdapter), cadCreationTimeout, err)
	}
	s.sctx = sctx
	var out OpenCadDocumentResponse
	err = workflow.ExecuteActivity(s.documentCtx(cadOpenTimeout, "open the document"), OpenCadDocumentActivity,
		OpenCadDocumentRequest{SessionID: s.in.SessionID, Base: s.in.Base, Checkpoint: s.st.Checkpoint, Journal: s.journal}).Get(ctx, &out)
	if err != nil {
		s.dropDocument()
		return err
	}
	if s.opened {
		s.st.Rebuilds++
	}
	s.opened = true
	s.st.Worker = out.Worker
	return nil
}

// documentCtx is the context of an activity on the session's worker: one
// attempt (an edit is not idempotent on a live document), heartbeating
// so a dead worker is noticed within the heartbeat timeout.
func (s *cadRun) documentCtx(timeout time.Duration, summary string) workflow.Context {
	return workflow.WithActivityOptions(s.sctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    s.heartbeat,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:             summary,
	})
}

// documentLost says an activity failed because the document is gone: its
// worker session failed (the worker died), the activity's heartbeat
// stopped, or the worker answered that it holds no live document.
func (s *cadRun) documentLost(err error) bool {
	if s.sctx != nil && workflow.GetSessionInfo(s.sctx).SessionState == workflow.SessionStateFailed {
		return true
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == CadDocumentNotLive {
		return true
	}
	var timeout *temporal.TimeoutError
	return errors.As(err, &timeout)
}

// dropDocument lets go of the worker session, so the next operation takes
// a new one. It does not call workflow.CompleteSession: its completion
// activity left the workflow task stuck (the SDK's deadlock detector
// failed it on every retry) when the session's worker runs in the same
// process as the workflow's, as `metaforge serve` does. A session let go
// of ends with its workflow; one that failed is over already.
func (s *cadRun) dropDocument() {
	s.sctx = nil
	s.st.Worker = ""
}

// checkpoint saves the document once the journal is long enough, and
// starts the journal again from the saved state. A failed save only
// keeps the longer journal.
func (s *cadRun) checkpoint(ctx workflow.Context) {
	if len(s.journal) < s.checkEvery {
		return
	}
	var saved CadSavedDocument
	name := fmt.Sprintf("checkpoint-%d.FCStd", s.st.Edits)
	err := workflow.ExecuteActivity(s.documentCtx(cadEditTimeout, "save "+name), SaveCadDocumentActivity,
		SaveCadDocumentRequest{SessionID: s.in.SessionID, Name: name}).Get(ctx, &saved)
	if err != nil {
		workflow.GetLogger(ctx).Warn("checkpoint not saved; the journal is kept", "session", s.in.SessionID, "error", err)
		return
	}
	s.st.Checkpoint = saved.Document
	s.journal = nil
	s.st.Journal = 0
}

// close saves the document with its STEP, records it in the project when
// there is one, and lets the worker go. A document that cannot be saved
// is said so in the state's error; its last checkpoint stays named.
func (s *cadRun) close(ctx workflow.Context, reason string) {
	if err := s.mu.Lock(ctx); err != nil {
		s.st.Error = err.Error()
		return
	}
	defer s.mu.Unlock()
	s.st.Status = CadSessionClosing
	defer func() { s.st.Status, s.st.ClosedReason = CadSessionClosed, reason }()

	saved, err := s.save(ctx)
	if err != nil {
		s.st.Error = "the document was not saved: " + err.Error()
		s.dropDocument()
		return
	}
	_ = workflow.ExecuteActivity(s.documentCtx(time.Minute, "close the document"), CloseCadDocumentActivity,
		s.in.SessionID).Get(ctx, nil)
	s.dropDocument()
	if s.in.ProjectID != "" {
		rctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:           TaskQueue,
			StartToCloseTimeout: time.Minute,
			RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
			Summary:             "record the document in project " + s.in.ProjectID,
		})
		var rec CadRecorded
		err := workflow.ExecuteActivity(rctx, RecordCadSessionActivity, RecordCadSessionRequest{SessionID: s.in.SessionID,
			ProjectID: s.in.ProjectID, Name: s.in.Name, CreatedBy: s.in.CreatedBy, Saved: saved}).Get(ctx, &rec)
		if err != nil {
			s.st.Error = "the document was saved but not recorded in the project: " + err.Error()
		}
		saved.WorkProductID, saved.WorkProductRef = rec.NodeID, rec.ItemRef
	}
	s.st.Saved = &saved
}

// save writes the final document and its STEP, rebuilding the document
// first if its worker is gone.
func (s *cadRun) save(ctx workflow.Context) (CadSavedDocument, error) {
	var saved CadSavedDocument
	for attempt := 0; ; attempt++ {
		if err := s.openDocument(ctx); err != nil {
			return saved, err
		}
		err := workflow.ExecuteActivity(s.documentCtx(cadEditTimeout, "save the document"), SaveCadDocumentActivity,
			SaveCadDocumentRequest{SessionID: s.in.SessionID, Name: "document.FCStd", Export: true}).Get(ctx, &saved)
		if err == nil {
			return saved, nil
		}
		if !s.documentLost(err) || attempt >= cadMaxRebuilds {
			return saved, err
		}
		s.dropDocument()
	}
}

func orSomeone(by string) string {
	if by == "" {
		return "the client"
	}
	return by
}
