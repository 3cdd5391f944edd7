// /requirements?project=: the requirement matrix. Every current
// requirement with its live status (pass, fail, stale, no_data) computed
// by the twin from what is recorded now, the value it rests on with its
// margin, and the evidence behind it (each record's value, what it was
// computed against, fresh or stale). ?status= keeps the filter. Live from
// GET /v1/requirements.
import { fmt, h, mount, param, region, setParams, watch } from "/assets/app.js";
import { fill, projectScope } from "/assets/project_pages.js";

const STATUSES = ["pass", "fail", "stale", "no_data"];
const q = encodeURIComponent;

mount(h("h1", { id: "title" }, "Requirements"));
const scope = region("scope");
const project = await projectScope(scope, "requirement matrix");

if (project) {
  document.getElementById("title").textContent = `Requirements — ${project.name}`;
  const filter = h(
    "select",
    {
      id: "status-filter",
      "aria-label": "Status shown",
      onchange: () => {
        setParams({ status: filter.value === "all" ? "" : filter.value });
        if (last) draw(last);
      },
    },
    h("option", { value: "all" }, "every status"),
    STATUSES.map((s) => h("option", { value: s }, s)),
  );
  filter.value = STATUSES.includes(param("status")) ? param("status") : "all";
  fill(scope, 
    h(
      "p",
      { class: "muted" },
      "Each requirement's status is computed now from the current constraint sets against the evidence, component selections and committed geometry: no data is not a pass. ",
      h("a", { href: `/projects/${q(project.project_id)}` }, "Project page"),
    ),
    h("p", {}, h("label", {}, "Show ", filter)),
  );
  const summary = region("summary");
  summary.setAttribute("role", "status");
  const matrix = region("matrix");
  let last = null;

  const evidenceLine = (ev, id) => {
    const e = ev[id];
    if (!e) return h("li", {}, h("code", {}, id));
    return h(
      "li",
      { dataset: { evidenceId: id } },
      h("span", { class: `badge ${e.freshness}` }, e.freshness),
      " ",
      h("a", { href: `/projects/${q(project.project_id)}?evidence=${e.freshness}` }, e.name),
      e.kind ? h("span", { class: "muted" }, ` (${e.kind})`) : null,
      e.metric ? ` ${e.metric} = ${fmt(e.value)} ${e.unit || ""}` : "",
      e.valid_against.length ? h("span", { class: "muted" }, ` against ${e.valid_against.join(", ")}`) : null,
      (e.stale_against || []).map((s) => h("div", { class: "muted" }, `computed against ${s.pinned}; the head is now ${s.head}`)),
    );
  };

  const behind = (row, ev) => {
    const parts = [];
    if (row.evidence && row.evidence.length) parts.push(h("ul", { class: "plain" }, row.evidence.map((id) => evidenceLine(ev, id))));
    for (const ref of [...(row.selections || []), ...(row.cad_models || [])]) parts.push(h("div", {}, "from ", h("code", {}, ref)));
    if (row.stale_evidence) parts.push(h("ul", { class: "plain" }, row.stale_evidence.map((s) => evidenceLine(ev, s.node_id))));
    if (row.missing) parts.push(h("div", { class: "muted" }, "Needs: ", row.missing.join("; ")));
    if (row.detail) parts.push(h("div", { class: "muted" }, row.detail));
    if (row.not_compared) parts.push(h("div", { class: "muted" }, "Not compared: ", row.not_compared.join("; ")));
    return parts.length ? parts : h("span", { class: "muted" }, "—");
  };

  function draw(data) {
    last = data;
    const rows = data.requirements || [];
    const s = data.summary || {};
    fill(summary, 
      rows.length
        ? h(
            "p",
            {},
            `${s.requirements} requirements in ${(data.checked_against || []).join(", ")}: `,
            STATUSES.map((st) => h("span", { class: `badge ${st}`, dataset: { summary: st } }, `${s[st] || 0} ${st}`, " ")),
            data.all_pass ? h("strong", { class: "pass" }, " all pass") : null,
          )
        : h("p", { class: "empty" }, data.note || "No requirements are recorded in this project: record them with twin.record_constraint_set."),
    );
    const want = filter.value;
    const shown = want === "all" ? rows : rows.filter((r) => r.status === want);
    if (!rows.length) {
      fill(matrix);
      return;
    }
    fill(matrix, 
      h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "Requirement"),
            h("th", { scope: "col" }, "Limit"),
            h("th", { scope: "col" }, "Status"),
            h("th", { scope: "col", class: "num" }, "Value"),
            h("th", { scope: "col", class: "num" }, "Margin"),
            h("th", { scope: "col" }, "Evidence behind it"),
          ),
        ),
        h(
          "tbody",
          {},
          shown.map((r) =>
            h(
              "tr",
              { dataset: { requirement: r.requirement, status: r.status } },
              h("td", {}, r.requirement, h("br"), h("code", { class: "muted" }, r.constraint_set)),
              h("td", {}, r.metric ? `${r.metric} ${r.operator} ${fmt(r.limit)} ${r.unit}` : h("span", { class: "muted" }, "not typed")),
              h("td", {}, h("span", { class: `badge ${r.status}`, dataset: { status: r.status } }, r.status)),
              h("td", { class: "num" }, r.value === undefined ? "—" : `${fmt(r.value)} ${r.unit || ""}`),
              h("td", { class: "num" }, r.margin === undefined ? "—" : `${fmt(r.margin)}${r.margin_pct !== undefined ? ` (${fmt(r.margin_pct, 3)} %)` : ""}`),
              h("td", {}, behind(r, data.evidence || {})),
            ),
          ),
        ),
        shown.length === 0 ? h("caption", { role: "status" }, `No requirement is ${want} now.`) : null,
      ),
    );
  }

  watch(`/v1/requirements?project=${q(project.project_id)}`, draw);
}
