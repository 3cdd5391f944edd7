// /sim?project=&result=<callId>&field=&scale=&compare=<callId>: an FEA
// result in 3D. The field (von Mises stress, displacement or temperature)
// is a viridis colour map on the part's outer surface with a legend whose
// top is the result's peak, the peak marked; the shape is drawn deformed
// by a scale the slider sets; fixtures are blue points, loads red arrows;
// hovering the part reads the field and the node's displacement. With
// compare=, two results side by side, one camera and one colour scale.
// Without result=, the project's FEA results to pick from.
//
// The data is GET /v1/results/{callId}/field (simresults): flat arrays of
// the decimated surface. A finished result does not change, so it is read
// once; the list of results is watched.
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { ApiError, api, currentProject, fmt, h, mount, param, setParams, showError, watch } from "/assets/app.js";

const FIELDS = [
  ["von_mises", "von Mises stress"],
  ["displacement", "Displacement"],
  ["temperature", "Temperature"],
];

const STYLE = `
.sim-bar { display: flex; flex-wrap: wrap; gap: .6rem 1.4rem; align-items: center; margin: .2rem 0 .8rem; }
.sim-bar fieldset { border: 0; padding: 0; margin: 0; display: flex; gap: .6rem; align-items: center; }
.sim-bar legend { float: left; font-weight: 600; margin-right: .5rem; }
.sim-views { display: grid; grid-template-columns: 1fr; gap: .8rem; }
.sim-views.compare { grid-template-columns: 1fr 1fr; }
.sim-side h2 { margin: 0 0 .3rem; font-size: .95rem; }
.sim-side .viewer { height: 30rem; overflow: hidden; }
.sim-label { position: absolute; pointer-events: none; font: 12px/1.2 system-ui, sans-serif; padding: .1rem .3rem;
  background: rgba(255,255,255,.85); border: 1px solid #c9ced6; border-radius: .25rem; white-space: nowrap; transform: translate(-50%, -140%); }
.sim-label.peak { border-color: #ff2d55; color: #a3002a; font-weight: 600; }
.sim-label.fixture { border-color: #2563eb; color: #1e40af; transform: translate(-50%, 40%); }
.sim-legend { display: flex; align-items: center; gap: .6rem; margin: .8rem 0 .3rem; }
.sim-legend canvas { width: 22rem; height: 1rem; border: 1px solid #c9ced6; }
.sim-legend .ticks { display: flex; justify-content: space-between; width: 22rem; font-size: 12px; font-variant-numeric: tabular-nums; }
.sim-probe { min-height: 1.5rem; font-variant-numeric: tabular-nums; }
.sim-note { padding: .6rem .8rem; background: #fbf3d0; border: 1px solid #e9d48a; border-radius: .4rem; }
.sim-key span { margin-right: 1rem; }
.sim-key i { display: inline-block; width: .8rem; height: .8rem; border-radius: 50%; margin-right: .3rem; vertical-align: -1px; }
`;

