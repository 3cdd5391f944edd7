// /twin?project=&node=&tab=: one project's twin, one node of it selected.
// Tabs:
//   structure  the product hierarchy as a tree-table (GET
//              /v1/twin/hierarchy): each position's mass and cost rolled
//              up its branch (no_data named, never counted as zero), its
//              quantity, owner, the interfaces the system architecture
//              gives it, and the model that gives it a shape.
//   model      the selected node in 3D (GET /v1/twin/model for its parts
//              and their placements, GET /v1/twin/mesh for each part's
//              triangles, a STEP tessellated by the server once): three.js
//              with orbit controls (drag to turn, right-drag to pan, wheel
//              to zoom), fit to view, and the parts' edges.
// The URL carries project, node and tab, so a tool's link lands on its
// node; a tab this page does not have is named as such, never silently
// replaced by another.
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { STLLoader } from "three/addons/loaders/STLLoader.js";
import { api, apiBinary, currentProject, fmt, h, mount, param, region, setParams, showError, watch } from "/assets/app.js";

const TABS = [
  ["structure", "Structure"],
  ["model", "Model"],
];

const STYLE = `
.twin-head { display: flex; flex-wrap: wrap; gap: .3rem 1.5rem; align-items: baseline; }
table.structure td.pos, table.structure td.num { white-space: nowrap; }
table.structure tr.selected { background: #eaf2fb; }
table.structure tr[data-node-id] { cursor: pointer; }
.twin-tools { display: flex; gap: 1rem; align-items: center; margin: .5rem 0; }
.level { font-size: 11px; color: #57606a; margin-left: .4rem; }
`;

const project = currentProject();
let tab = param("tab") || (param("node") ? "model" : "structure");
let stopWatch = () => {};
let viewer = null; // the model tab's 3D view, while it is shown

document.head.appendChild(h("style", {}, STYLE));
mount(h("h1", {}, "Twin"), region("twin-head"), region("twin-tabs"), region("twin-body"));

function tabHref(t, node = param("node")) {
  const u = new URLSearchParams({ project, tab: t });
  if (node) u.set("node", node);
  return `/twin?${u}`;
}

function drawTabs() {
  region("twin-tabs").replaceChildren(
    h(
      "nav",
      { class: "tabs", role: "tablist", "aria-label": "Twin views" },
      TABS.map(([key, label]) =>
        h(
          "a",
          {
            href: tabHref(key),
            role: "tab",
            id: `tab-${key}`,
            "aria-selected": String(key === tab),
            dataset: { tab: key },
            onclick: (e) => {
              e.preventDefault();
              select({ tab: key });
            },
          },
          label,
        ),
      ),
    ),
  );
}

// select changes the tab and/or node, in the URL and on the page.
function select({ tab: t = tab, node = param("node") }) {
  tab = t;
  setParams({ project, tab, node });
  drawTabs();
  show();
}

function show() {
  stopWatch();
  disposeViewer();
  const body = region("twin-body");
  body.replaceChildren();
  if (tab === "structure") showStructure(body);
  else if (tab === "model") showModel(body);
  else {
    body.append(
      h(
        "p",
        { role: "alert", class: "error", id: "unknown-tab" },
        `There is no "${tab}" tab on this page: it shows `,
        TABS.map(([k], i) => [i ? ", " : "", h("a", { href: tabHref(k) }, k)]),
        ".",
      ),
    );
  }
}

// --- structure -------------------------------------------------------

function figureCell(f, unit, kind) {
  const data = { figure: kind };
  if (f.value !== undefined && f.value !== null) {
    data.value = String(f.value);
    return h("td", { class: "num", dataset: data, title: f.source ? `from ${f.source}` : null }, `${fmt(f.value)} ${unit}`);
  }
  const missing = (f.no_data || []).map((n) => `${n.name}: ${n.reason}`).join("\n");
  data.partial = String(f.known_partial_sum ?? "");
  return h(
    "td",
    { class: "num no_data", dataset: data, title: `no data:\n${missing}` },
    `≥ ${fmt(f.known_partial_sum ?? 0)} ${unit}`,
    h("br"),
    h("span", { class: "badge no_data" }, `no data: ${(f.no_data || []).length}`),
  );
}

