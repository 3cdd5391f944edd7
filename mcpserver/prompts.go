package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
)

// promptSpec is one curated workflow offered as an MCP prompt: what
// prompts/list shows, and the instructions prompts/get returns for the
// arguments given.
type promptSpec struct {
	name, title, description string
	args                     []*mcp.PromptArgument
	text                     func(a promptArgs) string
}

// promptArgs are a prompts/get's arguments; an empty value is an absent one.
type promptArgs map[string]string

func (a promptArgs) has(name string) bool { return a[name] != "" }

// q quotes an argument as the agent should pass it on.
func (a promptArgs) q(name string) string { return strconv.Quote(a[name]) }

func projectArg(required bool, desc string) *mcp.PromptArgument {
	return &mcp.PromptArgument{Name: "project", Title: "Project", Required: required, Description: desc}
}

// partArg is the part design and fea work on.
var partArg = &mcp.PromptArgument{Name: "part", Title: "Part", Required: true,
	Description: "the part: its item key in the twin (BRKT, or BRKT@3 for one revision) or, for a new part, its name"}

// groundingRule ends every prompt: a result the agent reports names the
// call it came from, or the reader cannot tell it from an invented one.
const groundingRule = `

Rules for your answer:
- Cite the _meta.callId of every tool result you report, next to the claim it supports (for example: "committed as BRKT@3 (call 7a619373979b4216)"). A claim with no call id is one nobody can check; if you did not call a tool for it, say it is unverified.
- If a result carries _meta.links, give the reader those links as they are. Never compose a dashboard URL yourself.
- A write may be held for a person's approval. Report a held or refused call as held or refused, with who decides and where, never as done.
- no_data and stale are not passes: a requirement with no current evidence is unverified.`

// openProject is the step that scopes the session to the project named,
// or asks for one.
func openProject(a promptArgs) string {
	if a.has("project") {
		return fmt.Sprintf("Call project.open with project %s. It binds the project to this session and returns its id and brief. If it reports several matches, show them and ask which one; never guess.", a.q("project"))
	}
	return "If no project is open in this session, call project.list, ask which project to use, and call project.open with it. If project.open reports several matches, show them and ask; never guess."
}

