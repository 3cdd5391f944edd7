// /projects/{id}: one project's work products as a tree (each item at its
// head revision, KEY@n; hierarchy positions nested under their parent),
// the history of the item picked (?item=KEY: every revision and the
// evidence computed against it), and the project's evidence with its
// freshness (?evidence=stale shows only the stale). Live from GET
// /v1/projects/{id} and its items' history.
import { fmt, h, mount, param, pathID, region, setParams, watch } from "/assets/app.js";
import { fill } from "/assets/project_pages.js";

const id = pathID();
const q = encodeURIComponent;
localStorage.setItem("metaforge.project", id);

mount(h("h1", { id: "project-title" }, `Project ${id}`));
const header = region("project-header");
const body = h("div", { class: "project-layout" });
document.getElementById("app").append(body);
const treeBox = region("tree", body);
const historyBox = region("history", body);
const evidenceBox = region("evidence");

let stopHistory = null;
let lastEvidence = [];

function badge(status) {
  return h("span", { class: `badge ${status}` }, status);
}

function drawHeader(d) {
  document.getElementById("project-title").textContent = d.name;
  document.title = `MetaForge · ${d.name}`;
  const r = d.requirements || {};
  fill(header, 
    h("p", { class: "muted" }, h("code", {}, d.project_id), d.description ? ` — ${d.description}` : ""),
    h(
      "p",
      { class: "glance" },
      h("a", { href: `/requirements?project=${q(id)}` }, `${d.unverified_requirements} of ${r.requirements || 0} requirements not passing`),
      " · ",
      h("a", { href: `/runs?project=${q(id)}` }, `${d.open_runs ?? "?"} open runs`),
      " · ",
      h("a", { href: `/approvals?project=${q(id)}` }, `${d.pending_approvals ?? "?"} pending approvals`),
      " · ",
      `${d.fresh_evidence} fresh, ${d.stale_evidence} stale evidence`,
      " · ",
      h("a", { href: `/bom?project=${q(id)}` }, "BOM"),
      " · ",
      h("a", { href: `/releases?project=${q(id)}` }, "releases"),
      " · ",
      h("a", { href: `/twin?project=${q(id)}` }, "twin"),
    ),
    ...(d.notes || []).map((n) => h("p", { class: "muted note" }, n)),
  );
}

function itemNode(it) {
  const selected = it.key === param("item");
  return h(
    "li",
    { dataset: { itemKey: it.key } },
    h(
      "a",
      {
        href: `?item=${q(it.key)}${param("evidence") ? "&evidence=" + q(param("evidence")) : ""}`,
        class: "item-ref",
        "aria-current": selected ? "true" : null,
        onclick: (e) => {
          e.preventDefault();
          select(it.key);
        },
      },
      it.ref,
    ),
    " ",
    it.name,
    it.level ? h("span", { class: "muted" }, ` (${it.level})`) : null,
    it.children && it.children.length ? h("ul", {}, it.children.map(itemNode)) : null,
  );
}

function drawTree(d) {
  if (!d.tree.length) {
    fill(treeBox, 
      h("h2", {}, "Work products"),
      h("p", { role: "status", class: "empty" }, "No work products yet: commit one (twin.commit_geometry, twin.record_constraint_set, twin.record_hierarchy_node…) and it appears here."),
    );
    return;
  }
  fill(treeBox, 
    h("h2", {}, "Work products"),
    h(
      "ul",
      { class: "tree", role: "tree" },
      d.tree.map((b) =>
        h(
          "li",
          { dataset: { itemType: b.item_type } },
          h("strong", {}, b.item_type.replaceAll("_", " ")),
          h("span", { class: "muted" }, ` (${b.count})`),
          h("ul", {}, b.items.map(itemNode)),
        ),
      ),
    ),
  );
}

function evidenceList(list) {
  if (!list.length) return h("span", { class: "muted" }, "none");
  return h(
    "ul",
    { class: "plain" },
    list.map((e) =>
      h(
        "li",
        { dataset: { evidenceId: e.node_id } },
        badge(e.freshness),
        " ",
        e.name,
        e.metric ? ` — ${e.metric} ${e.value !== undefined ? fmt(e.value) : ""} ${e.unit || ""}` : "",
      ),
    ),
  );
}