function interfacesCell(list) {
  if (!list.length) return h("td", { dataset: { interfaces: "0" } }, h("span", { class: "muted" }, "—"));
  const lines = list.map((i) => `${i.name} (${i.kind}, ${i.direction === "out" ? "to" : "from"} ${i.with})`);
  return h(
    "td",
    { dataset: { interfaces: String(list.length) } },
    h("span", { class: "badge", title: lines.join("\n"), "aria-label": `${list.length} interfaces: ${lines.join("; ")}` }, `⇄ ${list.length}`),
  );
}

function showStructure(body) {
  body.append(region("structure-notes", body), region("structure-table", body));
  stopWatch = watch(`/v1/twin/hierarchy?project=${encodeURIComponent(project)}`, (sv) => {
    const notes = [];
    if (sv.note) notes.push(h("p", { role: "status" }, sv.note));
    if (sv.interfaces_note) notes.push(h("p", { class: "muted" }, sv.interfaces_note));
    if (sv.architecture) notes.push(h("p", { class: "muted" }, `Interfaces from ${sv.architecture}.`));
    region("structure-notes").replaceChildren(...notes);
    if (!sv.roots.length) {
      region("structure-table").replaceChildren();
      return;
    }
    const rows = [];
    const walk = (n, depth) => {
      const selected = param("node") === n.node_id || param("node") === n.item_key || param("node") === n.ref;
      rows.push(
        h(
          "tr",
          {
            class: selected ? "selected" : null,
            "aria-selected": String(selected),
            dataset: { nodeId: n.node_id, itemKey: n.item_key, ref: n.ref, depth: String(depth) },
            onclick: (e) => {
              if (e.target.closest("a")) return;
              select({ node: n.node_id });
            },
          },
          h(
            "td",
            { class: "pos", style: { paddingLeft: `${0.5 + depth * 1.4}rem` } },
            depth ? "└ " : "",
            h("a", { href: tabHref("model", n.node_id), title: "view in 3D" }, n.name),
            h("span", { class: "level" }, n.level),
            h("div", { class: "muted" }, n.ref),
          ),
          h("td", { class: "num", dataset: { quantity: String(n.quantity) } }, `×${n.quantity}`, n.total_quantity !== n.quantity ? ` (${n.total_quantity} in all)` : ""),
          figureCell(n.mass_kg, "kg", "mass"),
          figureCell(n.cost_usd, "USD", "cost"),
          figureCell(n.power.peak_w, "W", "power"),
          h("td", { dataset: { owner: n.owner || "" } }, n.owner || h("span", { class: "muted" }, "—")),
          interfacesCell(n.interfaces),
          h(
            "td",
            {},
            n.model
              ? h("a", { href: tabHref("model", n.node_id) }, `${n.model.ref} (${n.model.format.toUpperCase()})`)
              : (n.children || []).length
                ? h("a", { href: tabHref("model", n.node_id), title: n.model_note }, `its ${n.children.length} positions, placed`)
                : h("span", { class: "muted" }, n.model_note),
          ),
        ),
      );
      for (const c of n.children || []) walk(c, depth + 1);
    };
    for (const r of sv.roots) walk(r, 0);
    region("structure-table").replaceChildren(
      h(
        "table",
        { class: "structure", id: "structure" },
        h("caption", { class: "muted" }, "Figures are for one of each position, its whole branch, each child counted as many times as its parent holds it."),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "Position"),
            h("th", { scope: "col", class: "num" }, "Qty"),
            h("th", { scope: "col", class: "num" }, "Mass"),
            h("th", { scope: "col", class: "num" }, "Cost"),
            h("th", { scope: "col", class: "num" }, "Peak power"),
            h("th", { scope: "col" }, "Owner"),
            h("th", { scope: "col" }, "Interfaces"),
            h("th", { scope: "col" }, "Model"),
          ),
        ),
        h("tbody", {}, rows),
      ),
    );
  });
}

// --- model -------------------------------------------------------------

function disposeViewer() {
  if (!viewer) return;
  viewer.dispose();
  viewer = null;
}