// prompts is the one definition of the curated workflows; prompts/list,
// prompts/get and the unknown-prompt error are all read from it.
var prompts = []promptSpec{
	{
		name: "use", title: "Use a project",
		description: "Pick the project for this session and summarise where it stands.",
		args:        []*mcp.PromptArgument{projectArg(false, "the project's id, exact name or a unique part of its name; leave it out to choose from the list")},
		text: func(a promptArgs) string {
			return "Pick the project this session works in and summarise where it stands.\n\n" +
				"1. " + openProject(a) + "\n" +
				"2. If the brief is not enough, read the resource metaforge://twin/brief/<project_id> (newest work first) and metaforge://twin/hierarchy/<project_id> (the product breakdown).\n" +
				"3. Call phase.list_tasks with the project_id for design-flow phases waiting on a client.\n" +
				"4. Summarise in a few lines: what the project is, what has been built (each part with its latest revision, KEY@n), the open requirements, and any run waiting at a gate." +
				groundingRule
		},
	},
	{
		name: "status", title: "Project status",
		description: "What is built, and which requirements are unverified.",
		args:        []*mcp.PromptArgument{projectArg(true, "the project's id, exact name or a unique part of its name")},
		text: func(a promptArgs) string {
			return "Report what is built in project " + a.q("project") + " and which of its requirements are not verified.\n\n" +
				"1. " + openProject(a) + "\n" +
				"2. Call twin.constraint_violations with the project_id: every requirement of the current constraint sets with its status (pass, fail, stale or no_data).\n" +
				"3. For every requirement that is not pass, call twin.what_verifies on its constraint set (item_key) to say what evidence exists and why it does not count.\n" +
				"4. Read metaforge://twin/requirements/<project_id> for each requirement's live status and metaforge://twin/hierarchy/<project_id> for what is built, with mass and cost rolled up.\n" +
				"5. Call phase.list_tasks with the project_id; for a run it lists, flow.lifecycle with its run_id gives the phase-by-phase state.\n" +
				"6. Answer with two lists: built (item KEY@n and what it is) and unverified (requirement, status, what is missing)." +
				groundingRule
		},
	},
	{
		name: "design", title: "Design a part",
		description: "Design or revise a part, committed to the twin.",
		args: []*mcp.PromptArgument{partArg,
			{Name: "requirement", Title: "Requirement",
				Description: "what the part must meet, as metric, operator, limit and unit where possible (mass <= 0.25 kg); leave it out to work to the project's recorded requirements"},
			projectArg(false, "the project's id or name; leave it out to use the one open in this session")},
		text: func(a promptArgs) string {
			var b strings.Builder
			fmt.Fprintf(&b, "Design or revise the part %s and commit it to the twin.\n\n", a.q("part"))
			b.WriteString("1. " + openProject(a) + "\n")
			b.WriteString("2. Look for the part first: twin.item_history with its item_key, or twin.find_by_property by name. Revising a part records the next revision of its item; never start a second item for the same part.\n")
			if a.has("requirement") {
				fmt.Fprintf(&b, "3. The requirement is %s. Check it with constraint.validate, then record it with twin.record_constraint_set (metric, operator, limit, unit, verification_method) so a gate can check it.\n", a.q("requirement"))
			} else {
				b.WriteString("3. Read the requirements it must meet with twin.constraint_violations (the project's current constraint sets).\n")
			}
			b.WriteString("4. Build the geometry: cadquery.create_parametric for a box, bracket, cylinder, enclosure or plate; cadquery.execute_script for anything else; cadquery.boolean_operation or cadquery.create_assembly to combine parts. Measure the result with cadquery.get_properties.\n")
			b.WriteString("5. Commit it with twin.commit_geometry: the STEP the CadQuery call wrote (file_path) and the measured properties (bounding_box, volume_mm3, material, mass_kg). Its item_ref (KEY@n) is the design from now on.\n")
			b.WriteString("6. Record why with twin.record_decision: what was decided, the alternatives rejected, and depends_on the revision.\n")
			b.WriteString("7. Check it with twin.constraint_violations and say which requirements pass, fail or have no data. A stress, deflection or frequency limit needs FEA: the fea prompt.")
			b.WriteString(groundingRule)
			return b.String()
		},
	},
	{
		name: "fea", title: "Run a load case",
		description: "Run a load case and record the evidence against the revision it came from.",
		args: []*mcp.PromptArgument{partArg,
			{Name: "load_case", Title: "Load case", Required: true,
				Description: "the load and its support, in words or numbers: 500 N downward on the free end, the mounting face fixed"},
			projectArg(false, "the project's id or name; leave it out to use the one open in this session")},
		text: func(a promptArgs) string {
			return fmt.Sprintf("Run the load case %s on the part %s and record the result as evidence against the exact revision it was computed on.\n\n", a.q("load_case"), a.q("part")) +
				"1. " + openProject(a) + "\n" +
				"2. Find the revision: twin.item_history with the part's item_key; note the head's item_ref (KEY@n). twin.get_node on it shows its properties and material. Everything below is computed on that revision.\n" +
				"3. Mesh the STEP of that revision with gmsh.generate_mesh and check it with calculix.validate_mesh. Pick the fixed and loaded faces from its surface_sets by position (gmsh.list_named_faces re-reads them); a face spanning the whole part is rarely the one meant.\n" +
				"4. Solve with calculix.run_fea: analysis_type static_stress (or modal), fixed_node_set, load_node_set, load_force_n and load_direction from the load case. A heat load is calculix.run_thermal instead.\n" +
				"5. Before trusting a peak: run_fea flags a peak at the fixed or loaded face as a likely singularity; read its section_stress instead. calculix.check_mesh_convergence across three element sizes, and calculix.cross_check_cantilever_beam (with the section stress) when the part is a cantilever. calculix.extract_results flags a suspicious stress peak.\n" +
				"6. Record it with twin.record_evidence: each value with its unit (max_von_mises in MPa, max_displacement_mm, safety_factor), valid_against the revision KEY@n (not the bare key), and verifies naming the constraint set it bears on. Then twin.what_verifies on that constraint set shows whether it now counts.\n" +
				"7. Report the load case, the revision, each value with its unit, and the evidence node id.\n" +
				"8. Keep the load case with twin.record_load_case (the part's item_key, not KEY@n; the fixed and loaded faces by their outward normal and a point near them, as gmsh.list_named_faces reports them; the load in N or MPa, a held mass as m x 9.80665 N; where the load comes from): a design flow's analysis phase then solves it again on every new revision by itself." +
				groundingRule
		},
	},
	{
		name: "gate", title: "Review a gate",
		description: "Review whether the project can be promoted.",
		args: []*mcp.PromptArgument{projectArg(true, "the project's id, exact name or a unique part of its name"),
			{Name: "run_id", Title: "Run", Description: "the design-flow run to review; leave it out to find the project's waiting run"}},
		text: func(a promptArgs) string {
			var b strings.Builder
			fmt.Fprintf(&b, "Review whether project %s can be promoted past its next gate. You review and recommend; an identified person decides.\n\n", a.q("project"))
			b.WriteString("1. " + openProject(a) + "\n")
			if a.has("run_id") {
				fmt.Fprintf(&b, "2. The run is %s; run.get_status gives its phase and the gate it waits at.\n", a.q("run_id"))
			} else {
				b.WriteString("2. Find the run: phase.list_tasks with the project_id lists waiting phases with their run_id; run.get_status gives a run's phase and the gate it waits at. If there is none, say so and stop.\n")
			}
			b.WriteString("3. Call flow.await_gate with the run_id and wait_seconds 0: the gate's criteria, each judged against the twin now, and the decisions it allows. flow.lifecycle gives the phase-by-phase state and the requirements' live status.\n")
			b.WriteString("4. Check the evidence: twin.constraint_violations for the project, and twin.what_verifies for every requirement that is not pass. Stale evidence was computed on an older revision and does not count.\n")
			b.WriteString("5. Call flow.verify_completion with the run_id for the completion verdict.\n")
			b.WriteString("6. Recommend approve, reject or rework (naming the phase to rework from), criterion by criterion. If the user agrees, flow.propose_gate_decision records the proposal; it decides nothing: a person confirms it on the Runs page, with metaforge run decide, or over REST. Do not say the gate is passed until flow.status shows the decision.")
			b.WriteString(groundingRule)
			return b.String()
		},
	},
	{
		name: "doctor", title: "Check the connection",
		description: "Check the connection, and what is unreachable.",
		text: func(promptArgs) string {
			return "Check this MetaForge connection and say what is unreachable.\n\n" +
				"1. Call health.check and report, from its result only:\n" +
				"   - status (healthy or degraded) and its detail;\n" +
				"   - every entry of unreachable_adapters, and which of the tools it serves cannot be called now (reachable false);\n" +
				"   - components: Temporal (embedded or external), the twin and the ledger backends;\n" +
				"   - auth: its mode, whether it identifies the caller, and its detail (open mode means anyone who can reach the server can call it);\n" +
				"   - client: the name, protocol_requested against protocol_negotiated, and protocol_skew;\n" +
				"   - dashboard_links: whether results link to the dashboard, and if not, why.\n" +
				"2. If a tool the user expects is missing, say whether health.check reports its adapter unreachable; do not guess at other causes.\n" +
				"3. If an earlier call was cut off, call.get_result with its callId fetches the outcome: the call ran on as a durable workflow.\n" +
				"Anything health.check does not report is unknown; say so rather than fill it in." +
				groundingRule
		},
	},
}

