// /bom?project=&view=flat|hierarchical: the engineering BOM derived from
// the product hierarchy, as one line per BOM item (flat, quantities
// totalled) or as the product tree (hierarchical), and the roll-ups of
// each hierarchy root: mass, cost and power, each child counted as many
// times as its parent holds it. A figure some part cannot give is shown as
// no data with the known partial sum and the parts missing it, never as a
// total. The view is kept in the address. Live from GET /v1/bom and GET
// /v1/bom/rollup.
import { fmt, h, mount, param, region, setParams, watch } from "/assets/app.js";
import { fill, projectScope } from "/assets/project_pages.js";

const q = encodeURIComponent;
const VIEWS = ["flat", "hierarchical"];

mount(h("h1", { id: "title" }, "Bill of materials"));
const scope = region("scope");
const project = await projectScope(scope, "bill of materials");

if (project) {
  document.getElementById("title").textContent = `Bill of materials — ${project.name}`;
  fill(scope, 
    h("p", { class: "muted" }, "Derived from the product hierarchy (twin.record_hierarchy_node): quantities multiply down the tree. ",
      h("a", { href: `/projects/${q(project.project_id)}` }, "Project page")),
  );
  const rollups = region("rollups");
  const toggle = region("view-toggle");
  toggle.className = "toggle";
  const bom = region("bom");
  let stopBOM = null;

  const figureText = (f, unit) => {
    if (!f) return "—";
    if (f.value !== undefined) return `${fmt(f.value)} ${unit}`;
    return `no data (≥ ${fmt(f.known_partial_sum ?? 0)} ${unit} known)`;
  };
  const figureTitle = (f) => (f && f.no_data ? `missing: ${f.no_data.map((n) => `${n.name} (${n.reason})`).join("; ")}` : f && f.source ? `from ${f.source}` : null);

  function figureCard(label, f, unit, key) {
    return h(
      "div",
      { class: "figure", dataset: { figure: key, value: f && f.value !== undefined ? String(f.value) : "" } },
      h("div", { class: "label" }, label),
      h("div", { class: "value" }, figureText(f, unit)),
      f && f.no_data ? h("div", { class: "muted note" }, "Missing: ", f.no_data.map((n) => n.name).join(", ")) : null,
    );
  }

  function rollupRows(n, depth, out) {
    out.push(
      h(
        "tr",
        { dataset: { ref: n.ref } },
        h("td", { class: `indent-${Math.min(depth, 4)}` }, n.name, " ", h("code", { class: "muted" }, n.ref), n.level ? h("span", { class: "muted" }, ` ${n.level}`) : null),
        h("td", { class: "num" }, String(n.quantity)),
        h("td", { class: "num" }, String(n.total_quantity)),
        h("td", { class: "num", title: figureTitle(n.mass_kg) }, figureText(n.mass_kg, "kg")),
        h("td", { class: "num", title: figureTitle(n.cost_usd) }, figureText(n.cost_usd, "USD")),
        h("td", { class: "num", title: figureTitle(n.power?.peak_w) }, figureText(n.power?.peak_w, "W")),
        h("td", { class: "num", title: figureTitle(n.power?.average_w) }, figureText(n.power?.average_w, "W")),
      ),
    );
    for (const c of n.children || []) rollupRows(c, depth + 1, out);
    return out;
  }

  watch(`/v1/bom/rollup?project=${q(project.project_id)}`, (data) => {
    if (!data.roots.length) {
      fill(rollups, h("h2", {}, "Roll-ups"), h("p", { role: "status", class: "empty" }, data.note));
      return;
    }
    fill(rollups, 
      h("h2", {}, "Roll-ups"),
      ...data.roots.map((r) =>
        h(
          "section",
          { class: "rollup", dataset: { root: r.ref } },
          h("h3", {}, r.name, " ", h("code", { class: "muted" }, r.ref)),
          h(
            "div",
            { class: "figures" },
            figureCard("Mass", r.mass_kg, "kg", "mass_kg"),
            figureCard("Cost", r.cost_usd, "USD", "cost_usd"),
            figureCard("Peak power", r.power?.peak_w, "W", "peak_w"),
            figureCard("Average power", r.power?.average_w, "W", "average_w"),
            figureCard("Heat dissipated", r.power?.dissipation_w, "W", "dissipation_w"),
          ),
          h(
            "table",
            { class: "rollup-tree" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", { scope: "col" }, "Position"),
                h("th", { scope: "col", class: "num" }, "Qty"),
                h("th", { scope: "col", class: "num" }, "Total qty"),
                h("th", { scope: "col", class: "num" }, "Mass (each)"),
                h("th", { scope: "col", class: "num" }, "Cost (each)"),
                h("th", { scope: "col", class: "num" }, "Peak power"),
                h("th", { scope: "col", class: "num" }, "Average power"),
              ),
            ),
            h("tbody", {}, rollupRows(r, 0, [])),
          ),
        ),
      ),
    );
  });

  function drawToggle(view) {
    fill(toggle, 
      h("h2", {}, "BOM lines"),
      h("span", { class: "muted" }, "View: "),
      ...VIEWS.map((v) =>
        h(
          "a",
          {
            href: `?project=${q(project.project_id)}&view=${v}`,
            role: "button",
            "aria-pressed": v === view ? "true" : "false",
            dataset: { view: v },
            onclick: (e) => {
              e.preventDefault();
              show(v);
            },
          },
          v,
        ),
      ),
    );
  }

  const money = (x) => (x === undefined || x === null ? "—" : `${fmt(x)} USD`);

  function lineRow(l, extra = {}) {
    return h(
      "tr",
      { dataset: { itemRef: l.item_ref } },
      h("td", extra.indent ? { class: extra.indent } : {}, extra.label || l.name, extra.label ? null : h("br"), h("code", { class: "muted" }, l.item_ref)),
      h("td", {}, l.mpn || "—", l.manufacturer ? h("span", { class: "muted" }, ` ${l.manufacturer}`) : null),
      h("td", {}, l.category || "—"),
      h("td", { class: "num" }, String(l.total_quantity)),
      h("td", { class: "num" }, money(l.unit_cost_usd)),
      h("td", { class: "num", title: l.cost_no_data || null }, l.extended_cost_usd === undefined ? h("span", { class: "no_data" }, "no data") : money(l.extended_cost_usd)),
    );
  }

  function positionRows(p, depth, out) {
    const indent = `indent-${Math.min(depth, 4)}`;
    if (p.bom_item) out.push(lineRow({ ...p.bom_item, total_quantity: p.total_quantity }, { indent, label: `${p.name} × ${p.quantity}` }));
    else
      out.push(
        h(
          "tr",
          { dataset: { ref: p.ref } },
          h("td", { class: indent }, h("strong", {}, p.name), ` × ${p.quantity} `, h("code", { class: "muted" }, p.ref)),
          h("td", { colspan: "2", class: "muted" }, p.level || ""),
          h("td", { class: "num" }, String(p.total_quantity)),
          h("td", {}, ""),
          h("td", {}, ""),
        ),
      );
    for (const c of p.children || []) positionRows(c, depth + 1, out);
    return out;
  }

  function drawBOM(data) {
    const rows = data.view === "hierarchical" ? (data.tree || []).flatMap((p) => positionRows(p, 0, [])) : (data.lines || []).map((l) => lineRow(l));
    const total =
      data.total_cost_usd !== undefined
        ? h("p", { dataset: { total: "cost_usd" } }, "Total cost: ", h("strong", {}, money(data.total_cost_usd)))
        : data.known_partial_cost_usd !== undefined
          ? h("p", {}, `Total cost: no data (${money(data.known_partial_cost_usd)} known; no cost for ${(data.cost_no_data || []).join(", ")})`)
          : null;
    if (!rows.length) {
      fill(bom, 
        h("p", { role: "status", class: "empty" }, data.note || "No BOM lines yet: make hierarchy positions instance_of a BOM item (twin.record_component_selection) and they are listed here."),
      );
      return;
    }
    fill(bom, 
      h(
        "table",
        { class: `bom ${data.view}` },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, data.view === "hierarchical" ? "Position" : "Item"),
            h("th", { scope: "col" }, "MPN"),
            h("th", { scope: "col" }, "Category"),
            h("th", { scope: "col", class: "num" }, "Total qty"),
            h("th", { scope: "col", class: "num" }, "Unit cost"),
            h("th", { scope: "col", class: "num" }, "Extended"),
          ),
        ),
        h("tbody", {}, rows),
      ),
      total,
      data.note ? h("p", { class: "muted" }, data.note) : null,
    );
  }

  function show(view) {
    if (!VIEWS.includes(view)) view = "flat";
    setParams({ view });
    drawToggle(view);
    if (stopBOM) stopBOM();
    fill(bom, h("p", { class: "muted" }, "Loading…"));
    stopBOM = watch(`/v1/bom?project=${q(project.project_id)}&view=${view}`, drawBOM);
  }
  const start = param("view");
  if (start && !VIEWS.includes(start)) {
    bom.before(h("p", { role: "alert", class: "error" }, `There is no view “${start}”: showing flat (the views are flat and hierarchical).`));
  }
  show(start);
}
