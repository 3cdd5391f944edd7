package twin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
)

// LoopEngine reaches design loops, which are durable processes. The twin's
// loop tools know nothing of Temporal: the server backs this with the
// DesignLoop workflow.
type LoopEngine interface {
	// LoopProcess describes the loop as the detached process that runs
	// it; the starting call's workflow starts it as its child, or finds
	// the one already started with the same inputs (a duplicate).
	LoopProcess(s LoopStart) (adapters.Process, error)
	// LoopState is the loop's state, and whether it still runs.
	LoopState(ctx context.Context, loopID string) (state json.RawMessage, running bool, err error)
	// ApproveLoop records a person's approval of a converged loop.
	ApproveLoop(ctx context.Context, loopID string, a LoopApproval) (json.RawMessage, error)
}

// LoopStart is a loop to start.
type LoopStart struct {
	LoopID, ProjectID, WorkProductID, Parameter string
	LoadN, DeflectionLimitMM, SFLimit           float64
	MinMM, MaxMM, ToleranceMM                   float64
	MaxIterations, ApprovalWindowSeconds        int
}

// LoopApproval is who approves a loop.
type LoopApproval struct {
	Approver string
	Verified bool
	Comment  string
}

// Loop engine errors.
var (
	ErrNoLoop      = errors.New("no such design loop")
	ErrLoopRefused = errors.New("refused")
)

func loopTools() []tool {
	return []tool{startLoopTool("twin.start_design_loop", "wall_thickness_mm"), startLoopTool("twin.start_tube_height_design_loop", "height_mm"),
		getLoopTool(), approveLoopTool()}
}

// startLoopArgs are the arguments of the tools that start a design loop.
type startLoopArgs struct {
	project.Scope
	WorkProductID string   `json:"work_product_id" jsonschema:"the cad_model (node id or item ref) whose recorded tube geometry is searched"`
	LoadN         float64  `json:"load_n" jsonschema:"tip load, N"`
	Deflection    float64  `json:"deflection_limit_mm"`
	SFLimit       *float64 `json:"sf_limit,omitempty" jsonschema:"the least safety factor against yield"`
	MinMM         *float64 `json:"min_mm,omitempty" jsonschema:"the smallest value tried"`
	MaxMM         *float64 `json:"max_mm,omitempty" jsonschema:"the largest value tried"`
	ToleranceMM   *float64 `json:"tolerance_mm,omitempty"`
	MaxIterations int      `json:"max_iterations,omitempty" jsonschema:"the budget of halvings; by default enough for the tolerance"`
	WaitSeconds   *int     `json:"wait_seconds,omitempty" jsonschema:"how long to wait for the search to end before answering"`
}