// promptNamed is the prompt of that name.
func promptNamed(name string) (promptSpec, bool) {
	for _, p := range prompts {
		if p.name == name {
			return p, true
		}
	}
	return promptSpec{}, false
}

// promptNames are the prompts that exist, in prompts/list's order.
func promptNames() []string {
	out := make([]string, len(prompts))
	for i, p := range prompts {
		out[i] = p.name
	}
	return out
}

// registerPrompts serves the curated workflows on srv's prompts/list and
// prompts/get, which also makes the SDK declare the prompts capability.
func registerPrompts(srv *mcp.Server) {
	for _, p := range prompts {
		srv.AddPrompt(&mcp.Prompt{Name: p.name, Title: p.title, Description: p.description, Arguments: p.args}, p.get)
	}
}

// get renders the prompt. A missing required argument or one the prompt
// does not take is -32602 naming the ones it does, rather than
// instructions with a hole in them.
func (p promptSpec) get(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := promptArgs{}
	if req.Params != nil {
		for k, v := range req.Params.Arguments {
			args[k] = strings.TrimSpace(v)
		}
	}
	accepted := map[string]bool{}
	var names []string
	for _, a := range p.args {
		accepted[a.Name] = true
		names = append(names, a.Name)
		if a.Required && !args.has(a.Name) {
			return nil, rpcError(protocol.InvalidParams, fmt.Sprintf("prompt %s needs the argument %s (%s)", p.name, a.Name, a.Description),
				map[string]any{"prompt": p.name, "missing": a.Name, "arguments": names})
		}
	}
	var unknown []string
	for k := range args {
		if !accepted[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		takes := "no arguments"
		if len(names) > 0 {
			takes = "only " + strings.Join(names, ", ")
		}
		return nil, rpcError(protocol.InvalidParams, fmt.Sprintf("prompt %s takes %s, not %s", p.name, takes, strings.Join(unknown, ", ")),
			map[string]any{"prompt": p.name, "unknown": unknown, "arguments": names})
	}
	return &mcp.GetPromptResult{
		Description: p.description,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: p.text(args)}}},
	}, nil
}

// promptsMiddleware answers prompts/get for a prompt that does not exist
// with -32602 listing the ones that do: the SDK's bare "unknown prompt"
// leaves a caller unable to tell a typo from a server with no prompts.
// Add it with AddReceivingMiddleware.
func promptsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "prompts/get" {
			if r, ok := req.(*mcp.GetPromptRequest); ok && r.Params != nil {
				if _, known := promptNamed(r.Params.Name); !known {
					return nil, unknownPromptError(r.Params.Name)
				}
			}
		}
		return next(ctx, method, req)
	}
}

func unknownPromptError(name string) error {
	names := promptNames()
	return rpcError(protocol.InvalidParams, fmt.Sprintf("unknown prompt %q; the prompts are %s", name, strings.Join(names, ", ")),
		map[string]any{"prompt": name, "prompts": names})
}
