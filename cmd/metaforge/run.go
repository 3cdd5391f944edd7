package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/flow"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/workflows"
)

// runRun is `metaforge run start|status|decide`: design-flow runs from the
// command line, against the Temporal of the metaforge serve on this machine
// (or TEMPORAL_ADDRESS). Tools run as ToolCall workflows on the serve's
// workers, exactly as an agent's calls do.
func runRun(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return usageError("usage: metaforge run start FLOW --project P --goal TEXT | run status RUN_ID | run decide RUN_ID --approve|--reject|--rework-to PHASE")
	}
	switch verb, rest := args[0], args[1:]; verb {
	case "start":
		return runStart(ctx, rest, out)
	case "status":
		return runStatus(ctx, rest, out)
	case "decide":
		return runGateDecision(ctx, rest, out)
	default:
		return usageError(fmt.Sprintf("metaforge run %s: say start, status or decide", verb))
	}
}

// splitID takes a leading positional argument, so it may come before the flags.
func splitID(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

func runStart(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("run start", flag.ContinueOnError)
	conn := registerQueueFlags(fs)
	project := fs.String("project", "", "the project's id (required)")
	goal := fs.String("goal", "", "what the design is for (required)")
	route := fs.String("manufacturing", "", "the manufacturing route: cnc_milling, sheet_metal, 3d_printing, pcb_assembly...")
	maturity := fs.String("maturity", "", "the target maturity: concept, prototype, production")
	loads := fs.String("loads", "", "loads, environment and use, when the goal does not say")
	version := fs.String("version", "", "start a run of this approved flow version instead of proposing one")
	approve := fs.Bool("approve", false, "approve the proposed version yourself through metaforge serve (as the local operator, or --token's subject) and start the run")
	as := fs.String("as", currentUser(), "your name with --approve, recorded as operator:NAME when you decide with the operator token")
	wait := fs.Bool("wait", false, "after starting the run, wait until it waits at a gate for a decision (or ends), with a progress bar on a terminal")
	serve := registerServeFlags(fs)
	flowID, args := splitID(args)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	q, closeQueue, err := conn.open(ctx)
	if err != nil {
		return err
	}
	defer closeQueue()
	calls := cliCalls{engine: mcpserver.TemporalEngine{Client: q.Client}}
	if *version == "" {
		if flowID == "" || *project == "" || *goal == "" {
			return usageError("usage: metaforge run start FLOW --project P --goal TEXT [--manufacturing R] [--maturity M] [--loads L] [--approve] [--wait]")
		}
		p, err := calls.call(ctx, "flow.propose", map[string]any{"project_id": *project, "flow": flowID, "goal": *goal,
			"manufacturing_context": *route, "target_maturity": *maturity, "loads_and_use": *loads})
		if err != nil {
			return err
		}
		if p["status"] == "needs_input" {
			b, _ := json.MarshalIndent(p["questions"], "", "  ")
			return fmt.Errorf("the goal leaves blocking questions; answer them with --manufacturing, --maturity or --loads:\n%s", b)
		}
		*version = p["flow_version_id"].(string)
		approvalID := p["approval_id"].(string)
		fmt.Fprintf(out, "proposed flow version %s (%s); approval %s\n", *version, flowID, approvalID)
		if !*approve {
			fmt.Fprintf(out, "an identified person approves it (metaforge approve %s), then: metaforge run start --version %s\n", approvalID, *version)
			return nil
		}
		c, err := serve.open(ctx)
		if err != nil {
			return err
		}
		var decided struct {
			Approver string `json:"approver"`
		}
		if err := decideHold(ctx, c, approvalID, "approve", *as, "approved from metaforge run start", &decided); err != nil {
			return err
		}
		res, err := calls.engine.AwaitCall(ctx, approvalID, "")
		if err != nil {
			return err
		}
		if res.Status != workflows.StatusSuccess {
			return fmt.Errorf("the approval of %s was not recorded: %s", *version, res.Error.Details)
		}
		fmt.Fprintf(out, "approved by %s\n", decided.Approver)
	}
	started, err := calls.call(ctx, "flow.start_run", map[string]any{"flow_version_id": *version})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "run %s started (workflow %s); its first phase, %s, waits for a client (phase.list_tasks)\n",
		started["run_id"], started["workflow_id"], started["first_phase"])
	if !*wait {
		return nil
	}
	runID, _ := started["run_id"].(string)
	return waitAtGate(ctx, &runs.Service{Client: q.Client, Namespace: q.Namespace}, runID, out, os.Stderr)
}