func startLoopTool(id, parameter string) tool {
	what := "the wall thickness (wall_thickness_mm)"
	if parameter == "height_mm" {
		what = "the tube height (height_mm), its wall held as recorded,"
	}
	return adapters.Declare(adapters.Manifest{ToolID: id, Name: "Start a design loop over " + parameter, Capability: "twin_write",
		Description: "Start a durable design loop (a DesignLoop workflow) that searches " + what + " of a CAD work product's recorded " +
			"hollow-tube cantilever for the lightest value meeting deflection_limit_mm and sf_limit: each candidate is evaluated with the " +
			"closed-form model and persisted as a design_loop_iteration node (CONSTRAINED_BY the loop, SUPERSEDES the one before). It ends " +
			"converged, infeasible (proven: the largest value fails) or out_of_budget (max_iterations is echoed back). Starting the " +
			"same loop again finds the first (duplicate: true). A converged loop waits for twin.approve_design_loop.",
		Idempotent: true, TimeoutSeconds: 180, TaskSupport: adapters.TaskRequired}, func(ctx context.Context, b *Backend, a startLoopArgs) (any, error) {
		return startLoop(ctx, b, a, parameter)
	},
		adapters.At("work_product_id", adapters.MinLength(1)),
		adapters.At("load_n", adapters.ExclusiveMinimum(0)),
		adapters.At("deflection_limit_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("sf_limit", adapters.ExclusiveMinimum(0), adapters.Default(1.5)),
		adapters.At("min_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("max_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("tolerance_mm", adapters.ExclusiveMinimum(0), adapters.Default(0.01)),
		adapters.At("max_iterations", adapters.Minimum(1), adapters.Maximum(200)),
		adapters.At("wait_seconds", adapters.Minimum(0), adapters.Maximum(120), adapters.Default(30)))
}

// followers are the tools that answer from the process they started: a
// design loop, an engineering change.
var followers = map[string]follower{
	"twin.start_design_loop":             followLoop,
	"twin.start_tube_height_design_loop": followLoop,
	"twin.propose_engineering_change":    followChange,
	"twin.propose_change":                followChange,
}

// loopIDRule is a loop id as twin.start_design_loop returns it.
var loopIDRule = adapters.At("loop_id", adapters.Pattern("^[0-9a-f]{16}$"))

func getLoopTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.get_design_loop", Name: "Get a design loop", Capability: "twin_read",
		Description: "A design loop's iteration timeline (parameter value, mass, deflection, safety factor, feasibility, what it did " +
			"to the search), its status and winner: from the running workflow, or from the twin once it has ended. Reads only.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, getLoop, loopIDRule)
}

func approveLoopTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.approve_design_loop", Name: "Approve a design loop", Capability: "twin_write",
		Description: "Record a person's approval of a converged design loop's winner (a decision GENERATED_FROM the winning iteration). " +
			"Always held for an identified approver; refused for a loop that did not converge.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, approveLoop, loopIDRule, adapters.At("comment", adapters.MaxLength(2000)))
}

type loopArgs struct {
	project.Scope
	LoopID string `json:"loop_id"`
}

type approveLoopArgs struct {
	loopArgs
	Comment string `json:"comment,omitempty"`
}

func (b *Backend) loops() (LoopEngine, error) {
	if b.Loops == nil {
		return nil, protocol.Unavailable("design loops need Temporal, which this server is not connected to")
	}
	return b.Loops, nil
}

func startLoop(ctx context.Context, b *Backend, a startLoopArgs, parameter string) (any, error) {
	engine, err := b.loops()
	if err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	tube, err := b.TubeGeometryIn(ctx, p.ID, a.WorkProductID)
	if err != nil {
		return nil, err
	}
	s := LoopStart{ProjectID: p.ID, WorkProductID: tube.WorkProductID, Parameter: parameter, LoadN: a.LoadN, DeflectionLimitMM: a.Deflection,
		SFLimit: 1.5, ToleranceMM: 0.01, MaxIterations: a.MaxIterations}
	if a.SFLimit != nil {
		s.SFLimit = *a.SFLimit
	}
	if a.ToleranceMM != nil {
		s.ToleranceMM = *a.ToleranceMM
	}
	s.MinMM, s.MaxMM = loopRange(tube, parameter)
	if a.MinMM != nil {
		s.MinMM = *a.MinMM
	}
	if a.MaxMM != nil {
		s.MaxMM = *a.MaxMM
	}
	if !(s.MaxMM > s.MinMM) {
		return nil, protocol.Invalid("the range [%g, %g] mm is empty: max_mm must exceed min_mm", s.MinMM, s.MaxMM)
	}
	if s.MaxIterations == 0 {
		s.MaxIterations = iterationsFor(s.MaxMM-s.MinMM, s.ToleranceMM)
	}
	s.LoopID = loopID(s)
	proc, err := engine.LoopProcess(s)
	if err != nil {
		return nil, err
	}
	wait := 30
	if a.WaitSeconds != nil {
		wait = *a.WaitSeconds
	}
	proc.Answer, err = json.Marshal(map[string]any{"loop_id": s.LoopID, "workflow_id": "design-loop-" + s.LoopID,
		"max_iterations": s.MaxIterations, "parameter_name": parameter, "range_mm": []float64{s.MinMM, s.MaxMM}})
	if err != nil {
		return nil, err
	}
	proc.Follow, proc.FollowSeconds = true, wait
	return &adapters.Result{Process: &proc}, nil
}

