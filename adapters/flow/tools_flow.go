package flow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/protocol"
)

func flowTools() []tool {
	return []tool{
		adapters.Declare(adapters.Manifest{ToolID: "flow.list", Name: "List design flows", Capability: "design_flow",
			Description: "Every launchable design flow (hardware_v1, mech_v1, design_v1) with its phases, gates, required deliverables, " +
				"each gate's criteria, and whether it passes the invariants every flow keeps (listed too). Reads only.",
			Idempotent: true, TimeoutSeconds: 10}, listFlows),
		adapters.Declare(adapters.Manifest{ToolID: "flow.compile_intent", Name: "Compile an intent", Capability: "design_flow",
			Description: "Turn a goal into the structured intent: goal versus immediate request, categorised constraints, measurable " +
				"success criteria (metric, operator, limit, unit), loads in engineering units (a mass a part holds, carries or supports " +
				"is its weight, m x 9.80665 N, the conversion shown; forces and pressures as stated) with the load cases they imply " +
				"(load_case_drafts), material, manufacturing route, and unknowns marked blocking. Deterministic; stores nothing.",
			Idempotent: true, TimeoutSeconds: 10}, compileIntent, intentRules...),
		adapters.Declare(adapters.Manifest{ToolID: "flow.propose", Name: "Propose a flow version", Capability: "design_flow",
			Description: "Tailor a template to a goal and hold the result for a person: records a flow version in the project and puts " +
				"its approval in the approvals queue, where an identified person approves it (the /approvals page, POST /v1/approvals/{id}/decision, " +
				"or metaforge approve ID). Returns the changes, flow_version_id and approval_id; starts no run. The goal's loads (a mass held is its weight, m x 9.80665 N) are recorded as draft load cases (load_case_drafts) for the requirements phase to complete with twin.record_load_case. When the goal leaves the " +
				"manufacturing route, target maturity or loads unknown, returns status needs_input with the questions and records nothing.",
			Idempotent: true, TimeoutSeconds: 30}, propose, slices.Concat(intentRules, []adapters.SchemaRule{adapters.At("project_id", adapters.MinLength(1)), flowRule})...),
		adapters.Declare(adapters.Manifest{ToolID: "flow.start_run", Name: "Start a design-flow run", Capability: "design_flow",
			Description: "Start a run of a flow version a person approved (refused, with who to ask, until then). The run is a durable " +
				"DesignFlow workflow: each phase waits for the connected client (phase.list_tasks, phase.claim, phase.submit), except an " +
				"analysis phase with load cases: the usual way is to record them in the twin (twin.record_load_case), and the phase then " +
				"meshes and solves each against its part's current revision when it runs, recording the evidence against that revision; " +
				"or inputs.load_cases gives complete calculix.run_fea arguments per case ({name, arguments, valid_against}). Likewise " +
				"hardware_v1's schematic phase runs itself given inputs.schematic (kicad.generate_schematic arguments; the server then " +
				"runs kicad.run_erc on the file written and records erc_errors), and its layout phase given inputs.board " +
				"(kicad.auto_route arguments; then kicad.run_drc on the routed board, recording drc_errors and unrouted_connections). " +
				"Each gate is judged against the twin and decided by a person. Returns run_id.",
			Idempotent: true, TimeoutSeconds: 30}, startRun, startRunRules...),
		adapters.Declare(adapters.Manifest{ToolID: "flow.status", Name: "Run status", Capability: "design_flow",
			Description: "Phase-by-phase state of one run: each phase's status, claimant, submission and steps; each gate's criteria " +
				"results, decision and the decisions it allows now. Reads only.",
			Idempotent: true, TimeoutSeconds: 15}, status, runIDRule),
		adapters.Declare(adapters.Manifest{ToolID: "flow.await_gate", Name: "Wait for a gate", Capability: "design_flow",
			Description: "Wait up to wait_seconds for the run's next gate, judge it against what the twin holds now, and return its " +
				"criteria, the decisions it allows (approve only when nothing fails or lacks data without an approved waiver) and where an " +
				"identified person decides it (REST, CLI, the /runs page). Returns at once if the run is at a gate or has ended.",
			Idempotent: true, TimeoutSeconds: 700}, awaitGate, runIDRule, adapters.At("wait_seconds", adapters.Minimum(0), adapters.Maximum(600), adapters.Default(60))),
		adapters.Declare(adapters.Manifest{ToolID: "flow.propose_gate_decision", Name: "Propose a gate decision", Capability: "design_flow",
			Description: "Record a decision proposed in the client's chat for the gate a run waits at (flow.await_gate asks it): only " +
				"a decision the gate allows now. It decides nothing: an identified person confirms it on the /runs page, over REST " +
				"or with metaforge run decide, and sees the proposal there.",
			Idempotent: true, TimeoutSeconds: 30}, proposeGateDecision, runIDRule, adapters.At("gate", adapters.MinLength(1)),
			adapters.At("answer.decision", adapters.Enum(flows.DecisionApprove, flows.DecisionReject, flows.DecisionRework)),
			adapters.At("answer.comment", adapters.MaxLength(4000))),
		adapters.Declare(adapters.Manifest{ToolID: "flow.verify_completion", Name: "Verify completion", Capability: "design_flow",
			Description: "The completion verdict of a run's project: COMPLETED_VERIFIED only when every requirement passes with current " +
				"evidence; otherwise COMPLETED_UNVERIFIED with the requirements that block it. Reads only.",
			Idempotent: true, TimeoutSeconds: 30}, verifyCompletion, runIDRule),
		adapters.Declare(adapters.Manifest{ToolID: "flow.lifecycle", Name: "Run lifecycle", Capability: "design_flow",
			Description: "Per phase: execution state, whether it can be claimed now, its gate's last judgement; the requirements with " +
				"their live status (stale evidence shown as stale), the capability gaps, and the completion verdict. Reads only.",
			Idempotent: true, TimeoutSeconds: 30}, lifecycle, runIDRule),
		adapters.Declare(adapters.Manifest{ToolID: "flow.capabilities", Name: "Flow capabilities", Capability: "design_flow",
			Description: "Per phase of a flow: the tools it needs, which this server serves and which it does not, as a gap register " +
				"with severities (a phase with no served tool is high) and workarounds. Reads only.",
			Idempotent: true, TimeoutSeconds: 10}, capabilities, flowRule),
		adapters.Declare(adapters.Manifest{ToolID: "flow.patch", Name: "Patch a running flow", Capability: "design_flow",
			Description: "Change a running flow at its waiting gate: a phase's brief, deliverables, gate criteria or gate window. Always held " +
				"for an identified person; once approved the run continues as new on the patched flow and re-runs only what the patch " +
				"touches (a phase already run is run again; a change to the current or a later phase re-judges the current gate).",
			Idempotent: true, TimeoutSeconds: 30}, patchRun, runIDRule,
			// flows.Patch is also the run's record, so its required fields are said here.
			adapters.At("patch", adapters.Require("phase", "reason")),
			adapters.At("patch.phase", adapters.MinLength(1)), adapters.At("patch.reason", adapters.MinLength(1)),
			adapters.At("patch.add_deliverables[]", adapters.MinLength(1)), adapters.At("patch.add_criteria[]", adapters.MinLength(1)),
			adapters.At("patch.remove_criteria[]", adapters.MinLength(1)), adapters.At("patch.gate_window_seconds", adapters.Minimum(60))),
	}
}

