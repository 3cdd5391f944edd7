// /sessions/{id}: one agent session from the ledger: which client, which
// actor, which project, its narrative (the events it logged, how it
// ended), and each call it made with its stamp: outcome, who (verified or
// not), the client, the model the client claimed (never checked), how
// long. ?tool= keeps the calls' filter. Live from GET
// /v1/ledger/sessions/{id} and /v1/ledger/actions?session={id}.
import { h, mount, param, pathID, region, setParams, watch } from "/assets/app.js";
import { fill } from "/assets/project_pages.js";

const id = pathID();
const q = encodeURIComponent;
const when = (t) => (t ? new Date(t).toLocaleString() : "—");

mount(h("h1", {}, "Session ", h("code", {}, id)), h("p", {}, h("a", { href: "/sessions" }, "All sessions")));
const header = region("session-header");
const narrative = region("narrative");
const filter = h("input", {
  id: "tool-filter",
  type: "search",
  placeholder: "tool id",
  value: param("tool"),
  oninput: () => {
    setParams({ tool: filter.value.trim() });
    if (lastCalls) drawCalls(lastCalls);
  },
});
const callsTitle = h("h2", {}, "Calls");
const callsFilter = h("p", {}, h("label", {}, "Filter by tool ", filter));
document.getElementById("app").append(callsTitle, callsFilter);
const calls = region("calls");
let lastCalls = null;

function failure(el, err) {
  const hint =
    err.status === 503
      ? " The sessions are kept in the ledger: start metaforge serve with DATABASE_URL pointing at PostgreSQL."
      : err.status === 404
        ? " It may not have made a call yet."
        : "";
  fill(el, h("p", { role: "alert", class: "error" }, err.message.replace(/\.?$/, ".") + hint));
}

watch(
  `/v1/ledger/sessions/${q(id)}`,
  (d) => {
    const s = d.session;
    fill(header, 
      h(
        "table",
        { class: "facts" },
        h(
          "tbody",
          {},
          h("tr", {}, h("th", { scope: "row" }, "Client"), h("td", { dataset: { field: "client" } }, [s.agent_code, s.client_version].filter(Boolean).join(" ") || "(did not say)")),
          h("tr", {}, h("th", { scope: "row" }, "Actor"), h("td", {}, s.actor || "—")),
          h(
            "tr",
            {},
            h("th", { scope: "row" }, "Project"),
            h("td", {}, s.project_id ? h("a", { href: `/projects/${q(s.project_id)}` }, s.project_id) : h("span", { class: "muted" }, "none bound")),
          ),
          h("tr", {}, h("th", { scope: "row" }, "Status"), h("td", { dataset: { field: "status" } }, d.status, d.end ? ` (${d.end.summary || ""} — by ${d.end.ended_by}, ${when(d.end.ended_at)})` : "")),
          h("tr", {}, h("th", { scope: "row" }, "Seen"), h("td", {}, `${when(s.first_seen)} to ${when(s.last_seen)}`)),
          h("tr", {}, h("th", { scope: "row" }, "Calls"), h("td", { dataset: { field: "actions" } }, String(s.actions))),
        ),
      ),
    );
    const events = d.events || [];
    fill(narrative, 
      h("h2", {}, "Narrative"),
      events.length
        ? h(
            "table",
            {},
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "Kind"), h("th", { scope: "col" }, "What"), h("th", { scope: "col" }, "Refs"))),
            h(
              "tbody",
              {},
              events.map((e) =>
                h("tr", { dataset: { eventId: String(e.id) } }, h("td", {}, when(e.at)), h("td", {}, e.kind), h("td", {}, e.text), h("td", {}, (e.refs || []).map((r) => h("code", {}, r, " ")))),
              ),
            ),
          )
        : h("p", { role: "status", class: "muted" }, "The session logged no events (session.log_event records them)."),
    );
  },
  { onError: (err) => failure(header, err) },
);

function drawCalls(list) {
  lastCalls = list;
  const needle = filter.value.trim().toLowerCase();
  const shown = needle ? list.filter((a) => a.tool_id.toLowerCase().includes(needle)) : list;
  if (!list.length) {
    fill(calls, h("p", { role: "status", class: "empty" }, "No calls recorded for this session yet."));
    return;
  }
  fill(calls, 
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["When", "Tool", "Outcome", "Actor", "Client", "Claimed model", "Duration", "Call"].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        {},
        shown.map((a) =>
          h(
            "tr",
            { dataset: { callId: a.call_id || "", toolId: a.tool_id } },
            h("td", {}, when(a.at)),
            h("td", {}, h("code", {}, a.tool_id)),
            h("td", { class: a.status === "success" ? "pass" : "fail" }, a.status === "success" ? "success" : `error: ${a.error_class || a.error_type}`),
            h("td", {}, a.actor, a.actor_verified ? " (verified)" : " (not verified)"),
            h("td", {}, a.client ? `${a.client.name} ${a.client.version}`.trim() : "(did not say)"),
            h("td", { class: "muted" }, a.claimed?.model ? `${a.claimed.model} (claimed)` : ""),
            h("td", { class: "num" }, `${Math.round(a.duration_ms)} ms`),
            h("td", {}, h("code", {}, a.call_id)),
          ),
        ),
      ),
      shown.length === 0 ? h("caption", { role: "status" }, `No call of a tool matching “${needle}”.`) : null,
    ),
  );
}

watch(`/v1/ledger/actions?session=${q(id)}&limit=1000`, (d) => drawCalls(d.actions || []), { onError: (err) => failure(calls, err) });