function drawHistory(hist) {
  fill(historyBox, 
    h("h2", {}, `History of ${hist.item.key}`, h("span", { class: "muted" }, ` — ${hist.item.name}, head ${hist.head_ref}`)),
    h(
      "table",
      { class: "history" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Revision"),
          h("th", { scope: "col" }, "Name"),
          h("th", { scope: "col" }, "Why"),
          h("th", { scope: "col" }, "By"),
          h("th", { scope: "col" }, "When"),
          h("th", { scope: "col" }, "Evidence computed against it"),
        ),
      ),
      h(
        "tbody",
        {},
        [...hist.revisions].reverse().map((r) =>
          h(
            "tr",
            { dataset: { ref: r.ref } },
            h("td", {}, h("code", {}, r.ref), r.is_head ? h("span", { class: "badge pass" }, "head") : null),
            h("td", {}, r.name),
            h("td", {}, r.change_reason || h("span", { class: "muted" }, "—")),
            h("td", {}, r.author || "—"),
            h("td", {}, new Date(r.created_at).toLocaleString()),
            h("td", {}, evidenceList(r.evidence)),
          ),
        ),
      ),
    ),
  );
}

function select(key) {
  setParams({ item: key });
  for (const a of treeBox.querySelectorAll("a.item-ref")) {
    if (a.closest("li").dataset.itemKey === key) a.setAttribute("aria-current", "true");
    else a.removeAttribute("aria-current");
  }
  if (stopHistory) stopHistory();
  stopHistory = null;
  if (!key) {
    fill(historyBox, h("h2", {}, "History"), h("p", { role: "status", class: "muted" }, "Pick a work product in the tree to see its revisions and the evidence computed against each."));
    return;
  }
  fill(historyBox, h("p", { class: "muted" }, `Loading the history of ${key}…`));
  stopHistory = watch(`/v1/projects/${q(id)}/items/${q(key)}/history`, drawHistory, {
    onError: (err) => fill(historyBox, h("p", { role: "alert", class: "error" }, err.message)),
  });
}

const filterBox = h(
  "select",
  {
    id: "evidence-filter",
    "aria-label": "Evidence shown",
    onchange: () => {
      setParams({ evidence: filterBox.value === "all" ? "" : filterBox.value });
      drawEvidence(lastEvidence);
    },
  },
  h("option", { value: "all" }, "all evidence"),
  h("option", { value: "stale" }, "stale only"),
  h("option", { value: "fresh" }, "fresh only"),
);
filterBox.value = param("evidence") || "all";
const evidenceTitle = h("h2", {}, "Evidence ", filterBox);
const evidenceTable = h("div");
fill(evidenceBox, evidenceTitle, evidenceTable);

function drawEvidence(list) {
  lastEvidence = list;
  const want = filterBox.value;
  const shown = want === "all" ? list : list.filter((e) => e.freshness === want);
  if (!list.length) {
    fill(evidenceTable, h("p", { role: "status", class: "empty" }, "No evidence recorded yet: record results with twin.record_evidence (pinned to the revisions they were computed against) and they appear here."));
    return;
  }
  fill(evidenceTable, 
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Evidence"),
          h("th", { scope: "col" }, "Value"),
          h("th", { scope: "col" }, "Computed against"),
          h("th", { scope: "col" }, "Verifies"),
          h("th", { scope: "col" }, "Freshness"),
        ),
      ),
      h(
        "tbody",
        {},
        shown.map((e) =>
          h(
            "tr",
            { dataset: { evidenceId: e.node_id, freshness: e.freshness } },
            h("td", {}, e.name, h("br"), h("span", { class: "muted" }, e.kind || ""), " ", h("code", { class: "muted" }, e.node_id)),
            h("td", { class: "num" }, e.metric ? `${e.metric} = ${fmt(e.value)} ${e.unit || ""}` : "—"),
            h("td", {}, e.valid_against.map((r) => h("code", {}, r, " "))),
            h("td", {}, e.verifies.length ? e.verifies.map((r) => h("code", {}, r, " ")) : h("span", { class: "muted" }, "—")),
            h(
              "td",
              {},
              badge(e.freshness),
              (e.stale_against || []).map((s) => h("div", { class: "muted" }, `computed against ${s.pinned}; the head is now ${s.head}`)),
              (e.superseded_by || []).length ? h("div", { class: "muted" }, `superseded by ${e.superseded_by.join(", ")}`) : null,
            ),
          ),
        ),
      ),
      shown.length === 0 ? h("caption", { role: "status" }, `No ${want} evidence.`) : null,
    ),
  );
}

watch(`/v1/projects/${q(id)}`, (d) => {
  drawHeader(d);
  drawTree(d);
  drawEvidence(d.evidence);
}, {
  onError: (err) => {
    fill(header, 
      h("p", { role: "alert", class: "error" }, err.message),
      err.status === 404 ? h("p", {}, h("a", { href: "/" }, "See the projects")) : null,
    );
  },
});
select(param("item"));