var intentRules = []adapters.SchemaRule{
	adapters.At("goal", adapters.MinLength(3), adapters.MaxLength(4000)),
	adapters.At("request", adapters.MaxLength(4000)),
	adapters.At("manufacturing_context", adapters.MaxLength(1000)),
	adapters.At("target_maturity", adapters.MaxLength(200)),
	adapters.At("loads_and_use", adapters.MaxLength(2000)),
	adapters.At("budget", adapters.MaxLength(500)),
}

// flowRule names the launchable templates.
var flowRule = adapters.At("flow", adapters.Enum("hardware_v1", "mech_v1", "design_v1"))

// startRunRules are flow.start_run's (and run.start_design_flow's). Inputs
// is a map in Go, keyed by run input; the schema names the inputs the
// templates' steps read (runInputs), each a list of cases whose arguments
// are its first step's tool's.
var startRunRules = func() []adapters.SchemaRule {
	inputs := runInputs()
	rules := []adapters.SchemaRule{
		adapters.At("flow_version_id", adapters.MinLength(1)),
		adapters.At("inputs", func(s *jsonschema.Schema) {
			s.Properties = map[string]*jsonschema.Schema{}
			for _, in := range inputs {
				s.Properties[in.name] = s.AdditionalProperties.CloneSchemas()
			}
			s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
		}),
	}
	for _, in := range inputs {
		at := "inputs." + in.name
		rules = append(rules,
			adapters.At(at, adapters.MinItems(1), adapters.MaxItems(20)),
			// StepCase is also the workflow's input, so its required fields are said here.
			adapters.At(at+"[]", adapters.Require("arguments", "valid_against")),
			adapters.At(at+"[].arguments", adapters.Type("object"), adapters.Describe(in.tool+" arguments")),
			adapters.At(at+"[].valid_against", adapters.MinItems(1), adapters.Describe("the revisions the result is computed against (KEY@n)")),
			adapters.At(at+"[].valid_against[]", adapters.MinLength(1)))
	}
	return rules
}()

