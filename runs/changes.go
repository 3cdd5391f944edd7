package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/workflows"
)

// Changes reaches EngineeringChange workflows: it backs the twin's change
// tools (twinadapter.ChangeEngine), the REST routes and the CLI.
type Changes struct {
	Client    client.Client
	Namespace string
}

var _ twinadapter.ChangeEngine = (*Changes)(nil)

// ChangeProcess is workflow engineering-change-<changeId>, detached from
// the call that proposes it: a change waits for a person's review.
func (c *Changes) ChangeProcess(s twinadapter.ChangeStart) (adapters.Process, error) {
	in := workflows.EngineeringChangeInput{ChangeID: s.ChangeID, ProjectID: s.ProjectID, Title: s.Title, Reason: s.Reason,
		CreatedBy: s.CreatedBy, AnalyzeNow: s.AnalyzeNow}
	for _, op := range s.Patch {
		in.Patch = append(in.Patch, workflows.ChangePatchOp{Ref: op.Ref, Set: op.Set, Unset: op.Unset, Name: op.Name})
	}
	refs := make([]string, 0, len(s.Patch))
	for _, op := range s.Patch {
		refs = append(refs, op.Ref)
	}
	p, err := process("EngineeringChange", workflows.EngineeringChangeWorkflowID(s.ChangeID), in, s.ProjectID,
		fmt.Sprintf("engineering change %q on %s, proposed by %s", s.Title, strings.Join(refs, ", "), s.CreatedBy))
	p.Detached = true
	return p, err
}

// ChangeState asks a change's workflow where it stands; a closed change
// answers from its history.
func (c *Changes) ChangeState(ctx context.Context, changeID string) (json.RawMessage, bool, error) {
	st, running, err := c.State(ctx, changeID)
	if err != nil {
		return nil, false, err
	}
	raw, err := json.Marshal(st)
	return raw, running, err
}

// State is a change as it stands, and whether its workflow still runs.
func (c *Changes) State(ctx context.Context, changeID string) (workflows.ChangeState, bool, error) {
	id := workflows.EngineeringChangeWorkflowID(changeID)
	d, err := c.Client.DescribeWorkflowExecution(ctx, id, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return workflows.ChangeState{}, false, fmt.Errorf("engineering change %s does not exist: %w", changeID, twinadapter.ErrNoChange)
	}
	if err != nil {
		return workflows.ChangeState{}, false, err
	}
	running := d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	v, err := c.Client.QueryWorkflow(ctx, id, "", workflows.ChangeStateQuery)
	if err != nil {
		return workflows.ChangeState{}, running, err
	}
	var st workflows.ChangeState
	err = v.Get(&st)
	return st, running, err
}

// ChangeStep sends one step to a change as its Update and answers with the
// state the step left. A step the change refuses (its validator: the
// wrong state, a self-approval) is ErrChangeRefused with the reason.
func (c *Changes) ChangeStep(ctx context.Context, changeID string, s twinadapter.ChangeStep) (json.RawMessage, error) {
	st, err := c.Step(ctx, changeID, s)
	if err != nil {
		return nil, err
	}
	return json.Marshal(st)
}

