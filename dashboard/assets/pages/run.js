// /runs/{id}: one design-flow run. Its phases in order, each with its
// state and times; each gate with its criteria (pass, fail, no_data, and
// the waivers that excuse a failure) and its decision (who, when, what
// they said); the run's workflow in the Temporal UI; and, for a gate
// waiting on a person, the decisions it allows now.
//
// A gate is decided by an identified person, as on /runs: the operator
// token serve printed (…/runs?token=…, kept for this tab), or an API
// deployment's own identity; the name typed here is recorded after
// operator:. The page polls the run (GET /v1/runs/{id}, ETag), so after a
// decision it moves to the next phase without a reload, and the name and
// comment being typed are never redrawn.
import { ApiError, api, clearError, h, mount, pathID, region, showError, watch } from "/assets/app.js";

const runID = pathID();
const stored = (k) => localStorage.getItem("metaforge." + k) || "";
const hasToken = () => typeof operatorToken === "function" && !!operatorToken();

// when prints a time the way a log reads it, in the viewer's zone; ""
// for none (Go's zero time included).
function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 2000) return "";
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

// fill replaces el's children with nodes, leaving out the null ones
// (replaceChildren would print them).
function fill(el, ...nodes) {
  el.replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
}

function badge(status) {
  return h("span", { class: `badge ${status || ""}`, dataset: { status: status || "" } }, status || "—");
}

document.head.appendChild(h("style", {}, `
ol.timeline { list-style: none; padding: 0; margin: 0; border-left: 3px solid #dde1e6; }
ol.timeline > li { margin: 0 0 .8rem; padding: .1rem 0 .1rem 1rem; position: relative; }
ol.timeline > li::before { content: ""; position: absolute; left: -.5rem; top: .45rem; width: .7rem; height: .7rem; border-radius: 50%; background: #c9d1d9; }
ol.timeline > li[data-phase-status="approved"]::before { background: #1f7a3a; }
ol.timeline > li.current::before { background: #0b5cad; }
ol.timeline > li.current > strong { color: #0b5cad; }
ul.times { list-style: none; padding: 0; margin: .2rem 0; display: flex; flex-wrap: wrap; gap: 0 1rem; color: #57606a; font-size: 12px; }
section.gate { margin: 0 0 1rem; }
section.gate h3 { font-size: 1rem; margin: 0 0 .5rem; }
#decide-inputs { margin: 0 0 .8rem; }
#status { font-weight: 600; min-height: 1.2em; }
div.decide { margin-top: .6rem; }
div.decide button { margin-right: .4rem; }
`));

// Inputs first, drawn once: the polls redraw only the regions below.
const approver = h("input", { id: "approver", autocomplete: "name", placeholder: "optional: recorded as operator:NAME", value: stored("approver") });
const comment = h("input", { id: "comment", placeholder: "optional" });
const apikey = h("input", { id: "apikey", type: "password", value: stored("apikey") });
const keyLabel = h("label", { id: "keylabel", hidden: true }, "API key ", apikey);
approver.addEventListener("change", () => localStorage.setItem("metaforge.approver", approver.value));
apikey.addEventListener("change", () => localStorage.setItem("metaforge.apikey", apikey.value));

mount(
  h("h1", {}, "Run ", h("code", { id: "run-id" }, runID)),
  h("div", { id: "summary" }),
  h("p", { id: "status", role: "status" }),
  h("section", { "aria-labelledby": "timeline-title" }, h("h2", { id: "timeline-title" }, "Phases"), h("div", { id: "timeline" })),
  h("section", { "aria-labelledby": "gates-title" },
    h("h2", { id: "gates-title" }, "Gates"),
    h("div", { id: "decide-inputs" },
      h("label", {}, "Your name ", approver),
      h("label", {}, "Comment ", comment),
      keyLabel),
    h("p", { id: "who", class: "muted", hidden: hasToken() },
      "A gate is decided only by an identified person: open the address metaforge serve printed at start (…/runs?token=…) in this tab, " +
        "or use metaforge run decide on the machine running it."),
    h("div", { id: "gates" })),
);

function status(text) {
  document.getElementById("status").textContent = text;
}

let current = null;