// runInput is a run input a template's steps read, and the tool its
// entries are the arguments of.
type runInput struct{ name, tool string }

// runInputs are the run inputs the templates' phases run their steps over
// (load_cases, schematic, board), once each, in template order.
func runInputs() []runInput {
	var out []runInput
	seen := map[string]bool{}
	for _, f := range flows.Templates() {
		for _, p := range f.Phases {
			if len(p.Steps) == 0 || seen[p.Steps[0].ForEach] {
				continue
			}
			seen[p.Steps[0].ForEach] = true
			out = append(out, runInput{p.Steps[0].ForEach, p.Steps[0].ToolID})
		}
	}
	return out
}

// runIDArgs are the arguments of a tool that reads one run.
type runIDArgs struct {
	RunID string `json:"run_id" jsonschema:"the run's id, from flow.start_run"`
}

// runIDRule is a run id's form: the id of the call that started it.
var runIDRule = adapters.At("run_id", adapters.Pattern("^[0-9a-f]{16}$"))

type awaitArgs struct {
	runIDArgs
	WaitSeconds *int `json:"wait_seconds,omitempty"`
}

type gateDecisionArgs struct {
	runIDArgs
	Gate   string `json:"gate"`
	Answer struct {
		Decision string `json:"decision"`
		ReworkTo string `json:"rework_to,omitempty"`
		Comment  string `json:"comment,omitempty"`
	} `json:"answer"`
}

type patchArgs struct {
	runIDArgs
	Patch flows.Patch `json:"patch"`
}

type capabilitiesArgs struct {
	Flow string `json:"flow"`
}

func listFlows(ctx context.Context, s *Service, _ struct{}) (any, error) {
	var out []map[string]any
	for _, f := range flows.Templates() {
		row := map[string]any{"flow": f, "invariants_pass": true}
		if err := flows.Check(f); err != nil {
			row["invariants_pass"], row["invariant_errors"] = false, err.Error()
		}
		out = append(out, row)
	}
	return map[string]any{"flows": out, "invariants": flows.Invariants()}, nil
}

type intentArgs struct {
	Goal                 string `json:"goal" jsonschema:"what the design is for, in a sentence or two"`
	Request              string `json:"request,omitempty" jsonschema:"what is asked for right now, when it differs from the goal"`
	ManufacturingContext string `json:"manufacturing_context,omitempty" jsonschema:"the manufacturing route: cnc_milling, sheet_metal, 3d_printing, pcb_assembly..."`
	TargetMaturity       string `json:"target_maturity,omitempty" jsonschema:"concept, prototype, production"`
	LoadsAndUse          string `json:"loads_and_use,omitempty" jsonschema:"loads, environment and use, when the goal does not say"`
	Budget               string `json:"budget,omitempty"`
}

func (a intentArgs) input() flows.IntentInput {
	return flows.IntentInput{Goal: a.Goal, Request: a.Request, ManufacturingContext: a.ManufacturingContext,
		TargetMaturity: a.TargetMaturity, LoadsAndUse: a.LoadsAndUse, Budget: a.Budget}
}