// viridis is matplotlib's perceptual colour map, as a polynomial fit (sRGB,
// t in [0, 1]): even steps in value look like even steps in colour, and it
// reads in grey and to the colour-blind.
function viridis(t) {
  const c = [
    [0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
    [0.1050930431085774, 1.404613529898575, 1.384590162594685],
    [-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
    [-4.634230498983486, -5.799100973351585, -19.33244095627987],
    [6.228269936347081, 14.17993336680509, 56.69055260068105],
    [4.776384997670288, -13.74514537774601, -65.35303263337234],
    [-5.435455855934631, 4.645852612178535, 26.3124352495832],
  ];
  return [0, 1, 2].map((k) => {
    let v = c[6][k];
    for (let i = 5; i >= 0; i--) v = c[i][k] + t * v;
    return Math.min(1, Math.max(0, v));
  });
}

// The colour map as a 256 x 1 texture: the surface carries each vertex's
// value as a texture coordinate, so colours interpolate by value across a
// triangle, as the legend reads.
function colourTexture() {
  const n = 256;
  const data = new Uint8Array(4 * n);
  for (let i = 0; i < n; i++) {
    const [r, g, b] = viridis(i / (n - 1));
    data.set([Math.round(r * 255), Math.round(g * 255), Math.round(b * 255), 255], 4 * i);
  }
  const tex = new THREE.DataTexture(data, n, 1, THREE.RGBAFormat);
  tex.colorSpace = THREE.SRGBColorSpace;
  tex.magFilter = tex.minFilter = THREE.LinearFilter;
  tex.wrapS = tex.wrapT = THREE.ClampToEdgeWrapping;
  tex.needsUpdate = true;
  return tex;
}

function fieldLabel(name) {
  return (FIELDS.find(([n]) => n === name) || [name, name])[1];
}

// notStored says whether an API error is the route's "field not stored".
function notStored(err) {
  return err instanceof ApiError && err.status === 404 && /^field not stored/.test(err.message);
}

// ---------------------------------------------------------------------------
// The list of the project's results (no result= in the address).

function renderList(project) {
  const intro = h("p", { class: "muted" }, "Pick a result to see its field in 3D, or tick two and compare them side by side.");
  const table = h("div", { id: "sim-results" }, h("p", { class: "muted" }, "Loading the project's FEA results…"));
  const compareBtn = h("button", { type: "button", id: "sim-compare-selected", disabled: true }, "Compare the two ticked");
  mount(h("h1", {}, "Simulation results"), intro, table, h("p", {}, compareBtn));
  if (!project) {
    table.replaceChildren(h("p", { class: "sim-note", role: "status" },
      "No project chosen: open one from Projects (/) or add ?project=PROJECT_ID to the address; its FEA results are listed here."));
    return;
  }
  const ticked = new Set();
  compareBtn.addEventListener("click", () => {
    const [a, b] = [...ticked];
    location.href = `/sim?project=${encodeURIComponent(project)}&result=${a}&compare=${b}`;
  });
  watch(`/v1/simulation/results?project=${encodeURIComponent(project)}`, (data) => {
    const rows = data.results.map((r) => {
      const box = h("input", { type: "checkbox", "aria-label": `compare ${r.call_id}`, checked: ticked.has(r.call_id) });
      box.addEventListener("change", () => {
        if (box.checked) ticked.add(r.call_id);
        else ticked.delete(r.call_id);
        compareBtn.disabled = ticked.size !== 2;
      });
      return h("tr", { dataset: { callId: r.call_id } },
        h("td", {}, box),
        h("td", {}, h("a", { href: `/sim?project=${encodeURIComponent(project)}&result=${r.call_id}` }, r.name)),
        h("td", {}, r.tool_id || "—"),
        h("td", {}, r.metrics.map((m) => h("div", {}, `${m.metric || m.name}: ${fmt(m.value)} ${m.unit || ""}`))),
        h("td", {}, new Date(r.recorded_at).toLocaleString(), r.stale ? h("span", { class: "badge stale" }, " stale") : null),
        h("td", {}, h("code", {}, r.call_id)));
    });
    const without = data.without_field.map((m) => h("tr", { dataset: { evidenceId: m.evidence_id } },
      h("td", {}), h("td", {}, m.name), h("td", {}, "—"), h("td", {}, `${m.metric || ""}: ${fmt(m.value)} ${m.unit || ""}`),
      h("td", { colspan: 2 }, h("span", { class: "badge no_data" }, "Field not stored"), " recorded without a solver call")));
    if (rows.length === 0 && without.length === 0) {
      table.replaceChildren(h("p", { class: "sim-note", role: "status" }, data.note || "No FEA results in this project yet."));
      return;
    }
    table.replaceChildren(h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "compare"), h("th", { scope: "col" }, "result"), h("th", { scope: "col" }, "tool"),
        h("th", { scope: "col" }, "values"), h("th", { scope: "col" }, "recorded"), h("th", { scope: "col" }, "call"))),
      h("tbody", {}, rows, without)));
  });
}

