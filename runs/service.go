// Package runs is the Temporal side of the tools whose work is a durable
// process. It describes the processes those tools prepare (a design-flow
// run, a design loop, an evaluation, an approval held in the queue) as
// adapters.Process values their call's workflow runs as its child, and it
// reaches running design flows: their state by Query, and claims,
// submissions, gate decisions and patches by Update. It implements the
// interfaces the flow and twin adapters declare (the flow tools' Engine,
// the design-loop and evaluation engines), and serves the REST routes
// /v1/runs, the /runs page and the CLI's run verbs.
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
	"github.com/metaforge/metaforge/adapters/flow"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/workflows"
)

// Service reaches the runs on one Temporal namespace.
type Service struct {
	Client    client.Client
	Namespace string
	// Registry resolves the tool a held approval call runs.
	Registry *adapters.Registry
	// ApprovalWindowSeconds bounds how long a flow version's approval
	// waits in the queue; 0 is a gate's default window (24 h).
	ApprovalWindowSeconds int
}

var _ flow.Engine = (*Service)(nil)

// runIDPattern is a run id: the 16 hex digits of the call that started it.
var runIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

func checkRunID(runID string) error {
	if !runIDPattern.MatchString(runID) {
		return fmt.Errorf("run id %q is not a run id (16 hex digits, from flow.start_run): %w", runID, flow.ErrNoRun)
	}
	return nil
}

// RunProcess is workflow design-flow-<runId>, detached from the call that
// starts it (a run lives for days, at its gates). The run id is the
// starting call's, so a retried call finds the run it started.
func (s *Service) RunProcess(in flows.DesignFlowInput) (adapters.Process, error) {
	first := ""
	if len(in.Flow.Phases) > 0 {
		first = in.Flow.Phases[0].Name
	}
	p, err := process("DesignFlow", workflows.DesignFlowWorkflowID(in.RunID), in, in.ProjectID,
		fmt.Sprintf("%s run for project %s: %s", in.Flow.ID, in.ProjectID, clip(in.Goal, 120)))
	p.SearchAttributes[workflows.AttrFlow.GetName()] = in.Flow.ID
	p.SearchAttributes[workflows.AttrPhase.GetName()] = first
	p.SearchAttributes[workflows.AttrGate.GetName()] = flows.GateNone
	p.Detached = true
	return p, err
}

// StartRun starts a run from outside a tool call (the benchmarks, a
// client of this package). Starting a run that exists is a success.
func (s *Service) StartRun(ctx context.Context, in flows.DesignFlowInput) error {
	p, err := s.RunProcess(in)
	if err != nil {
		return err
	}
	return s.Start(ctx, p)
}

// RunState asks the run's workflow where it stands.
func (s *Service) RunState(ctx context.Context, runID string) (flows.RunState, error) {
	if err := checkRunID(runID); err != nil {
		return flows.RunState{}, err
	}
	v, err := s.Client.QueryWorkflow(ctx, workflows.DesignFlowWorkflowID(runID), "", workflows.RunStateQuery)
	if err != nil {
		return flows.RunState{}, s.runError(runID, err)
	}
	var st flows.RunState
	if err := v.Get(&st); err != nil {
		return flows.RunState{}, err
	}
	return st, nil
}

// ListRuns lists the runs (running first, then ended; newest first within
// each), in one project when projectID is given.
func (s *Service) ListRuns(ctx context.Context, projectID string) ([]flows.RunState, error) {
	query := "WorkflowType = 'DesignFlow' AND ExecutionStatus != 'ContinuedAsNew'"
	if projectID != "" {
		if !regexp.MustCompile(`^[A-Za-z0-9_.:\-]{1,128}$`).MatchString(projectID) {
			return nil, fmt.Errorf("project %q is not a project id: %w", projectID, flow.ErrRefused)
		}
		query += fmt.Sprintf(" AND %s = '%s'", workflows.AttrProject.GetName(), projectID)
	}
	type found struct {
		id      string
		running bool
		start   time.Time
	}
	var all []found
	var token []byte
	for {
		resp, err := s.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: s.namespace(), Query: query, NextPageToken: token, PageSize: 500})
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			all = append(all, found{id: strings.TrimPrefix(e.GetExecution().GetWorkflowId(), "design-flow-"),
				running: e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, start: e.GetStartTime().AsTime()})
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].running != all[j].running {
			return all[i].running
		}
		return all[i].start.After(all[j].start)
	})
	out := []flows.RunState{}
	for _, f := range all {
		st, err := s.RunState(ctx, f.id)
		if err != nil {
			continue // a run whose state cannot be read now is left out, not invented
		}
		out = append(out, st)
	}
	return out, nil
}

// Claim takes the phase the run waits on.
func (s *Service) Claim(ctx context.Context, runID string, c flows.ClaimRequest) (flows.PhaseBrief, error) {
	var b flows.PhaseBrief
	return b, s.update(ctx, runID, workflows.ClaimUpdate, c, &b)
}

// Submit hands a claimed phase back.
func (s *Service) Submit(ctx context.Context, runID string, sub flows.Submission) (flows.RunState, error) {
	var st flows.RunState
	return st, s.update(ctx, runID, workflows.SubmitUpdate, sub, &st)
}

// EvaluateGate judges the waiting gate again against the twin.
func (s *Service) EvaluateGate(ctx context.Context, runID string) (flows.GateState, error) {
	var g flows.GateState
	return g, s.update(ctx, runID, workflows.EvaluateGateUpdate, nil, &g)
}

