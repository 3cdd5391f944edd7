package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/workflows"
)

// Loops reaches DesignLoop workflows: it backs the twin's design-loop
// tools (twinadapter.LoopEngine).
type Loops struct {
	Client client.Client
}

var _ twinadapter.LoopEngine = (*Loops)(nil)

// LoopProcess is workflow design-loop-<loopId>, detached from the call
// that starts it (a converged loop waits for a person's approval). The id
// is the hash of the loop's inputs, so a second start of the same loop
// finds the first, running or ended, and reports it as a duplicate.
func (l *Loops) LoopProcess(s twinadapter.LoopStart) (adapters.Process, error) {
	in := workflows.DesignLoopInput{LoopID: s.LoopID, ProjectID: s.ProjectID, WorkProductID: s.WorkProductID, Parameter: s.Parameter,
		LoadN: s.LoadN, DeflectionMM: s.DeflectionLimitMM, SFLimit: s.SFLimit, MinMM: s.MinMM, MaxMM: s.MaxMM, ToleranceMM: s.ToleranceMM,
		MaxIterations: s.MaxIterations, ApprovalWindowSeconds: s.ApprovalWindowSeconds}
	p, err := process("DesignLoop", workflows.DesignLoopWorkflowID(s.LoopID), in, s.ProjectID,
		fmt.Sprintf("design loop over %s of %s: deflection ≤ %g mm, safety factor ≥ %g, %g N",
			s.Parameter, s.WorkProductID, s.DeflectionLimitMM, s.SFLimit, s.LoadN))
	p.Detached = true
	return p, err
}

// LoopState asks a loop's workflow where it stands; running is false once
// it has ended (its record is then the twin's).
func (l *Loops) LoopState(ctx context.Context, loopID string) (json.RawMessage, bool, error) {
	id := workflows.DesignLoopWorkflowID(loopID)
	d, err := l.Client.DescribeWorkflowExecution(ctx, id, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil, false, fmt.Errorf("design loop %s does not exist: %w", loopID, twinadapter.ErrNoLoop)
	}
	if err != nil {
		return nil, false, err
	}
	running := d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	v, err := l.Client.QueryWorkflow(ctx, id, "", workflows.LoopStateQuery)
	if err != nil {
		return nil, running, err
	}
	var st workflows.LoopState
	if err := v.Get(&st); err != nil {
		return nil, running, err
	}
	raw, err := json.Marshal(st)
	return raw, running, err
}

// ApproveLoop sends a person's approval to a converged loop.
func (l *Loops) ApproveLoop(ctx context.Context, loopID string, a twinadapter.LoopApproval) (json.RawMessage, error) {
	h, err := l.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: workflows.DesignLoopWorkflowID(loopID),
		UpdateName: workflows.ApproveLoopUpdate, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{workflows.LoopApproval{Approver: a.Approver, ApproverVerified: a.Verified, Comment: a.Comment}}})
	var st workflows.LoopState
	if err == nil {
		err = h.Get(ctx, &st)
	}
	if err != nil {
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			return nil, fmt.Errorf("%s: %w", appErr.Message(), twinadapter.ErrLoopRefused)
		}
		return nil, fmt.Errorf("design loop %s cannot be approved now (%v): %w", loopID, err, twinadapter.ErrLoopRefused)
	}
	return json.Marshal(st)
}
