// / : the projects, each with what needs attention at a glance (open
// runs, pending approvals, requirements not yet passing), each count a
// link to the page that lists them. Live from GET /v1/projects; the filter
// box is kept in the address (?q=) and never redrawn under the typist.
import { fmt, h, mount, param, region, setParams, watch } from "/assets/app.js";
import { fill } from "/assets/project_pages.js";

let last = null;

const filter = h("input", {
  id: "filter",
  type: "search",
  placeholder: "name or id",
  value: param("q"),
  oninput: () => {
    setParams({ q: filter.value.trim() });
    if (last) draw(last);
  },
});

mount(
  h("h1", {}, "Projects"),
  h("p", { class: "muted" }, "Each project with its open design-flow runs, calls waiting for a person's approval, and requirements not yet passing."),
  h("p", {}, h("label", {}, "Filter ", filter)),
);
const status = region("projects-status");
status.setAttribute("role", "status");
const table = region("projects");
const notes = region("projects-notes");

const q = (id) => encodeURIComponent(id);

// count is a figure that links to where its objects are listed; null
// (not counted now) is shown as such.
function count(n, href, label) {
  if (n === null || n === undefined) return h("span", { class: "muted", title: "not counted now: see the note below" }, "?");
  return h("a", { href, "aria-label": `${n} ${label}`, class: n > 0 ? "attention" : "" }, String(n));
}

function requirementsCell(p) {
  const r = p.requirements || {};
  if (!r.requirements) return h("a", { href: `/requirements?project=${q(p.project_id)}`, class: "muted" }, "none recorded");
  return h(
    "span",
    {},
    h("a", { href: `/requirements?project=${q(p.project_id)}` }, `${p.unverified_requirements} of ${r.requirements}`),
    " ",
    ["fail", "stale", "no_data"].filter((s) => r[s] > 0).map((s) => h("span", { class: `badge ${s}` }, `${r[s]} ${s}`)),
  );
}

function draw(data) {
  last = data;
  const all = data.projects || [];
  const needle = filter.value.trim().toLowerCase();
  const shown = needle ? all.filter((p) => `${p.name} ${p.project_id}`.toLowerCase().includes(needle)) : all;
  if (all.length === 0) {
    status.textContent = "No projects yet: create one with the MCP tool project.create (an agent, or metaforge call project.create), and it appears here.";
    fill(table);
  } else {
    status.textContent = needle ? `${shown.length} of ${all.length} projects match “${needle}”.` : `${all.length} project${all.length === 1 ? "" : "s"}.`;
    fill(table, 
      h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "Project"),
            h("th", { scope: "col", class: "num" }, "Open runs"),
            h("th", { scope: "col", class: "num" }, "Pending approvals"),
            h("th", { scope: "col" }, "Requirements not passing"),
            h("th", { scope: "col", class: "num" }, "Work products"),
            h("th", { scope: "col" }, "Pages"),
            h("th", { scope: "col" }, "Updated"),
          ),
        ),
        h(
          "tbody",
          {},
          shown.map((p) =>
            h(
              "tr",
              { dataset: { projectId: p.project_id } },
              h(
                "td",
                {},
                h("a", { href: `/projects/${q(p.project_id)}`, class: "project-name" }, p.name),
                h("br"),
                h("code", { class: "muted" }, p.project_id),
                p.description ? h("div", { class: "muted" }, p.description) : null,
              ),
              h("td", { class: "num", dataset: { count: "open_runs" } }, count(p.open_runs, `/runs?project=${q(p.project_id)}`, "open runs")),
              h(
                "td",
                { class: "num", dataset: { count: "pending_approvals" } },
                count(p.pending_approvals, `/approvals?project=${q(p.project_id)}`, "pending approvals"),
              ),
              h("td", { dataset: { count: "unverified_requirements" } }, requirementsCell(p)),
              h("td", { class: "num" }, fmt(p.items)),
              h(
                "td",
                {},
                h("a", { href: `/requirements?project=${q(p.project_id)}` }, "requirements"),
                " · ",
                h("a", { href: `/bom?project=${q(p.project_id)}` }, "BOM"),
                " · ",
                h("a", { href: `/releases?project=${q(p.project_id)}` }, "releases"),
                " · ",
                h("a", { href: `/twin?project=${q(p.project_id)}` }, "twin"),
              ),
              h("td", {}, p.updated_at ? new Date(p.updated_at).toLocaleString() : "—"),
            ),
          ),
        ),
      ),
    );
  }
  fill(notes, ...(data.notes || []).map((n) => h("p", { class: "muted note" }, n)));
}

watch("/v1/projects", draw);