// ---------------------------------------------------------------------------
// One result drawn in a viewer.

class SimView {
  constructor(container, data, side) {
    this.data = data;
    this.side = side;
    this.container = container;
    const { bbox_mm: bb } = data;
    this.centre = new THREE.Vector3((bb.min[0] + bb.max[0]) / 2, (bb.min[1] + bb.max[1]) / 2, (bb.min[2] + bb.max[2]) / 2);
    this.size = Math.hypot(bb.max[0] - bb.min[0], bb.max[1] - bb.min[1], bb.max[2] - bb.min[2]) || 1;

    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.renderer.setClearColor(0xfafbfc);
    const canvas = this.renderer.domElement;
    canvas.dataset.side = side;
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `${data.quantity} of call ${data.call_id}, peak ${fmt(data.max)} ${data.unit}`);
    container.appendChild(canvas);

    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(40, 1, this.size / 1000, this.size * 20);
    this.camera.up.set(0, 0, 1);
    this.scene.add(this.camera);
    // Lights in physical units (three r155+): Lambert reflects
    // intensity / pi, so these sum to about 1 on a face turned to the view.
    this.scene.add(new THREE.AmbientLight(0xffffff, 0.62 * Math.PI));
    const key = new THREE.DirectionalLight(0xffffff, 0.42 * Math.PI);
    key.position.set(0.3, 0.6, 1);
    this.camera.add(key);

