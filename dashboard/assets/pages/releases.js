// /releases?project=: the project's release packages (each with its
// counts and the change against the one before), the maturity gates G3 to
// G8 evaluated now with each check's status and what to record to pass,
// the baselines, and the promotion attempts. ?gate= keeps the gate opened.
// Live from GET /v1/promotion (gates, baselines, packages, promotions).
import { h, mount, param, region, setParams, watch } from "/assets/app.js";
import { fill, projectScope } from "/assets/project_pages.js";

const q = encodeURIComponent;

mount(h("h1", { id: "title" }, "Releases"));
const scope = region("scope");
const project = await projectScope(scope, "releases and gates");

const when = (t) => (t ? new Date(t).toLocaleString() : "—");
const badge = (s) => h("span", { class: `badge ${s}` }, s);

function table(headers, rows) {
  return h(
    "table",
    {},
    h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col", class: t.num ? "num" : null }, t.label ?? t)))),
    h("tbody", {}, rows),
  );
}

if (project) {
  document.getElementById("title").textContent = `Releases — ${project.name}`;
  fill(scope, 
    h(
      "p",
      { class: "muted" },
      "A release package is made with twin.create_release_package (or POST /v1/releases) and is refused until gate G8 passes. ",
      h("a", { href: `/projects/${q(project.project_id)}` }, "Project page"),
    ),
  );
  const packages = region("packages");
  const gates = region("gates");
  const baselines = region("baselines");
  const promotions = region("promotions");

  const counts = (c) => (c ? `${c.items} items, ${c.hierarchy} parts, ${c.bom} BOM, ${c.evidence} evidence, ${c.decisions} decisions` : "—");
  const delta = (c) => (c ? ["items", "hierarchy", "bom", "evidence", "decisions"].map((k) => `${k} ${c[k] >= 0 ? "+" : ""}${c[k]}`).join(", ") : "—");

  function drawGates(list) {
    const open = param("gate");
    fill(gates, 
      h("h2", {}, "Maturity gates"),
      ...list.map((g) =>
        h(
          "details",
          {
            class: "gate",
            dataset: { gate: g.gate, status: g.status },
            open: g.gate === open || null,
            ontoggle: (e) => {
              if (e.target.open) setParams({ gate: g.gate });
              else if (param("gate") === g.gate) setParams({ gate: "" });
            },
          },
          h("summary", {}, h("strong", {}, g.gate), ` ${g.name} `, badge(g.status), ` ${g.checks.filter((c) => c.status === "pass").length} of ${g.checks.length} checks pass`),
          table(
            ["Check", "Status", "Detail", "To pass"],
            g.checks.map((c) =>
              h(
                "tr",
                { dataset: { check: c.id, status: c.status } },
                h("td", {}, c.name),
                h("td", {}, badge(c.status)),
                h("td", {}, c.detail || "—"),
                h("td", {}, [...(c.failing || []).map((f) => h("div", { class: "fail" }, f)), ...(c.missing || []).map((m) => h("div", { class: "muted" }, m))]),
              ),
            ),
          ),
        ),
      ),
    );
  }

  function drawPackages(list) {
    fill(packages, 
      h("h2", {}, "Release packages"),
      list.length
        ? table(
            ["Version", "Reason", "Released", "Contents", "Change from the previous"],
            [...list].reverse().map((p) =>
              h(
                "tr",
                { dataset: { releaseVersion: String(p.version) } },
                h("td", {}, h("strong", {}, `v${p.version}`), h("br"), h("code", { class: "muted" }, p.node.node_id)),
                h("td", {}, p.reason || "—"),
                h("td", {}, when(p.node.created_at)),
                h("td", {}, counts(p.counts), h("div", { class: "muted" }, (p.items || []).join(", "))),
                h("td", {}, delta(p.delta)),
              ),
            ),
          )
        : h("p", { role: "status", class: "empty" }, "No release packages yet: when G8 passes, make one with twin.create_release_package (or POST /v1/releases). G8's checks below say what is still missing."),
    );
  }

  function drawBaselines(list) {
    fill(baselines, 
      h("h2", {}, "Baselines"),
      list.length
        ? table(
            ["Baseline", "Reason", "Items", "Approved by", "When"],
            [...list].reverse().map((b) =>
              h(
                "tr",
                { dataset: { baselineId: b.baseline_id } },
                h("td", {}, b.name, h("br"), h("code", { class: "muted" }, b.baseline_id)),
                h("td", {}, b.reason || "—"),
                h("td", {}, (b.items || []).map((r) => h("code", {}, r, " "))),
                h("td", {}, b.approved_by || "—", b.approver_verified ? " (verified)" : ""),
                h("td", {}, when(b.created_at)),
              ),
            ),
          )
        : h("p", { role: "status", class: "empty" }, "No baselines yet: a person fixes one with twin.create_baseline (or POST /v1/baselines)."),
    );
  }

  function drawPromotions(list) {
    fill(promotions, 
      h("h2", {}, "Promotion attempts"),
      list.length
        ? table(
            ["Maturity", "Outcome", "Decided by", "When", "Blocked by"],
            [...list].reverse().map((p) =>
              h(
                "tr",
                { dataset: { promotionId: p.node.node_id } },
                h("td", {}, p.maturity_level),
                h("td", {}, badge(p.promoted ? "pass" : "fail"), p.promoted ? " promoted" : " not promoted"),
                h("td", {}, p.decided_by || "—", p.decider_verified ? " (verified)" : ""),
                h("td", {}, when(p.node.created_at)),
                h("td", {}, (p.blocked_reasons || []).join("; ") || "—"),
              ),
            ),
          )
        : h("p", { role: "status", class: "empty" }, "No promotion attempts yet: twin.attempt_promotion (or POST /v1/promotion/attempt) records one."),
    );
  }

  watch(`/v1/promotion?project=${q(project.project_id)}`, (data) => {
    drawPackages(data.release_packages || []);
    drawGates(data.gates || []);
    drawBaselines(data.baselines || []);
    drawPromotions(data.promotions || []);
  });
}