function drawSummary(run) {
  const phase = run.phases[run.phase_index];
  fill(region("summary"),
    h("p", { dataset: { runId: run.run_id, runStatus: run.status, phase: run.phase || "" } },
      "Project ", h("a", { href: `/projects/${encodeURIComponent(run.project_id)}` }, run.project_id),
      " · flow ", h("code", {}, run.flow_id), " · ", badge(run.status),
      run.phase ? [" · now at ", h("strong", { id: "current-phase" }, run.phase), phase ? ` (${phase.status})` : null] : " · ended"),
    run.goal ? h("p", { class: "muted" }, run.goal) : null,
    run.reason ? h("p", { class: "error" }, "Stopped: ", run.reason) : null,
    run.verdict
      ? h("p", {}, "Verdict ", badge(run.verdict.verdict), (run.verdict.blocking || []).length ? [" · blocking: ", run.verdict.blocking.join(", ")] : null)
      : null,
    h("p", {},
      run.temporal_ui
        ? h("a", { id: "temporal-ui", href: run.temporal_ui, target: "_blank", rel: "noopener", dataset: { workflowId: run.workflow_id } },
          "Workflow ", run.workflow_id, " in the Temporal UI")
        : h("span", { class: "muted" }, "Workflow ", h("code", {}, run.workflow_id), " (this server knows no Temporal UI address)"),
      " · ", h("a", { href: `/runs?project=${encodeURIComponent(run.project_id)}` }, "All runs of this project")),
  );
}

// timesOf lists a phase's times that are set, in the order they happen.
function timesOf(ps) {
  const g = ps.gate || {};
  const d = g.decision || {};
  return [
    ["claimable", ps.claimable_at],
    ["claimed", ps.claimed_at],
    ["submitted", ps.submission && ps.submission.submitted_at],
    ["at gate", g.waiting_since],
    ["judged", g.evaluated_at],
    ["decided", d.decided_at],
    ["completed", ps.completed_at],
  ].filter(([, t]) => when(t));
}

function drawTimeline(run) {
  const items = run.phases.map((ps, i) => {
    const here = i === run.phase_index && run.phase;
    const sub = ps.submission;
    return h("li", { class: here ? "current" : "", "aria-current": here ? "step" : null, dataset: { phase: ps.name, phaseStatus: ps.status } },
      h("strong", {}, ps.name), " ", badge(ps.status),
      ps.attempt > 1 ? h("span", { class: "muted" }, ` attempt ${ps.attempt}`) : null,
      ps.claimed_by ? h("span", { class: "muted" }, ` · claimed by ${ps.claimed_by}`) : null,
      h("ul", { class: "times" }, timesOf(ps).map(([what, t]) => h("li", {}, `${what} `, h("time", { datetime: t }, when(t))))),
      sub ? h("p", {}, "Submitted by ", sub.submitted_by, ": ", sub.summary, (sub.recorded_ids || []).length ? ` (recorded ${sub.recorded_ids.join(", ")})` : "") : null,
      (ps.steps || []).length
        ? h("ul", {}, ps.steps.map((s) => h("li", { dataset: { step: s.name } }, `${s.name}: ${s.tool_id} `, badge(s.status), s.error ? ` ${s.error}` : "")))
        : null,
      ps.steps_skipped ? h("p", { class: "muted" }, "Steps skipped: ", ps.steps_skipped) : null);
  });
  region("timeline").replaceChildren(items.length ? h("ol", { class: "timeline" }, items) : h("p", { class: "muted" }, "This run has no phases."));
}

function criteriaTable(result) {
  const rows = (result && result.criteria) || [];
  if (!rows.length) return h("p", { class: "muted" }, "Not judged yet: the gate is judged against the twin when its phase is submitted.");
  return h("table", {},
    h("thead", {}, h("tr", {}, h("th", {}, "Criterion"), h("th", {}, "Status"), h("th", {}, "Detail"), h("th", {}, "Waiver"))),
    h("tbody", {}, rows.map((c) =>
      h("tr", { dataset: { criterion: c.kind, criterionStatus: c.status } },
        h("td", {}, c.kind),
        h("td", {}, badge(c.status)),
        h("td", {}, c.detail,
          (c.missing || []).length ? h("div", { class: "muted" }, "Missing: ", c.missing.join("; ")) : null,
          (c.failing || []).length ? h("div", {}, "Failing: ", c.failing.join(", ")) : null,
          (c.findings || []).length ? h("div", {}, "Findings: ", c.findings.join("; ")) : null),
        h("td", {}, c.waived_by ? ["waived by ", c.waived_by] : "—")))));
}