// followLoop answers a loop's start with the loop as it stands: settled
// once it has stopped searching (converged, infeasible, out of budget).
func followLoop(ctx context.Context, b *Backend, p adapters.Process, s adapters.ProcessStart) (json.RawMessage, bool, error) {
	engine, err := b.loops()
	if err != nil {
		return nil, false, err
	}
	var answer map[string]any
	if err := json.Unmarshal(p.Answer, &answer); err != nil {
		return nil, false, fmt.Errorf("the loop's start answer cannot be read: %w", err)
	}
	loopID, _ := answer["loop_id"].(string)
	state, _, err := engine.LoopState(ctx, loopID)
	if err != nil {
		return nil, false, err
	}
	var st struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(state, &st)
	answer["duplicate"], answer["state"] = s.Duplicate, state
	out, err := json.Marshal(answer)
	return out, st.Status != "running", err
}

// loopRange is the default search range: from half a millimetre (or the
// recorded wall plus a little, for height) to what the section allows.
func loopRange(t TubeGeometry, parameter string) (float64, float64) {
	if parameter == "height_mm" {
		return 2*t.WallMM + 0.5, 4 * t.HeightMM
	}
	return 0.5, min(t.WidthMM, t.HeightMM)/2 - 0.01
}

// iterationsFor is the halvings that bring the range within the tolerance.
func iterationsFor(rangeMM, tol float64) int {
	n := 0
	for r := rangeMM; r > tol; r /= 2 {
		n++
	}
	return max(n, 1)
}

// loopID hashes what makes a loop the same loop: the work product and
// every argument of the search.
func loopID(s LoopStart) string {
	key, _ := json.Marshal([]any{s.ProjectID, s.WorkProductID, s.Parameter, s.LoadN, s.DeflectionLimitMM, s.SFLimit, s.MinMM, s.MaxMM,
		s.ToleranceMM, s.MaxIterations})
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:8])
}

func getLoop(ctx context.Context, b *Backend, a loopArgs) (any, error) {
	engine, err := b.loops()
	if err != nil {
		return nil, err
	}
	state, running, err := engine.LoopState(ctx, a.LoopID)
	if errors.Is(err, ErrNoLoop) {
		return nil, protocol.Refusal("%v; twin.start_design_loop returns a loop_id", err)
	}
	if err != nil {
		return nil, err
	}
	var st map[string]any
	_ = json.Unmarshal(state, &st)
	if running {
		st["source"] = "workflow"
		return st, nil
	}
	p, _ := st["project_id"].(string)
	return b.DesignLoopFromTwin(ctx, p, a.LoopID)
}

func approveLoop(ctx context.Context, b *Backend, a approveLoopArgs) (any, error) {
	engine, err := b.loops()
	if err != nil {
		return nil, err
	}
	ci := adapters.CallInfoFrom(ctx)
	if ci.ApprovedBy == "" {
		return nil, protocol.Refusal("no one approved this call: a design loop's approval records who decided, so an identified person approves it through the approvals queue")
	}
	state, running, err := engine.LoopState(ctx, a.LoopID)
	if errors.Is(err, ErrNoLoop) {
		return nil, protocol.Refusal("%v", err)
	}
	if err != nil {
		return nil, err
	}
	var st struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(state, &st)
	if st.Status == "approved" {
		return nil, protocol.Refusal("design loop %s is already approved", a.LoopID)
	}
	switch {
	case st.Status != "converged":
		return nil, protocol.Refusal("design loop %s did not converge (%s: %s), so there is no winner to approve", a.LoopID, st.Status, st.Reason)
	case !running:
		return nil, protocol.Refusal("design loop %s converged, but its approval window ended with nobody approving it; the same loop is not run again, so record the choice with twin.record_decision or start a loop with different inputs", a.LoopID)
	}
	out, err := engine.ApproveLoop(ctx, a.LoopID, LoopApproval{Approver: ci.ApprovedBy, Verified: ci.ApproverVerified, Comment: a.Comment})
	if errors.Is(err, ErrLoopRefused) {
		return nil, protocol.Refusal("%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"loop_id": a.LoopID, "approved_by": ci.ApprovedBy, "approver_verified": ci.ApproverVerified,
		"state": json.RawMessage(out), "note": "recorded as a decision generated from the winning iteration"}, nil
}