func compileIntent(ctx context.Context, s *Service, a intentArgs) (any, error) {
	return flows.CompileIntentWith(a.input()), nil
}

// approvalCallID is the id of the held call asking for a version's
// approval: derived from the version, so it can be named again later.
func approvalCallID(versionID string) string {
	sum := sha256.Sum256([]byte("approve-flow-version/" + versionID))
	return hex.EncodeToString(sum[:8])
}

func propose(ctx context.Context, s *Service, a proposeArgs) (any, error) {
	if _, err := s.Store.GetProject(ctx, a.ProjectID); err != nil {
		return nil, protocol.Refusal("project %q does not exist: project.list names them", a.ProjectID)
	}
	template, err := flows.Template(a.Flow)
	if err != nil {
		return nil, protocol.Invalid("%v", err)
	}
	intent := flows.CompileIntentWith(a.input())
	if qs := flows.Questions(intent); len(qs) > 0 {
		return map[string]any{"status": "needs_input", "questions": qs, "intent": intent,
			"detail": "answer these (pass manufacturing_context, target_maturity or loads_and_use) and propose again; nothing was recorded"}, nil
	}
	tailored, changes := flows.Tailor(template, intent)
	if err := flows.Check(tailored); err != nil {
		return nil, fmt.Errorf("the tailored flow breaks an invariant (a defect in the template): %w", err)
	}
	n, err := recordVersion(ctx, s, a.ProjectID, a.Goal, tailored, intent, changes)
	if err != nil {
		return nil, err
	}
	drafts, err := recordLoadCaseDrafts(ctx, s, a.ProjectID, intent.LoadCaseDrafts)
	if err != nil {
		return nil, err
	}
	args, _ := json.Marshal(map[string]any{"project_id": a.ProjectID, "node_id": n.ID,
		"comment": fmt.Sprintf("approve flow version %s (%s) to be run", n.ID, tailored.ID)})
	summary := fmt.Sprintf("Approve design flow %s for %q: %d phases, %d changes from the template", tailored.ID, clip(a.Goal, 200),
		len(tailored.Phases), len(changes))
	approvalID := approvalCallID(n.ID)
	// Whoever proposed the version cannot approve it: the approval's hold
	// records her.
	hold, err := s.Engine.ApprovalProcess(ApproveTool, args, a.ProjectID, summary, approvalID, adapters.CallInfoFrom(ctx).Requester)
	if err != nil {
		return nil, fmt.Errorf("the version %s is recorded but its approval could not be queued: %w", n.ID, err)
	}
	return detached(hold, map[string]any{"status": "proposed", "flow_version_id": n.ID, "approval_id": approvalID, "flow": tailored,
		"changes": changes, "intent": intent, "load_case_drafts": drafts,
		"next": "an identified person approves " + approvalID + " (the /approvals page, POST /v1/approvals/" + approvalID +
			"/decision, or metaforge approve " + approvalID + "); then flow.start_run with flow_version_id " + n.ID})
}

type proposeArgs struct {
	ProjectID string `json:"project_id"`
	Flow      string `json:"flow"`
	intentArgs
}

type startArgs struct {
	FlowVersionID string                      `json:"flow_version_id"`
	Inputs        map[string][]flows.StepCase `json:"inputs,omitempty"`
}

// startRun starts a run of an approved version. The run id is the
// starting call's id, so a retried call finds the run it started.
func startRun(ctx context.Context, s *Service, a startArgs) (any, error) {
	v, err := loadVersion(ctx, s, a.FlowVersionID)
	if err != nil {
		return nil, err
	}
	if v.ApprovedBy == "" {
		id := approvalCallID(v.ID)
		return nil, protocol.Refusal("flow version %s has not been approved: an identified person approves %s first "+
			"(the /approvals page, POST /v1/approvals/%s/decision, or metaforge approve %s)", v.ID, id, id, id)
	}
	ci := adapters.CallInfoFrom(ctx)
	runID := ci.CallID
	if runID == "" {
		return nil, errors.New("a run is started by a tool call, which names it")
	}
	in := flows.DesignFlowInput{RunID: runID, ProjectID: v.ProjectID, Goal: v.Goal, FlowVersionID: v.ID, Flow: v.Flow,
		StartedBy: claimant(ci), Inputs: a.Inputs}
	run, err := s.Engine.RunProcess(in)
	if err != nil {
		return nil, err
	}
	return detached(run, map[string]any{"run_id": runID, "workflow_id": run.ID, "project_id": v.ProjectID,
		"flow": v.Flow.ID, "flow_version_id": v.ID, "approved_by": v.ApprovedBy, "first_phase": v.Flow.Phases[0].Name,
		"next": "phase.list_tasks, then phase.claim with this run_id"})
}