async function showModel(body) {
  let node = param("node");
  if (!node) {
    // No node named: the first root of the product structure, if any.
    try {
      const sv = await api(`/v1/twin/hierarchy?project=${encodeURIComponent(project)}`);
      if (sv.roots.length) {
        node = sv.roots[0].node_id;
        setParams({ node });
      }
    } catch (err) {
      showError(err);
    }
  }
  if (!node) {
    body.append(
      h("p", { role: "status" }, "No node chosen and no product structure to start from: pick a node on the ", h("a", { href: tabHref("structure") }, "structure tab"),
        ", or commit a part with twin.commit_geometry and open its link."),
    );
    return;
  }
  const status = h("p", { role: "status", id: "model-status" }, "Loading the model…");
  const canvasBox = h("div", { class: "viewer", id: "viewer", role: "img", "aria-label": "3D view of the selected node" });
  const tools = h(
    "div",
    { class: "twin-tools" },
    h("button", { type: "button", id: "fit-view", onclick: () => viewer && viewer.fit() }, "Fit to view"),
    h("label", {}, h("input", { type: "checkbox", id: "show-edges", checked: true, onchange: (e) => viewer && viewer.showEdges(e.target.checked) }), " Edges"),
    h("span", { class: "muted" }, "Drag to turn, right-drag to pan, wheel to zoom."),
  );
  body.append(region("model-head", body), tools, canvasBox, status, region("model-parts", body));
  try {
    viewer = new Viewer(canvasBox);
  } catch (err) {
    status.setAttribute("role", "alert");
    status.className = "error";
    status.textContent = `This browser cannot draw 3D (${err.message}); the structure tab still shows the figures.`;
    return;
  }
  let shown = "";
  stopWatch = watch(
    `/v1/twin/model?project=${encodeURIComponent(project)}&node=${encodeURIComponent(node)}`,
    async (mv) => {
      drawModelHead(mv);
      const key = JSON.stringify(mv.parts);
      if (key === shown) return;
      shown = key;
      drawParts(mv);
      if (!mv.parts.length) {
        status.textContent = mv.note || "Nothing to draw.";
        viewer.setParts([]);
        canvasBox.dataset.ready = "true";
        return;
      }
      const steps = mv.parts.filter((p) => p.format === "step").length;
      status.textContent = steps ? `Loading ${mv.parts.length} parts (a STEP is tessellated by the server on its first view)…` : `Loading ${mv.parts.length} parts…`;
      try {
        const n = await viewer.setParts(mv.parts);
        status.textContent = `${mv.parts.length} part${mv.parts.length === 1 ? "" : "s"}, ${n} triangles.`;
        canvasBox.dataset.ready = "true";
      } catch (err) {
        status.setAttribute("role", "alert");
        status.className = "error";
        status.textContent = err.message;
      }
    },
    { everyMs: 5000 },
  );
}

function drawModelHead(mv) {
  const n = mv.node;
  region("model-head").replaceChildren(
    h(
      "div",
      { class: "twin-head", id: "selected-node", dataset: { nodeId: n.node_id, nodeType: n.node_type } },
      h("strong", {}, n.name),
      h("span", {}, n.item_key ? `${n.item_key}@${n.revision}` : n.node_id),
      h("span", { class: "badge" }, n.node_type),
      h("a", { href: `/projects/${encodeURIComponent(mv.project_id)}` }, "in the project"),
    ),
  );
}

function drawParts(mv) {
  const out = [];
  if (mv.parts.length) {
    out.push(
      h(
        "table",
        { id: "model-parts-table" },
        h("caption", { class: "muted" }, "Parts drawn, each placed in its parent's frame"),
        h("thead", {}, h("tr", {}, h("th", {}, "Part"), h("th", {}, "Model"), h("th", { class: "num" }, "Quantity"), h("th", {}, "Format"))),
        h(
          "tbody",
          {},
          mv.parts.map((p) =>
            h(
              "tr",
              { dataset: { partNode: p.node_id } },
              h("td", {}, p.name),
              h("td", {}, p.ref),
              h("td", { class: "num" }, String(p.total_quantity)),
              h("td", {}, p.format.toUpperCase()),
            ),
          ),
        ),
      ),
    );
  }
  if (mv.missing && mv.missing.length) {
    out.push(h("h2", {}, "Not drawn"), h("ul", {}, mv.missing.map((m) => h("li", {}, `${m.name} (${m.ref}): ${m.reason}`))));
  }
  region("model-parts").replaceChildren(...out);
}