// Step is ChangeStep with the state as a value.
func (c *Changes) Step(ctx context.Context, changeID string, s twinadapter.ChangeStep) (workflows.ChangeState, error) {
	name, arg := "", any(workflows.ChangeAction{By: s.By, Reason: s.Reason})
	switch s.Name {
	case twinadapter.StepAnalyze:
		name = workflows.AnalyzeChangeUpdate
	case twinadapter.StepApprove, twinadapter.StepReject:
		name = workflows.ReviewChangeUpdate
		arg = workflows.ChangeDecision{Approve: s.Name == twinadapter.StepApprove, By: s.By, Verified: s.Verified, Comment: s.Comment}
	case twinadapter.StepCommit:
		name = workflows.CommitChangeUpdate
	case twinadapter.StepRevalidate:
		name = workflows.RevalidateChangeUpdate
	case twinadapter.StepRollBack:
		name = workflows.RollBackChangeUpdate
	default:
		return workflows.ChangeState{}, fmt.Errorf("%q is not a step of an engineering change: %w", s.Name, twinadapter.ErrChangeRefused)
	}
	h, err := c.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: workflows.EngineeringChangeWorkflowID(changeID),
		UpdateName: name, WaitForStage: client.WorkflowUpdateStageCompleted, Args: []any{arg}})
	var st workflows.ChangeState
	if err == nil {
		err = h.Get(ctx, &st)
	}
	var notFound *serviceerror.NotFound
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		return st, nil
	case errors.As(err, &notFound):
		if _, _, derr := c.State(ctx, changeID); errors.Is(derr, twinadapter.ErrNoChange) {
			return st, derr
		}
		return st, fmt.Errorf("engineering change %s has ended, so it takes no more steps: %w", changeID, twinadapter.ErrChangeRefused)
	case errors.As(err, &appErr):
		return st, fmt.Errorf("%s: %w", appErr.Message(), twinadapter.ErrChangeRefused)
	}
	return st, err
}

// ChangeSummary is one change in a list.
type ChangeSummary struct {
	ChangeID   string    `json:"change_id"`
	ProjectID  string    `json:"project_id"`
	Title      string    `json:"title"`
	Status     string    `json:"status"`
	CreatedBy  string    `json:"created_by"`
	Running    bool      `json:"running"`
	StartedAt  time.Time `json:"started_at"`
	WorkflowID string    `json:"workflow_id"`
}

var (
	projectIDPattern   = regexp.MustCompile(`^[A-Za-z0-9_.:\-]{1,128}$`)
	changeIDPattern    = regexp.MustCompile(`^[0-9a-f]{16}$`)
	changeStatePattern = regexp.MustCompile(`^[A-Z_]{1,32}$`)
)

// ListChanges lists the changes of a project (all, for ""), open ones
// first, newest first, from Temporal's visibility; a status narrows them
// (MfChange).
func (c *Changes) ListChanges(ctx context.Context, projectID, status string) ([]ChangeSummary, error) {
	query := "WorkflowType = 'EngineeringChange'"
	if projectID != "" {
		if !projectIDPattern.MatchString(projectID) {
			return nil, fmt.Errorf("project %q is not a project id: %w", projectID, twinadapter.ErrChangeRefused)
		}
		query += fmt.Sprintf(" AND %s = '%s'", workflows.AttrProject.GetName(), projectID)
	}
	if status != "" {
		if !changeStatePattern.MatchString(status) {
			return nil, fmt.Errorf("status %q is not a change state (PROPOSED, READY_FOR_REVIEW, COMMITTED, ...): %w", status, twinadapter.ErrChangeRefused)
		}
		query += fmt.Sprintf(" AND %s = '%s'", workflows.AttrChange.GetName(), status)
	}
	out := []ChangeSummary{}
	var token []byte
	for {
		resp, err := c.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: c.namespace(), Query: query,
			NextPageToken: token, PageSize: 500})
		if err != nil {
			return nil, fmt.Errorf("list engineering changes: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			id := strings.TrimPrefix(e.GetExecution().GetWorkflowId(), "engineering-change-")
			st, _, err := c.State(ctx, id)
			if err != nil {
				continue // a change whose state cannot be read now is left out, not invented
			}
			out = append(out, ChangeSummary{ChangeID: id, ProjectID: st.ProjectID, Title: st.Title, Status: st.Status, CreatedBy: st.CreatedBy,
				Running: e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, StartedAt: e.GetStartTime().AsTime(),
				WorkflowID: e.GetExecution().GetWorkflowId()})
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Running != out[j].Running {
			return out[i].Running
		}
		return out[i].StartedAt.After(out[j].StartedAt)
	})
	return out, nil
}

func (c *Changes) namespace() string {
	if c.Namespace == "" {
		return "default"
	}
	return c.Namespace
}