    this.geometry = new THREE.BufferGeometry();
    this.base = Float32Array.from(data.positions);
    this.disp = data.displacements ? Float32Array.from(data.displacements) : null;
    this.values = Float32Array.from(data.values);
    this.geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(this.base), 3));
    this.geometry.setAttribute("uv", new THREE.BufferAttribute(new Float32Array(2 * this.values.length), 2));
    this.geometry.setIndex(new THREE.BufferAttribute(Uint32Array.from(data.indices), 1));
    this.mesh = new THREE.Mesh(this.geometry, new THREE.MeshLambertMaterial({ map: colourTexture() }));
    this.scene.add(this.mesh);
    this.edges = null;

    this.peak = new THREE.Mesh(new THREE.SphereGeometry(this.size * 0.008, 16, 12), new THREE.MeshBasicMaterial({ color: 0xff2d55 }));
    this.scene.add(this.peak);
    this.markers = new THREE.Group();
    this.scene.add(this.markers);
    this.labels = [];
    this.peakLabel = this.label("peak", `peak ${fmt(data.max)} ${data.unit}`);

    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.zoomToCursor = true;
    this.controls.addEventListener("change", () => this.render());
    // Until a person turns the view, a resize refits the part.
    this.moved = false;
    this.controls.addEventListener("start", () => {
      this.moved = true;
    });

    this.scale = 0;
    this.setRange(data.min, data.max);
    this.resize = new ResizeObserver(() => this.fit());
    this.resize.observe(container);
    this.fit();
  }

  label(kind, text) {
    const el = h("span", { class: `sim-label ${kind}` }, text);
    this.container.appendChild(el);
    return el;
  }

  // resetCamera looks at the part from its +x, -y, +z side, as close as
  // its box allows at the view's aspect.
  resetCamera() {
    const dir = new THREE.Vector3(1, -1, 0.9).normalize();
    const up = new THREE.Vector3(0, 0, 1);
    const right = new THREE.Vector3().crossVectors(dir.clone().negate(), up).normalize();
    const upv = new THREE.Vector3().crossVectors(right, dir.clone().negate());
    const tanV = Math.tan(THREE.MathUtils.degToRad(this.camera.fov / 2));
    const tanH = tanV * this.camera.aspect;
    // The box grows by the drawn displacement, so the deformed part fits.
    const pad = (this.data.max_displacement ? this.data.max_displacement.value : 0) * (this.scale || 0);
    const min = this.data.bbox_mm.min.map((x) => x - pad);
    const max = this.data.bbox_mm.max.map((x) => x + pad);
    let dist = 0;
    for (const x of [min[0], max[0]]) {
      for (const y of [min[1], max[1]]) {
        for (const z of [min[2], max[2]]) {
          const c = new THREE.Vector3(x, y, z).sub(this.centre);
          const depth = c.dot(dir);
          dist = Math.max(dist, depth + Math.abs(c.dot(right)) / tanH, depth + Math.abs(c.dot(upv)) / tanV);
        }
      }
    }
    this.camera.position.copy(this.centre).addScaledVector(dir, dist * 1.12);
    this.controls.target.copy(this.centre);
    this.controls.update();
  }

  fit() {
    const w = this.container.clientWidth || 600;
    const hgt = this.container.clientHeight || 400;
    this.renderer.setSize(w, hgt, false);
    this.camera.aspect = w / hgt;
    this.camera.updateProjectionMatrix();
    if (!this.moved) this.resetCamera();
    this.render();
  }

  // setRange maps values to colours over [lo, hi] (shared when comparing).
  setRange(lo, hi) {
    this.lo = lo;
    this.hi = hi;
    const uv = this.geometry.getAttribute("uv");
    const span = hi - lo || 1;
    for (let i = 0; i < this.values.length; i++) uv.setXY(i, Math.min(1, Math.max(0, (this.values[i] - lo) / span)), 0.5);
    uv.needsUpdate = true;
    this.render();
  }

  // at is vertex i's drawn position (deformed by the current scale).
  at(i, target = new THREE.Vector3()) {
    const p = this.geometry.getAttribute("position");
    return target.fromBufferAttribute(p, i);
  }

  deformed(p, u) {
    return new THREE.Vector3(p[0] + this.scale * (u ? u[0] : 0), p[1] + this.scale * (u ? u[1] : 0), p[2] + this.scale * (u ? u[2] : 0));
  }

  // setScale draws the shape deformed by scale times the displacements.
  setScale(scale) {
    this.scale = this.disp ? scale : 0;
    const pos = this.geometry.getAttribute("position");
    for (let i = 0; i < pos.count; i++) {
      const d = this.disp;
      pos.setXYZ(i, this.base[3 * i] + (d ? this.scale * d[3 * i] : 0), this.base[3 * i + 1] + (d ? this.scale * d[3 * i + 1] : 0),
        this.base[3 * i + 2] + (d ? this.scale * d[3 * i + 2] : 0));
    }
    pos.needsUpdate = true;
    this.geometry.computeVertexNormals();
    this.geometry.computeBoundingSphere();
    this.geometry.computeBoundingBox();
    if (this.edges) {
      this.scene.remove(this.edges);
      this.edges.geometry.dispose();
    }
    this.edges = new THREE.LineSegments(new THREE.EdgesGeometry(this.geometry, 35), new THREE.LineBasicMaterial({ color: 0x30363d }));
    this.scene.add(this.edges);
    const pk = this.data.peak;
    this.peak.position.copy(this.deformed(pk.at_mm, pk.displacement_mm));
    this.drawMarkers();
    if (!this.moved) this.resetCamera();
    this.render();
  }

  // drawMarkers: fixtures (fixed, sink) as blue points on their nodes;
  // loads as an arrow onto the loaded face with its size; a heat source's
  // arrow points into the face.
  drawMarkers() {
    this.markers.clear();
    for (const l of this.labels) l.remove();
    this.labels = [];
    for (const m of this.data.markers) {
      const pts = [];
      for (let i = 0; i < m.points_mm.length; i += 3) {
        const u = m.displacements_mm ? m.displacements_mm.slice(i, i + 3) : null;
        pts.push(this.deformed(m.points_mm.slice(i, i + 3), u));
      }
      const fixture = m.role === "fixed" || m.role === "sink";
      const colour = fixture ? 0x2563eb : m.role === "heat_source" ? 0xf97316 : 0xe11d48;
      const points = new THREE.Points(new THREE.BufferGeometry().setFromPoints(pts), new THREE.PointsMaterial({ color: colour, size: 5, sizeAttenuation: false }));
      points.userData = { role: m.role, name: m.name };
      this.markers.add(points);
      if (fixture) {
        const c = pts.reduce((a, p) => a.add(p), new THREE.Vector3()).multiplyScalar(1 / Math.max(1, pts.length));
        this.labels.push(Object.assign(this.label("fixture", m.role === "fixed" ? `fixed ${m.name}` : `sink ${m.name}`), { anchor: c }));
        continue;
      }
      let dir = m.direction ? new THREE.Vector3(...m.direction) : new THREE.Vector3(...m.normal).negate();
      if (dir.lengthSq() === 0) dir = new THREE.Vector3(0, 0, -1);
      dir.normalize();
      const centre = pts.reduce((a, p) => a.add(p), new THREE.Vector3()).multiplyScalar(1 / Math.max(1, pts.length));
      const len = this.size * 0.18;
      const tail = centre.clone().addScaledVector(dir, -len);
      const arrow = new THREE.ArrowHelper(dir, tail, len, colour, len * 0.25, len * 0.12);
      arrow.userData = { role: m.role, name: m.name };
      this.markers.add(arrow);
      const text = `${m.role === "load" ? "load" : "heat"} ${m.magnitude !== undefined ? fmt(m.magnitude) + " " + (m.unit || "") : ""} on ${m.name}`;
      this.labels.push(Object.assign(this.label("load", text), { anchor: tail }));
    }
  }

  // screen is where a model point is drawn, in the page's CSS pixels.
  screen(v) {
    const r = this.renderer.domElement.getBoundingClientRect();
    const p = v.clone().project(this.camera);
    return { x: r.left + ((p.x + 1) / 2) * r.width, y: r.top + ((1 - p.y) / 2) * r.height, visible: p.z > -1 && p.z < 1 };
  }

  render() {
    if (!this.renderer) return;
    this.renderer.render(this.scene, this.camera);
    const place = (el, v) => {
      const s = this.screen(v);
      const r = this.container.getBoundingClientRect();
      el.style.left = `${s.x - r.left}px`;
      el.style.top = `${s.y - r.top}px`;
      el.hidden = !s.visible;
    };
    place(this.peakLabel, this.peak.position);
    for (const l of this.labels) place(l, l.anchor);
  }

  // probe reads the field where a ray through client point (x, y) meets
  // the surface: the value and displacement interpolated across the
  // triangle hit, and its nearest node. null when the ray misses.
  probe(x, y) {
    const r = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((x - r.left) / r.width) * 2 - 1, -((y - r.top) / r.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const hit = ray.intersectObject(this.mesh, false)[0];
    if (!hit) return null;
    const { a, b, c } = hit.face;
    const w = THREE.Triangle.getBarycoord(hit.point, this.at(a), this.at(b), this.at(c), new THREE.Vector3());
    if (!w) return null;
    const ids = [a, b, c];
    const ws = [w.x, w.y, w.z];
    const value = ws.reduce((s, wi, k) => s + wi * this.values[ids[k]], 0);
    const u = [0, 1, 2].map((j) => (this.disp ? ws.reduce((s, wi, k) => s + wi * this.disp[3 * ids[k] + j], 0) : 0));
    const nearest = ids[ws.indexOf(Math.max(...ws))];
    const undeformed = [0, 1, 2].map((j) => ws.reduce((s, wi, k) => s + wi * this.base[3 * ids[k] + j], 0));
    return { side: this.side, value, u, disp: Math.hypot(...u), node: this.data.node_ids[nearest], at: undeformed };
  }

  // screenOf is where an undeformed surface point p is drawn now: found on
  // the nearest surface triangle and moved with it (for tests and links).
  screenOf(p) {
    const q = new THREE.Vector3(...p);
    const tri = new THREE.Triangle();
    const best = { d: Infinity, w: null, ids: null };
    const idx = this.geometry.getIndex();
    const A = new THREE.Vector3(), B = new THREE.Vector3(), C = new THREE.Vector3(), close = new THREE.Vector3();
    for (let t = 0; t < idx.count; t += 3) {
      const ids = [idx.getX(t), idx.getX(t + 1), idx.getX(t + 2)];
      [A, B, C].forEach((v, k) => v.fromArray(this.base, 3 * ids[k]));
      tri.set(A, B, C).closestPointToPoint(q, close);
      const d = close.distanceToSquared(q);
      if (d < best.d) {
        best.d = d;
        best.ids = ids;
        best.w = tri.getBarycoord(close, new THREE.Vector3());
      }
    }
    const ws = [best.w.x, best.w.y, best.w.z];
    const drawn = new THREE.Vector3();
    best.ids.forEach((id, k) => drawn.addScaledVector(this.at(id), ws[k]));
    return this.screen(drawn);
  }

  dispose() {
    this.resize.disconnect();
    this.controls.dispose();
    this.renderer.dispose();
    this.renderer.domElement.remove();
    this.renderer = null;
  }
}