// Viewer is the 3D view: a Z-up scene (CAD's convention), lit from the
// camera's side, rendered when something changes.
class Viewer {
  constructor(box) {
    this.box = box;
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.renderer.setClearColor(0xfafbfc);
    box.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8d9aa5, 1.6));
    this.camera = new THREE.PerspectiveCamera(35, 1, 0.1, 1e7);
    this.camera.up.set(0, 0, 1);
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(1, -1, 2);
    this.camera.add(sun);
    this.scene.add(this.camera);
    this.root = new THREE.Group();
    this.scene.add(this.root);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener("change", () => this.render());
    this.geometries = new Map(); // mesh route -> Promise<BufferGeometry>
    this.edges = [];
    this.fitted = false;
    this.resize = new ResizeObserver(() => this.setSize());
    this.resize.observe(box);
    this.setSize();
  }

  setSize() {
    const w = this.box.clientWidth || 800;
    const hgt = this.box.clientHeight || 450;
    this.renderer.setSize(w, hgt, false);
    this.camera.aspect = w / hgt;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }

  geometry(route) {
    if (!this.geometries.has(route)) {
      this.geometries.set(
        route,
        apiBinary(route).then((buf) => {
          const g = new STLLoader().parse(buf);
          g.computeVertexNormals();
          return g;
        }),
      );
    }
    return this.geometries.get(route);
  }

  // setParts replaces what is drawn; it answers the triangle count.
  async setParts(parts) {
    const geoms = await Promise.all(parts.map((p) => this.geometry(p.mesh)));
    this.root.clear();
    this.edges = [];
    let triangles = 0;
    const showEdges = document.getElementById("show-edges")?.checked ?? true;
    parts.forEach((p, i) => {
      let parent = this.root;
      for (const pl of p.placements) {
        const g = new THREE.Group();
        g.position.set(pl.x_mm || 0, pl.y_mm || 0, pl.z_mm || 0);
        const d = Math.PI / 180;
        // About the parent's fixed x, then y, then z: R = Rz Ry Rx.
        g.rotation.set((pl.rx_deg || 0) * d, (pl.ry_deg || 0) * d, (pl.rz_deg || 0) * d, "ZYX");
        parent.add(g);
        parent = g;
      }
      const color = new THREE.Color().setHSL((0.58 + i * 0.13) % 1, 0.35, 0.62);
      const mesh = new THREE.Mesh(geoms[i], new THREE.MeshStandardMaterial({ color, metalness: 0.1, roughness: 0.6, polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 }));
      mesh.userData.part = p;
      parent.add(mesh);
      const edges = new THREE.LineSegments(new THREE.EdgesGeometry(geoms[i], 25), new THREE.LineBasicMaterial({ color: 0x1d2127 }));
      edges.visible = showEdges;
      parent.add(edges);
      this.edges.push(edges);
      triangles += geoms[i].index ? geoms[i].index.count / 3 : geoms[i].attributes.position.count / 3;
    });
    this.box.dataset.parts = String(parts.length);
    this.box.dataset.triangles = String(triangles);
    if (!this.fitted) this.fit();
    else this.render();
    return triangles;
  }

  showEdges(on) {
    for (const e of this.edges) e.visible = on;
    this.render();
  }

  // fit puts the whole model in view, from an isometric direction.
  fit() {
    const box = new THREE.Box3().setFromObject(this.root);
    if (box.isEmpty()) {
      this.render();
      return;
    }
    this.fitted = true;
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    const r = Math.max(sphere.radius, 1e-3);
    const fov = (this.camera.fov * Math.PI) / 180;
    const dist = r / Math.sin(Math.min(fov, fov * this.camera.aspect) / 2);
    const dir = new THREE.Vector3(1, -1.2, 0.9).normalize();
    this.camera.position.copy(sphere.center).addScaledVector(dir, dist * 1.05);
    this.camera.near = dist / 100;
    this.camera.far = dist * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(sphere.center);
    this.controls.update();
    this.render();
    this.box.dataset.fitRadius = String(r);
  }

  dispose() {
    this.resize.disconnect();
    this.controls.dispose();
    this.renderer.dispose();
    this.box.replaceChildren();
  }
}

// Started last: a page opened on the model tab builds a Viewer at once,
// and the class exists only once the module has evaluated its declaration.
if (!project) {
  region("twin-body").replaceChildren(
    h("p", { role: "status" }, "No project chosen: pick one on the ", h("a", { href: "/" }, "Projects page"), ", or open /twin?project=PROJECT_ID."),
  );
} else {
  drawTabs();
  show();
}