// Decide applies a person's decision to the waiting gate. An approval is
// judged against what the twin holds now: the gate is judged again first.
func (s *Service) Decide(ctx context.Context, runID string, d flows.GateDecision) (flows.RunState, error) {
	if d.Decision == flows.DecisionApprove {
		if _, err := s.EvaluateGate(ctx, runID); err != nil {
			return flows.RunState{}, err
		}
	}
	var st flows.RunState
	return st, s.update(ctx, runID, workflows.DecideGateUpdate, d, &st)
}

// ProposeDecision records a decision proposed in a client's chat, for an
// identified person to confirm.
func (s *Service) ProposeDecision(ctx context.Context, runID string, d flows.ProposedDecision) (flows.GateState, error) {
	var g flows.GateState
	return g, s.update(ctx, runID, workflows.ProposeDecisionUpdate, d, &g)
}

// Patch applies an approved patch at the waiting gate.
func (s *Service) Patch(ctx context.Context, runID string, p flows.PatchRequest) (flows.RunState, error) {
	var st flows.RunState
	return st, s.update(ctx, runID, workflows.PatchUpdate, p, &st)
}

// update sends one Update and waits for its result. A validator's refusal
// comes back as flow.ErrRefused with the validator's own sentence.
func (s *Service) update(ctx context.Context, runID, name string, arg any, into any) error {
	if err := checkRunID(runID); err != nil {
		return err
	}
	opts := client.UpdateWorkflowOptions{WorkflowID: workflows.DesignFlowWorkflowID(runID), UpdateName: name,
		WaitForStage: client.WorkflowUpdateStageCompleted}
	if arg != nil {
		opts.Args = []any{arg}
	}
	h, err := s.Client.UpdateWorkflow(ctx, opts)
	if err == nil {
		err = h.Get(ctx, into)
	}
	if err != nil {
		return s.runError(runID, err)
	}
	return nil
}

// runError says what went wrong in the words of the run.
func (s *Service) runError(runID string, err error) error {
	var notFound *serviceerror.NotFound
	var appErr *temporal.ApplicationError
	msg := err.Error()
	switch {
	case errors.As(err, &notFound):
		return fmt.Errorf("run %s does not exist: %w", runID, flow.ErrNoRun)
	case strings.Contains(msg, "workflow execution already completed"):
		return fmt.Errorf("run %s has ended: flow.status shows how: %w", runID, flow.ErrRefused)
	case errors.As(err, &appErr):
		return fmt.Errorf("%s: %w", appErr.Message(), flow.ErrRefused)
	}
	return err
}

// ApprovalProcess is a held ToolCall of a human-authority tool,
// call-<callID>, detached from the call that asks for it, so the approval
// waits in the approvals queue for an identified person. Holding the same
// call again finds the first.
func (s *Service) ApprovalProcess(toolID string, args json.RawMessage, projectID, summary, callID, requester string) (adapters.Process, error) {
	return s.heldProcess(toolID, args, projectID, summary, callID, requester, "a flow version runs only once an identified person approves it")
}

// heldProcess is a held ToolCall of toolID, decided on the dashboard
// route; reason says why it is held.
func (s *Service) heldProcess(toolID string, args json.RawMessage, projectID, summary, callID, requester, reason string) (adapters.Process, error) {
	m, _, ok := s.Registry.Tool(toolID)
	if !ok {
		return adapters.Process{}, fmt.Errorf("%s is not served, so nothing can approve this", toolID)
	}
	window := s.ApprovalWindowSeconds
	if window <= 0 {
		window = 24 * 60 * 60
	}
	in := workflows.ToolCallInput{CallID: callID, ToolID: toolID, AdapterID: m.AdapterID, Arguments: args,
		TimeoutSeconds: m.TimeoutSeconds, Idempotent: m.Idempotent, Retries: m.Retries, Caller: workflows.StepCaller, Requester: requester,
		Hold: &workflows.Hold{ApprovalID: callID, Route: workflows.RouteDashboard, WindowSeconds: window, Reason: reason, HumanAuthority: true}}
	ask, err := json.Marshal(approvals.Ask{ToolID: toolID, AdapterID: m.AdapterID, Summary: summary, Reason: reason, Caller: workflows.StepCaller,
		Requester: requester, ProjectID: projectID, Route: workflows.RouteDashboard, WindowSeconds: window})
	if err != nil {
		return adapters.Process{}, err
	}
	p, err := process("ToolCall", workflows.CallWorkflowID(callID), in, projectID, summary)
	p.SearchAttributes[workflows.AttrTool.GetName()] = toolID
	p.SearchAttributes[workflows.AttrAdapter.GetName()] = m.AdapterID
	p.SearchAttributes[workflows.AttrCaller.GetName()] = workflows.StepCaller
	p.SearchAttributes[workflows.AttrHold.GetName()] = workflows.HoldPending
	p.Memo = map[string]json.RawMessage{approvals.MemoKey: ask}
	p.Summary = ""
	p.Detached = true
	return p, err
}

// HoldForApproval holds a human-authority call from outside a tool call
// and returns its approval id (callID).
func (s *Service) HoldForApproval(ctx context.Context, toolID string, args json.RawMessage, projectID, summary, callID string) (string, error) {
	p, err := s.ApprovalProcess(toolID, args, projectID, summary, callID, "")
	if err != nil {
		return "", err
	}
	return callID, s.Start(ctx, p)
}

func (s *Service) namespace() string {
	if s.Namespace == "" {
		return "default"
	}
	return s.Namespace
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