func runStatus(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("run status", flag.ContinueOnError)
	conn := registerQueueFlags(fs)
	id, args := splitID(args)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if id == "" {
		return usageError("usage: metaforge run status RUN_ID")
	}
	q, closeQueue, err := conn.open(ctx)
	if err != nil {
		return err
	}
	defer closeQueue()
	st, err := (&runs.Service{Client: q.Client, Namespace: q.Namespace}).RunState(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "run %s · project %s · %s · %s\n", st.RunID, st.ProjectID, st.FlowID, st.Status)
	if st.Reason != "" {
		fmt.Fprintf(out, "reason: %s\n", st.Reason)
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tSTATUS\tATTEMPT\tGATE\tGATE STATE\tCRITERIA\tALLOWED")
	for _, ps := range st.Phases {
		crit := "-"
		if ps.Gate.Result != nil {
			var parts []string
			for _, c := range ps.Gate.Result.Criteria {
				parts = append(parts, c.Kind+"="+c.Status)
			}
			crit = strings.Join(parts, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", ps.Name, ps.Status, ps.Attempt, ps.Gate.Name, ps.Gate.Status, crit,
			orDash(strings.Join(ps.Gate.Allowed, ",")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if st.PhaseIndex < len(st.Phases) {
		if p := st.Phases[st.PhaseIndex].Gate.Proposed; p != nil {
			fmt.Fprintf(out, "proposed in the client's chat: %s %s %s (confirm it with run decide)\n", p.Decision, p.ReworkTo, p.Comment)
		}
	}
	if st.Verdict != nil {
		fmt.Fprintf(out, "verdict: %s\n", st.Verdict.Verdict)
	}
	return nil
}

func runGateDecision(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("run decide", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	approve := fs.Bool("approve", false, "approve the waiting gate")
	reject := fs.Bool("reject", false, "reject the waiting gate: the run ends")
	reworkTo := fs.String("rework-to", "", "send the run back to this phase")
	comment := fs.String("comment", "", "why, recorded with the decision")
	as := fs.String("as", currentUser(), "your name, recorded as operator:NAME when you decide with the operator token")
	id, args := splitID(args)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	body := map[string]string{"approver": strings.TrimSpace(*as), "comment": *comment, "rework_to": *reworkTo}
	chosen := 0
	for _, c := range []struct {
		on       bool
		decision string
	}{{*approve, flows.DecisionApprove}, {*reject, flows.DecisionReject}, {*reworkTo != "", flows.DecisionRework}} {
		if c.on {
			body["decision"] = c.decision
			chosen++
		}
	}
	if id == "" || chosen != 1 {
		return usageError("usage: metaforge run decide RUN_ID --approve|--reject|--rework-to PHASE [--comment TEXT] [--as NAME] [--data-dir DIR] [--url URL] [--token TOKEN]")
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	// The route names the gate: the one the run waits at now.
	var st flows.RunState
	if err := c.do(ctx, http.MethodGet, "/v1/runs/"+url.PathEscape(id), nil, &st); err != nil {
		return err
	}
	if st.PhaseIndex >= len(st.Phases) || st.Phases[st.PhaseIndex].Gate.Name == "" {
		return fmt.Errorf("run %s waits at no gate (status %s): metaforge run status %s shows where it is", id, st.Status, id)
	}
	gate := st.Phases[st.PhaseIndex].Gate.Name
	var res struct {
		Decider string         `json:"decider"`
		Run     flows.RunState `json:"run"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/runs/"+url.PathEscape(id)+"/gates/"+url.PathEscape(gate)+"/decision", body, &res); err != nil {
		return err
	}
	fmt.Fprintf(out, "run %s: gate %s at phase %s: %s by %s\n", id, gate, res.Run.Phase, body["decision"], res.Decider)
	return nil
}

// cliCalls runs tools as ToolCall workflows from the CLI, the way the MCP
// server does for a local caller.
type cliCalls struct {
	engine mcpserver.TemporalEngine
	// tools are the static manifests calls are checked against and take
	// their adapter, timeout and retries from; nil: the flow tools.
	tools *adapters.Registry
}

// flowTools registers the flow tools, whose manifests are static: the CLI
// needs their adapter, timeout and retry policy and their schemas, not the
// tools themselves (they run on the serve's workers).
func flowTools() (*adapters.Registry, error) {
	reg := adapters.NewRegistry()
	for _, a := range flow.New(&flow.Service{}) {
		if err := reg.Register(a); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// callFailed is a call that ended in an error: the tool's code and its
// own words.
type callFailed struct {
	toolID string
	err    workflows.CallError
}

func (e *callFailed) Error() string { return fmt.Sprintf("%s: %s", e.toolID, e.err.Details) }

// refused says whether the tool itself said no to what it was given
// (bad arguments, a file it may not read), rather than failing to run.
func (e *callFailed) refused() bool {
	return e.err.Code == int(protocol.InvalidParams) || e.err.Code == int(protocol.ToolExecutionError)
}

// start checks the arguments against the tool's manifest and starts the
// call; it returns the call's id and its workflow run.
func (c cliCalls) start(ctx context.Context, toolID string, args map[string]any) (callID, runID string, err error) {
	reg := c.tools
	if reg == nil {
		if reg, err = flowTools(); err != nil {
			return "", "", err
		}
	}
	raw, _ := json.Marshal(args)
	if err := reg.ValidateArguments(toolID, raw); err != nil {
		return "", "", err
	}
	m, _, _ := reg.Tool(toolID)
	in := workflows.ToolCallInput{CallID: mcpserver.NewCallID(), ToolID: toolID, AdapterID: m.AdapterID, Arguments: raw,
		TimeoutSeconds: m.TimeoutSeconds, Idempotent: m.Idempotent, Retries: m.Retries, Local: reg.RunsLocal(toolID), Caller: mcpserver.CallerLocal, Client: "metaforge-cli"}
	runID, err = c.engine.StartCall(ctx, in, nil)
	return in.CallID, runID, err
}

// await waits for a call started by start and returns its answer; a call
// that ended in an error is a *callFailed.
func (c cliCalls) await(ctx context.Context, toolID, callID, runID string) (json.RawMessage, error) {
	res, err := c.engine.AwaitCall(ctx, callID, runID)
	if err != nil {
		return nil, err
	}
	if res.Status != workflows.StatusSuccess {
		f := &callFailed{toolID: toolID}
		if res.Error != nil {
			f.err = *res.Error
		}
		return nil, f
	}
	return res.Data, nil
}

// call runs a tool and returns its answer as a JSON object.
func (c cliCalls) call(ctx context.Context, toolID string, args map[string]any) (map[string]any, error) {
	callID, runID, err := c.start(ctx, toolID, args)
	if err != nil {
		return nil, err
	}
	data, err := c.await(ctx, toolID, callID, runID)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}