func status(ctx context.Context, s *Service, a runIDArgs) (any, error) {
	return s.Engine.RunState(ctx, a.RunID)
}

// runAndFacts is the run run_id names and what its project's twin holds.
func runAndFacts(ctx context.Context, s *Service, a runIDArgs) (flows.RunState, flows.Facts, error) {
	st, err := s.Engine.RunState(ctx, a.RunID)
	if err != nil {
		return st, flows.Facts{}, err
	}
	facts, err := s.Facts.FlowFacts(ctx, st.ProjectID)
	return st, facts, err
}

// awaitGate waits for the run's next gate without holding a worker: the
// call's workflow asks followGate again, on durable timers, until the run
// is at a gate or has ended, or wait_seconds pass.
func awaitGate(ctx context.Context, s *Service, a awaitArgs) (any, error) {
	wait := 60
	if a.WaitSeconds != nil {
		wait = *a.WaitSeconds
	}
	if _, err := s.Engine.RunState(ctx, a.RunID); err != nil {
		return nil, err
	}
	input, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	p := adapters.Process{ID: "design-flow-" + a.RunID, Input: input, Follow: true, FollowSeconds: wait}
	return &adapters.Result{Process: &p}, nil
}

// followGate is flow.await_gate's answer as the run stands: settled once
// a gate waits (judged against what the twin holds now, with the question
// for the person) or the run has ended.
func followGate(ctx context.Context, s *Service, p adapters.Process, _ adapters.ProcessStart) (json.RawMessage, bool, error) {
	var a awaitArgs
	if err := json.Unmarshal(p.Input, &a); err != nil {
		return nil, false, fmt.Errorf("flow.await_gate's arguments cannot be read back: %w", err)
	}
	st, err := s.Engine.RunState(ctx, a.RunID)
	if err != nil {
		return nil, false, err
	}
	ended := st.Status == flows.RunRejected || st.Status == flows.RunCompletedVerified || st.Status == flows.RunCompletedUnverified
	if st.Status != flows.RunAtGate {
		out, err := json.Marshal(map[string]any{"run_id": a.RunID, "at_gate": false, "status": st.Status, "phase": st.Phase,
			"detail": fmt.Sprintf("no gate is waiting after %ds: the run is %s", p.FollowSeconds, st.Status)})
		return out, ended, err
	}
	gate, err := s.Engine.EvaluateGate(ctx, a.RunID)
	if err != nil {
		return nil, false, err
	}
	out, err := json.Marshal(map[string]any{"run_id": a.RunID, "at_gate": true, "phase": st.Phase, "gate": gate, "allowed": gate.Allowed,
		"decide": decideHow(a.RunID, gate.Name), adapters.AskPersonKey: gateQuestion(st, gate)})
	return out, true, err
}