function decisionOf(d) {
  if (!d) return null;
  return h("p", { class: "decision", dataset: { decision: d.decision, decider: d.decider } },
    h("strong", {}, d.decision), d.rework_to ? ` to ${d.rework_to}` : "", " by ", d.decider,
    d.decider_verified ? " (verified)" : " (not verified)",
    when(d.decided_at) ? [" at ", h("time", { datetime: d.decided_at }, when(d.decided_at))] : null,
    d.route ? ` via ${d.route}` : "",
    d.comment ? [": “", d.comment, "”"] : null);
}

function decideButtons(run, ps) {
  const g = ps.gate;
  if (g.status !== "waiting") return null;
  const allowed = g.allowed || [];
  if (!allowed.length) {
    return h("p", { class: "muted" }, "Nothing can be decided yet: a criterion fails or lacks data without an approved waiver.");
  }
  const earlier = run.phases.slice(0, run.phase_index + 1).map((p) => p.name);
  const reworkTo = h("select", { "aria-label": "Rework from phase" }, earlier.map((n) => h("option", { value: n }, n)));
  return h("div", { class: "decide", dataset: { gate: g.name } },
    allowed.map((d) => h("button", { type: "button", class: d, dataset: { decision: d }, onclick: () => decide(g.name, d, d === "rework" ? reworkTo.value : "") }, d)),
    allowed.includes("rework") ? h("label", {}, " from ", reworkTo) : null,
    g.proposed
      ? h("p", { class: "muted" }, `Proposed in chat: ${g.proposed.decision}${g.proposed.rework_to ? " to " + g.proposed.rework_to : ""}`,
        g.proposed.comment ? ` (${g.proposed.comment})` : "", "; confirm it here.")
      : null);
}

function drawGates(run) {
  const gated = run.phases.map((ps, i) => [ps, i]).filter(([ps]) => ps.gate && ps.gate.name);
  region("gates").replaceChildren(...(gated.length
    ? gated.map(([ps, i]) => {
      const g = ps.gate;
      const result = g.result || null;
      return h("section", { class: "card gate", dataset: { gate: g.name, gateStatus: g.status, phase: ps.name }, "aria-label": `Gate ${g.name}` },
        h("h3", {}, g.name, " ", badge(g.status), result ? [" · criteria ", badge(result.status)] : null,
          h("span", { class: "muted" }, ` · phase ${ps.name}`)),
        g.status === "waiting" && when(g.waiting_since) ? h("p", { class: "muted" }, "Waiting since ", when(g.waiting_since)) : null,
        i <= run.phase_index || result ? criteriaTable(result) : h("p", { class: "muted" }, "Not reached yet."),
        decisionOf(g.decision),
        decideButtons(run, ps));
    })
    : [h("p", { class: "muted" }, "This flow has no gates.")]));
}

function draw(run) {
  current = run;
  document.title = `MetaForge · Run ${run.run_id}`;
  drawSummary(run);
  drawTimeline(run);
  drawGates(run);
}

async function decide(gate, decision, reworkTo) {
  status(`Sending ${decision} for ${gate}…`);
  try {
    const body = await api(`/v1/runs/${encodeURIComponent(runID)}/gates/${encodeURIComponent(gate)}/decision`, {
      method: "POST",
      body: { decision, rework_to: reworkTo || "", approver: approver.value.trim(), comment: comment.value },
    });
    status(`Gate ${gate}: ${body.decision} by ${body.decider}`);
    comment.value = "";
    if (body.run) draw(body.run);
  } catch (err) {
    status(`Gate ${gate}: ${authMessage(err)}`);
  }
}

// authMessage is what to do when a request is refused for want of
// identity: the same rules as /runs.
function authMessage(err) {
  if (err instanceof ApiError && err.status === 401) {
    if (hasToken()) return "this tab's operator token is no longer accepted (metaforge serve makes a new one each start): open the address it printed.";
    document.getElementById("keylabel").hidden = false;
    return "this server needs its API key.";
  }
  return err && err.message ? err.message : String(err);
}

if (!runID) {
  showError(new Error("No run named: open a run from the Runs page (/runs)."));
} else {
  watch(`/v1/runs/${encodeURIComponent(runID)}`, (run) => {
    clearError();
    draw(run);
  }, {
    onError: (err) => {
      if (err instanceof ApiError && err.status === 404) showError(new Error(`No run ${runID}: the Runs page (/runs) lists the runs there are.`));
      else showError(new Error(authMessage(err)));
      if (!current) region("timeline").replaceChildren();
    },
  });
}