// ---------------------------------------------------------------------------
// The result page.

// defaultScale shows a displacement as a twentieth of the part when the
// true one is smaller, else at true scale.
function defaultScale(data) {
  const d = data.max_displacement ? data.max_displacement.value : 0;
  if (!(d > 0)) return 1;
  const size = Math.hypot(...[0, 1, 2].map((k) => data.bbox_mm.max[k] - data.bbox_mm.min[k]));
  if (d >= 0.02 * size) return 1;
  const s = (0.05 * size) / d;
  const p = 10 ** Math.floor(Math.log10(s));
  return [1, 2, 5, 10].map((m) => m * p).find((x) => x >= s);
}

function drawLegend(el, lo, hi, data, shared) {
  const canvas = h("canvas", { width: 256, height: 1, "aria-hidden": "true" });
  const ctx = canvas.getContext("2d");
  const img = ctx.createImageData(256, 1);
  for (let i = 0; i < 256; i++) {
    const [r, g, b] = viridis(i / 255);
    img.data.set([r * 255, g * 255, b * 255, 255], 4 * i);
  }
  ctx.putImageData(img, 0, 0);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t, i) => {
    const v = lo + t * (hi - lo);
    const cls = i === 0 ? "legend-min" : i === 4 ? "legend-max" : "legend-tick";
    return h("span", { class: cls, dataset: { value: String(v) } }, fmt(v, i === 4 ? 4 : 3));
  });
  el.replaceChildren(
    h("strong", {}, `${fieldLabel(data.field)} (${data.unit})`),
    h("div", {}, canvas, h("div", { class: "ticks" }, ticks)),
    h("span", { class: "muted" }, shared ? "one scale for both results: its top is the larger peak" : "the scale's top is the result's peak"));
  el.dataset.min = String(lo);
  el.dataset.max = String(hi);
  el.dataset.unit = data.unit;
  el.dataset.field = data.field;
  el.setAttribute("aria-label", `colour scale of ${fieldLabel(data.field)} from ${fmt(lo)} to ${fmt(hi)} ${data.unit}`);
}