// gateQuestion asks the person in the client's chat how to decide the gate,
// offering only the decisions it allows. The answer is a proposal: an
// identified person confirms it (REST, CLI, the /runs page).
func gateQuestion(st flows.RunState, gate flows.GateState) adapters.AskPerson {
	var lines []string
	if gate.Result != nil {
		for _, c := range gate.Result.Criteria {
			line := fmt.Sprintf("- %s: %s (%s)", c.Kind, c.Status, c.Detail)
			if c.WaivedBy != "" {
				line += ", waived by " + c.WaivedBy
			}
			lines = append(lines, line)
		}
	}
	msg := fmt.Sprintf("Design-flow run %s (%s, project %s) waits at gate %s after phase %s.\n%s\n"+
		"How should it be decided? Your answer is recorded as a proposal; it takes effect once an identified person confirms it "+
		"(the /runs page, or metaforge run decide %s).", st.RunID, st.FlowID, st.ProjectID, gate.Name, st.Phase, strings.Join(lines, "\n"), st.RunID)
	props := map[string]any{
		"decision": map[string]any{"type": "string", "title": "Decision", "enum": gate.Allowed},
		"comment":  map[string]any{"type": "string", "title": "Comment"},
	}
	var done []string
	for _, p := range st.Phases[:st.PhaseIndex+1] {
		done = append(done, p.Name)
	}
	if slices.Contains(gate.Allowed, flows.DecisionRework) {
		props["rework_to"] = map[string]any{"type": "string", "title": "Rework from phase (for rework)", "enum": done}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": []string{"decision"}})
	return adapters.AskPerson{Message: msg, Schema: schema, AnswerTool: "flow.propose_gate_decision",
		AnswerArguments: map[string]any{"run_id": st.RunID, "gate": gate.Name}}
}

func proposeGateDecision(ctx context.Context, s *Service, a gateDecisionArgs) (any, error) {
	ci := adapters.CallInfoFrom(ctx)
	g, err := s.Engine.ProposeDecision(ctx, a.RunID, flows.ProposedDecision{Gate: a.Gate, Decision: a.Answer.Decision,
		ReworkTo: a.Answer.ReworkTo, Comment: a.Answer.Comment, Client: ci.Client, SessionID: ci.SessionID})
	if err != nil {
		return nil, err
	}
	return map[string]any{"run_id": a.RunID, "gate": g.Name, "proposed": g.Proposed,
		"confirm": decideHow(a.RunID, g.Name),
		"detail":  "recorded as a proposal; the gate is decided once an identified person confirms it"}, nil
}

// decideHow tells where an identified person decides a gate.
func decideHow(runID, gate string) map[string]string {
	return map[string]string{
		"rest": fmt.Sprintf("POST /v1/runs/%s/gates/%s/decision {\"decision\": \"approve\"|\"reject\"|\"rework\", \"rework_to\": PHASE, \"approver\": NAME}", runID, gate),
		"cli":  fmt.Sprintf("metaforge run decide %s --approve|--reject|--rework-to PHASE", runID),
		"page": "/runs",
	}
}

func verifyCompletion(ctx context.Context, s *Service, a runIDArgs) (any, error) {
	st, facts, err := runAndFacts(ctx, s, a)
	if err != nil {
		return nil, err
	}
	verdict, blocking := flows.Completion(facts)
	return map[string]any{"run_id": st.RunID, "project_id": st.ProjectID, "verdict": verdict, "blocking": blocking,
		"requirements": facts.Requirements}, nil
}

func patchRun(ctx context.Context, s *Service, a patchArgs) (any, error) {
	ci := adapters.CallInfoFrom(ctx)
	if ci.ApprovedBy == "" {
		return nil, protocol.Refusal("a patch applies only once an identified person approved it; flow.patch is always held for one")
	}
	st, err := s.Engine.Patch(ctx, a.RunID, flows.PatchRequest{Patch: a.Patch, ApprovedBy: ci.ApprovedBy})
	if err != nil {
		return nil, err
	}
	return map[string]any{"run_id": a.RunID, "applied": true, "approved_by": ci.ApprovedBy, "at_phase": st.Phase,
		"detail": "the run continues as new on the patched flow"}, nil
}

// claimant names who is doing a phase: the MCP session, else the caller.
func claimant(ci adapters.CallInfo) string {
	if ci.SessionID != "" {
		return "session:" + ci.SessionID
	}
	if ci.Caller != "" {
		return ci.Caller
	}
	return "client"
}

// detached answers a call whose work goes on as a detached process: the
// call's workflow starts it, then answers with answer.
func detached(p adapters.Process, answer map[string]any) (*adapters.Result, error) {
	raw, err := json.Marshal(answer)
	if err != nil {
		return nil, err
	}
	p.Detached, p.Answer = true, raw
	return &adapters.Result{Process: &p}, nil
}