async function loadField(callId, field) {
  try {
    return { data: await api(`/v1/results/${encodeURIComponent(callId)}/field?name=${field}`) };
  } catch (err) {
    if (notStored(err) || (err instanceof ApiError && (err.status === 404 || err.status === 409))) return { error: err };
    throw err;
  }
}

async function renderResult(project, result) {
  const field = param("field") || "von_mises";
  const compare = param("compare");
  const back = project ? `/sim?project=${encodeURIComponent(project)}` : "/sim";
  const fields = h("fieldset", { role: "radiogroup", "aria-label": "field" }, h("legend", {}, "Field"));
  const slider = h("input", { type: "range", id: "sim-scale", min: "0", max: "10", step: "0.1", value: "1", "aria-label": "deformation scale" });
  const scaleOut = h("output", { for: "sim-scale", id: "sim-scale-value" }, "");
  const compareSel = h("select", { id: "sim-compare", "aria-label": "compare with" }, h("option", { value: "" }, compare ? "stop comparing" : "compare with…"));
  const reset = h("button", { type: "button", id: "sim-reset" }, "Reset view");
  const bar = h("div", { class: "sim-bar" }, fields,
    h("label", { id: "sim-scale-label" }, "Deformation ×", slider, " ", scaleOut), compareSel, reset);
  const views = h("div", { id: "sim-views", class: compare ? "sim-views compare" : "sim-views", dataset: { state: "loading" } });
  const legend = h("div", { id: "sim-legend", class: "sim-legend", role: "img", "aria-label": "colour scale" });
  const probe = h("p", { id: "sim-probe", class: "sim-probe", role: "status", "aria-live": "polite" }, "Hover the part to read the field at a point.");
  const key = h("p", { class: "sim-key muted" },
    h("span", {}, h("i", { style: { background: "#2563eb" } }), "fixture (fixed face, heat sink)"),
    h("span", {}, h("i", { style: { background: "#e11d48" } }), "load"),
    h("span", {}, h("i", { style: { background: "#f97316" } }), "heat source"),
    h("span", {}, h("i", { style: { background: "#ff2d55" } }), "peak"));
  const info = h("p", { id: "sim-info", class: "muted" });
  mount(h("h1", {}, compare ? "Simulation results compared" : "Simulation result"),
    h("p", {}, h("a", { href: back }, "← all FEA results of the project")), bar, views, legend, probe, key, info);

  for (const [name, label] of FIELDS) {
    const radio = h("input", { type: "radio", name: "field", value: name, checked: name === field });
    radio.addEventListener("change", () => {
      setParams({ field: name });
      renderResult(project, result);
    });
    fields.appendChild(h("label", { dataset: { field: name } }, radio, " ", label));
  }
  if (project) {
    api(`/v1/simulation/results?project=${encodeURIComponent(project)}`).then((list) => {
      for (const r of list.results) {
        if (r.call_id !== result) compareSel.appendChild(h("option", { value: r.call_id, selected: r.call_id === compare }, `${r.name} (${r.call_id})`));
      }
    }).catch(() => {});
  }
  compareSel.addEventListener("change", () => {
    setParams({ compare: compareSel.value });
    renderResult(project, result);
  });

  for (const v of window.__sim?.views || []) v.dispose();
  window.__sim = { ready: false, views: [] };
  const ids = compare ? [result, compare] : [result];
  const loaded = await Promise.all(ids.map((id) => loadField(id, field)));
  const sides = ["a", "b"];
  const drawn = [];
  loaded.forEach((res, i) => {
    const id = ids[i];
    const box = h("section", { class: "sim-side", dataset: { side: sides[i], callId: id } });
    views.appendChild(box);
    if (res.error) {
      const msg = res.error.message.replace(/^field not stored: /, "");
      const text = notStored(res.error) ? "Field not stored" : res.error.status === 409 ? "Still running" : "Result not found";
      box.append(h("h2", {}, h("code", {}, id)),
        h("p", { class: "sim-note", role: "status", dataset: { state: notStored(res.error) ? "not-stored" : "unavailable" } }, h("strong", {}, text), ": ", msg));
      if (res.error.status === 409) setTimeout(() => renderResult(project, result), 3000);
      return;
    }
    const d = res.data;
    box.append(h("h2", {}, h("code", {}, id), ` ${d.tool_id} · ${d.quantity} · peak ${fmt(d.max)} ${d.unit}`));
    const viewer = h("div", { class: "viewer" });
    box.appendChild(viewer);
    drawn.push(new SimView(viewer, d, sides[i]));
    for (const lab of fields.querySelectorAll("label")) {
      const avail = d.available_fields.includes(lab.dataset.field);
      lab.querySelector("input").disabled = !avail && lab.dataset.field !== field;
      lab.title = avail ? "" : "not stored in this result";
    }
  });
  window.__sim.views = drawn;
  if (drawn.length === 0) {
    views.dataset.state = "not-stored";
    for (const el of [legend, probe, key, slider.parentElement, reset]) el.hidden = true;
    return;
  }

  // One colour scale for every result drawn.
  const lo = Math.min(...drawn.map((v) => v.data.min));
  const hi = Math.max(...drawn.map((v) => v.data.max));
  for (const v of drawn) v.setRange(lo, hi);
  drawLegend(legend, lo, hi, drawn[0].data, drawn.length > 1);

  // Deformation: the slider's range runs to ten times the default.
  const withDisp = drawn.filter((v) => v.disp);
  const def = withDisp.length ? defaultScale(withDisp[0].data) : 1;
  const asked = Number(param("scale"));
  const want = param("scale") !== "" && Number.isFinite(asked) && asked >= 0 ? asked : def;
  const top = Math.max(10 * def, want);
  Object.assign(slider, { max: String(top), step: String(top / 200) });
  slider.value = String(want);
  const applyScale = (s, write) => {
    scaleOut.textContent = s === 1 ? "1 (true scale)" : fmt(s, 3);
    for (const v of drawn) v.setScale(s);
    if (write) setParams({ scale: s === def ? "" : String(s) });
  };
  if (withDisp.length === 0) {
    slider.disabled = true;
    scaleOut.textContent = "no displacements in this result";
  }
  applyScale(want, false);
  slider.addEventListener("input", () => applyScale(Number(slider.value), false));
  slider.addEventListener("change", () => applyScale(Number(slider.value), true));

  // One camera: moving either view moves the other.
  let syncing = false;
  for (const v of drawn) {
    v.controls.addEventListener("change", () => {
      if (syncing) return;
      syncing = true;
      for (const o of drawn) {
        if (o === v) continue;
        o.camera.position.copy(v.camera.position);
        o.camera.quaternion.copy(v.camera.quaternion);
        o.controls.target.copy(v.controls.target);
        o.moved = v.moved;
        o.controls.update();
      }
      syncing = false;
    });
  }
  reset.addEventListener("click", () => drawn.forEach((v) => {
    v.moved = false;
    v.resetCamera();
  }));

  // The hover probe.
  for (const v of drawn) {
    v.renderer.domElement.addEventListener("pointermove", (e) => {
      const r = v.probe(e.clientX, e.clientY);
      if (!r) return;
      const d = v.data;
      probe.replaceChildren(
        h("strong", {}, `${v.side === "a" ? "" : "right: "}${fieldLabel(d.field)} ${fmt(r.value)} ${d.unit}`),
        v.disp ? ` · displacement ${fmt(r.disp)} mm (${r.u.map((x) => fmt(x, 3)).join(", ")})` : "",
        ` · near node ${r.node} at (${r.at.map((x) => fmt(x, 4)).join(", ")}) mm`);
      Object.assign(probe.dataset, { side: r.side, value: String(r.value), node: String(r.node), disp: String(r.disp),
        ux: String(r.u[0]), uy: String(r.u[1]), uz: String(r.u[2]), x: String(r.at[0]), y: String(r.at[1]), z: String(r.at[2]) });
    });
  }

  const d0 = drawn[0].data;
  info.textContent = `${d0.triangles} of ${d0.surface_triangles} surface triangles drawn (at most ${d0.triangle_cap}): ${d0.detail}. ` +
    `Mesh: ${d0.mesh_nodes} nodes, ${d0.mesh_elements} elements.`;
  window.__sim = {
    ready: true,
    views: drawn,
    // screenOf(p, side) is where undeformed surface point p is drawn, in
    // client pixels: a test moves the real mouse there.
    screenOf: (p, side = "a") => drawn.find((v) => v.side === side).screenOf(p),
  };
  views.dataset.state = "ready";
}

function start() {
  const style = document.createElement("style");
  style.textContent = STYLE;
  document.head.appendChild(style);
  const project = currentProject();
  const result = param("result");
  if (!result) {
    renderList(project);
    return;
  }
  renderResult(project, result).catch(showError);
}

start();
