// /circuits?result=<callId>: the waveforms of one spice.run_simulation
// call, from GET /v1/results/{callId}/waveform. A transient (or DC sweep)
// is one plot per unit against time (or the swept source); an AC sweep is
// its magnitude in dB and its phase in degrees against a log frequency
// axis. Drag across a plot to zoom (every plot follows), double-click or
// "Reset zoom" to see it all. Two cursors, A and B, are put at an x by
// typing it (SPICE notation: 9947, 9.947k, 1meg) or by clicking a plot
// (shift-click for B); the readout table gives each trace's value at
// each, interpolated between the simulated points (linearly in log10(f)
// on a log axis), and B - A. The URL carries the result, the cursors and
// the zoom, so a link lands on the same view. Without ?result= the page
// lists the recent SPICE results to pick from.
import uPlot from "uplot";
import { ApiError, fmt, h, mount, param, region, setParams, showError, watch } from "/assets/app.js";

const COLORS = ["#0b5cad", "#c0392b", "#1f7a3a", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#2c3e50"];
const CURSOR_COLORS = { a: "#d35400", b: "#8e44ad" };

// The page's own layout: the facts list and the plots' captions.
const STYLE = `dl.facts dd { margin: 0; } figure.plot { margin: 1rem 0; } figure.plot figcaption { font-weight: 600; }
#circuit-controls { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }`;

function addStylesheet(href) {
  if (document.querySelector(`link[href="${href}"]`)) return;
  document.head.appendChild(h("link", { rel: "stylesheet", href }));
}

// SI prefixes for reading and printing figures.
const PREFIXES = [
  [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""], [1e-3, "m"], [1e-6, "µ"], [1e-9, "n"], [1e-12, "p"], [1e-15, "f"],
];
const SPICE_SUFFIX = { t: 1e12, g: 1e9, meg: 1e6, k: 1e3, m: 1e-3, u: 1e-6, "µ": 1e-6, n: 1e-9, p: 1e-12, f: 1e-15 };

// siText prints x with an SI prefix and unit: 9947 Hz -> "9.947 kHz".
export function siText(x, unit = "", sig = 4) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (x === 0) return `0 ${unit}`.trim();
  const a = Math.abs(x);
  for (const [f, p] of PREFIXES) {
    if (a >= f * 0.9999999) return `${Number((x / f).toPrecision(sig))} ${p}${unit}`.trim();
  }
  return `${Number(x.toPrecision(sig))} ${unit}`.trim();
}

// parseX reads a figure typed in SPICE notation (case-insensitive suffix,
// "meg" for 1e6, "m" for 1e-3), optionally followed by the axis unit.
// "M" alone is refused: SPICE reads it as milli, most people mean mega.
export function parseX(text, unit) {
  let s = String(text).trim().replace(/\s+/g, "");
  if (unit && s.toLowerCase().endsWith(unit.toLowerCase())) s = s.slice(0, -unit.length);
  const m = s.match(/^([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(meg|[tgkmunpfµ]|M)?$/i);
  if (!m) throw new Error(`"${text}" is not a number: type e.g. 9947, 9.947k, 1meg or 5u`);
  if (m[2] === "M") throw new Error(`"${text}": write meg for 1e6 (SPICE reads M as milli, 1e-3), or m for milli`);
  return Number(m[1]) * (m[2] ? SPICE_SUFFIX[m[2].toLowerCase()] : 1);
}

// valueAt is ys at x, linear between the neighbouring points (in log10(x)
// on a log axis); null outside the sweep or next to a missing value.
export function valueAt(xs, ys, x, log) {
  const n = xs.length;
  if (!n || !Number.isFinite(x) || x < xs[0] || x > xs[n - 1]) return null;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid;
  }
  if (xs[lo] === x) return ys[lo];
  if (xs[hi] === x) return ys[hi];
  const y0 = ys[lo];
  const y1 = ys[hi];
  if (y0 === null || y1 === null) return null;
  const t = log ? (Math.log10(x) - Math.log10(xs[lo])) / (Math.log10(xs[hi]) - Math.log10(xs[lo])) : (x - xs[lo]) / (xs[hi] - xs[lo]);
  return y0 + t * (y1 - y0);
}

mount(h("h1", {}, "Circuit results"));
addStylesheet("/assets/vendor/uplot/uPlot.min.css");
document.head.appendChild(h("style", {}, STYLE));
const resultID = param("result");
if (resultID) showResult(resultID);
else showList();

// showList is the recent SPICE results, newest first.
function showList() {
  const app = document.getElementById("app");
  app.append(h("p", { class: "muted" }, "Pick a SPICE result to plot. Each spice.run_simulation call's result links here with its callId."));
  const list = region("circuits-list");
  watch("/v1/results/waveforms", (data) => {
    if (!data.calls.length) {
      list.replaceChildren(
        h("p", { role: "status" }, "No SPICE results yet: run spice.run_simulation with analysis_type transient, ac or dc; its result's link opens it here."),
      );
      return;
    }
    list.replaceChildren(
      h(
        "table",
        {},
        h("caption", { class: "muted" }, `${data.count} of ${data.total} SPICE results, newest first`),
        h("thead", {}, h("tr", {}, h("th", {}, "Result"), h("th", {}, "Analysis"), h("th", {}, "Vectors"), h("th", {}, "Project"), h("th", {}, "Finished"))),
        h(
          "tbody",
          {},
          data.calls.map((c) =>
            h(
              "tr",
              { dataset: { callId: c.call_id } },
              h("td", {}, h("a", { href: `/circuits?result=${encodeURIComponent(c.call_id)}` }, c.call_id)),
              h("td", {}, c.error ? h("span", { class: "muted" }, c.error) : c.analysis_card || c.analysis),
              h("td", {}, (c.vectors || []).join(", ")),
              h("td", {}, c.project_id ? h("a", { href: `/projects/${encodeURIComponent(c.project_id)}` }, c.project_id) : "—"),
              h("td", {}, new Date(c.closed_at).toLocaleString()),
            ),
          ),
        ),
      ),
    );
  });
}

// The state of one result's view.
const state = { view: null, plots: [], cursors: { a: null, b: null }, syncing: false };

function showResult(id) {
  const app = document.getElementById("app");
  app.append(
    h("p", {}, h("a", { href: "/circuits" }, "← all SPICE results")),
    region("circuit-head"),
  );
  const controls = h(
    "form",
    { id: "circuit-controls", class: "controls", onsubmit: (e) => e.preventDefault() },
    cursorInput("a", "Cursor A"),
    cursorInput("b", "Cursor B"),
    h("button", { type: "button", id: "reset-zoom", onclick: () => resetZoom() }, "Reset zoom"),
    h("span", { id: "cursor-error", role: "alert", class: "error" }),
  );
  app.append(
    controls,
    h("p", { class: "muted" }, "Drag across a plot to zoom, double-click to zoom out. Click a plot to put cursor A there, shift-click for B."),
    region("circuit-plots"),
    region("circuit-readouts"),
  );
  window.addEventListener("resize", () => {
    for (const p of state.plots) p.setSize(plotSize(p.root.parentElement));
  });
  const stop = watch(
    `/v1/results/${encodeURIComponent(id)}/waveform`,
    (view) => {
      stop();
      draw(view);
    },
    {
      everyMs: 3000,
      onError: (err) => {
        showError(err);
        // Still running: keep asking; anything else will not change.
        if (err instanceof ApiError && err.status !== 409 && err.status < 500) stop();
      },
    },
  );
}

function cursorInput(key, label) {
  const input = h("input", {
    id: `cursor-${key}`,
    name: `cursor-${key}`,
    type: "text",
    inputmode: "decimal",
    size: 12,
    placeholder: "e.g. 9.947k",
    value: param(key),
    "aria-describedby": "cursor-error",
  });
  const apply = () => {
    const err = document.getElementById("cursor-error");
    err.textContent = "";
    if (!state.view) return;
    const text = input.value.trim();
    if (text === "") {
      setCursor(key, null);
      return;
    }
    try {
      setCursor(key, parseX(text, state.view.scale.unit));
    } catch (e) {
      err.textContent = e.message;
    }
  };
  input.addEventListener("change", apply);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      apply();
    }
  });
  return h("label", {}, `${label} (${key === "a" ? "click" : "shift-click"}) `, input);
}

// groups are the plots: AC magnitude and phase; otherwise one per unit.
function groups(view) {
  const out = new Map();
  for (const t of view.traces) {
    const key = view.analysis === "ac" ? t.kind : t.unit || "value";
    if (!out.has(key)) out.set(key, []);
    out.get(key).push(t);
  }
  return [...out.entries()].map(([key, traces]) => ({ key, traces, unit: traces[0].unit }));
}

function title(view, g) {
  if (view.analysis === "ac") return g.key === "magnitude" ? "Magnitude (dB)" : "Phase (degrees)";
  const what = { V: "Voltage", A: "Current" }[g.unit] || "Value";
  return g.unit ? `${what} (${g.unit})` : what;
}

function plotSize(el) {
  return { width: Math.max(320, (el && el.clientWidth) || 800), height: 260 };
}

function draw(view) {
  state.view = view;
  const head = region("circuit-head");
  head.replaceChildren(
    ...[h(
      "dl",
      { class: "facts", style: { display: "grid", gridTemplateColumns: "max-content 1fr", gap: ".15rem 1rem", margin: "0 0 1rem" } },
      h("dt", {}, "Call"),
      h("dd", { id: "result-call" }, view.call_id),
      h("dt", {}, "Analysis"),
      h("dd", { id: "result-analysis", dataset: { analysis: view.analysis } }, `${view.analysis_card}${view.plotname ? ` — ${view.plotname}` : ""}`),
      h("dt", {}, "Points"),
      h("dd", { id: "result-points", dataset: { points: view.points } }, view.decimation),
    ),
    view.converged ? null : h("p", { role: "alert", class: "error" }, "ngspice did not converge: ", (view.log || []).join("; ")),
    ].filter(Boolean),
  );
  const holder = region("circuit-plots");
  holder.replaceChildren();
  for (const p of state.plots) p.destroy();
  state.plots = [];
  const xs = view.scale.values;
  const xunit = view.scale.unit;
  const zoom = [Number(param("xmin")), Number(param("xmax"))];
  for (const [gi, g] of groups(view).entries()) {
    const box = h("figure", { class: "plot", dataset: { plot: g.key }, role: "img", "aria-label": `${title(view, g)} against ${view.scale.name}` });
    box.append(h("figcaption", {}, title(view, g)));
    holder.append(box);
    const series = [
      { label: view.scale.name, value: (u, v) => siText(v, xunit) },
      ...g.traces.map((t, i) => ({
        label: t.name,
        stroke: COLORS[(i + gi * 2) % COLORS.length],
        width: 1.5,
        spanGaps: false,
        value: (u, v) => (v === null || v === undefined ? "—" : `${fmt(v)} ${t.unit || ""}`),
      })),
    ];
    const opts = {
      ...plotSize(holder),
      series,
      scales: { x: { time: false, distr: view.scale.log ? 3 : 1 } },
      axes: [
        { label: `${view.scale.name}${xunit ? ` (${xunit})` : ""}`, values: (u, splits) => splits.map((v) => (v === null ? "" : siText(v, xunit, 3))) },
        { label: g.unit || "", values: (u, splits) => splits.map((v) => (v === null ? "" : fmt(v, 3))) },
      ],
      cursor: { sync: { key: "circuits", setSeries: true }, drag: { x: true, y: false } },
      hooks: {
        setScale: [
          (u, key) => {
            if (key !== "x") return;
            markRange(u);
            followZoom(u);
          },
        ],
        draw: [(u) => drawCursors(u)],
      },
    };
    const data = [xs, ...g.traces.map((t) => t.values)];
    const u = new uPlot(opts, data, box);
    clickToPlace(u);
    markRange(u);
    state.plots.push(u);
  }
  if (Number.isFinite(zoom[0]) && Number.isFinite(zoom[1]) && zoom[1] > zoom[0] && param("xmin") !== "") {
    state.plots[0]?.setScale("x", { min: zoom[0], max: zoom[1] });
  }
  for (const key of ["a", "b"]) {
    const text = param(key);
    if (text === "") continue;
    try {
      setCursor(key, parseX(text, xunit), { keepText: true });
    } catch (e) {
      document.getElementById("cursor-error").textContent = e.message;
    }
  }
  readouts();
  holder.dataset.ready = "true";
}

// markRange writes a plot's x range on its figure (data-xmin, data-xmax),
// where a test or a person's tools can read it.
function markRange(u) {
  const fig = u.root.parentElement;
  if (!fig || u.scales.x.min === null || u.scales.x.min === undefined) return;
  fig.dataset.xmin = String(u.scales.x.min);
  fig.dataset.xmax = String(u.scales.x.max);
}

// followZoom gives every plot the zoomed plot's x range, and keeps it in
// the URL.
function followZoom(src) {
  if (state.syncing) return;
  state.syncing = true;
  const { min, max } = src.scales.x;
  for (const p of state.plots) if (p !== src) p.setScale("x", { min, max });
  state.syncing = false;
  const xs = state.view.scale.values;
  const whole = min <= xs[0] && max >= xs[xs.length - 1];
  setParams({ xmin: whole ? "" : String(min), xmax: whole ? "" : String(max) });
}

function resetZoom() {
  if (!state.view || !state.plots.length) return;
  const xs = state.view.scale.values;
  state.plots[0].setScale("x", { min: xs[0], max: xs[xs.length - 1] });
}

// clickToPlace puts cursor A (shift: B) where a plot is clicked, when the
// click was not the end of a drag (a zoom).
function clickToPlace(u) {
  let down = null;
  u.over.addEventListener("mousedown", (e) => {
    down = [e.clientX, e.clientY];
  });
  u.over.addEventListener("click", (e) => {
    if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 3) return;
    const x = u.posToVal(e.offsetX, "x");
    setCursor(e.shiftKey ? "b" : "a", x);
  });
}

// setCursor places cursor key at x (null removes it), writes it into its
// input and the URL, and redraws the lines and readouts.
function setCursor(key, x, { keepText = false } = {}) {
  const xs = state.view.scale.values;
  if (x !== null && (x < xs[0] || x > xs[xs.length - 1])) {
    document.getElementById("cursor-error").textContent =
      `${siText(x, state.view.scale.unit)} is outside the sweep (${siText(xs[0], state.view.scale.unit)} to ${siText(xs[xs.length - 1], state.view.scale.unit)})`;
    return;
  }
  state.cursors[key] = x;
  const input = document.getElementById(`cursor-${key}`);
  if (!keepText && input && document.activeElement !== input) input.value = x === null ? "" : String(Number(x.toPrecision(6)));
  setParams({ [key]: x === null ? "" : String(Number(x.toPrecision(6))) });
  for (const p of state.plots) {
    p.redraw(false);
    if (x !== null && key === "a") {
      const left = p.valToPos(x, "x");
      if (left >= 0 && left <= p.over.clientWidth) p.setCursor({ left, top: p.over.clientHeight / 2 }, false);
    }
  }
  readouts();
}

// drawCursors draws cursors A and B as labelled vertical lines.
function drawCursors(u) {
  const { ctx, bbox } = u;
  for (const key of ["a", "b"]) {
    const x = state.cursors[key];
    if (x === null || x === undefined) continue;
    const px = u.valToPos(x, "x", true);
    if (px < bbox.left || px > bbox.left + bbox.width) continue;
    ctx.save();
    ctx.strokeStyle = CURSOR_COLORS[key];
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.setLineDash([5 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(px, bbox.top);
    ctx.lineTo(px, bbox.top + bbox.height);
    ctx.stroke();
    ctx.fillStyle = CURSOR_COLORS[key];
    ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    ctx.fillText(key.toUpperCase(), px + 4 * devicePixelRatio, bbox.top + 14 * devicePixelRatio);
    ctx.restore();
  }
}

// readouts is the table of each trace's value at cursors A and B.
function readouts() {
  const view = state.view;
  const out = region("circuit-readouts");
  const { a, b } = state.cursors;
  const xs = view.scale.values;
  const unit = view.scale.unit;
  if (a === null && b === null) {
    out.replaceChildren(h("p", { role: "status", class: "muted" }, "No cursor placed: type an x into Cursor A or B, or click a plot."));
    return;
  }
  const cell = (key, t, v) =>
    h("td", { class: "num", dataset: { cursor: key, trace: t.name, value: v === null ? "" : String(v) } }, v === null ? "—" : `${fmt(v)} ${t.unit || ""}`);
  out.replaceChildren(
    h(
      "table",
      { id: "readouts", "aria-live": "polite" },
      h("caption", { class: "muted" }, "Values at the cursors, interpolated between simulated points", view.scale.log ? " (linearly in log frequency)" : ""),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", {}, "Trace"),
          h("th", { class: "num", dataset: { cursor: "a", x: a ?? "" } }, `A = ${siText(a, unit)}`),
          h("th", { class: "num", dataset: { cursor: "b", x: b ?? "" } }, `B = ${siText(b, unit)}`),
          h("th", { class: "num" }, `B − A${a !== null && b !== null ? ` (Δ ${siText(b - a, unit)})` : ""}`),
        ),
      ),
      h(
        "tbody",
        {},
        view.traces.map((t) => {
          const va = a === null ? null : valueAt(xs, t.values, a, view.scale.log);
          const vb = b === null ? null : valueAt(xs, t.values, b, view.scale.log);
          const d = va === null || vb === null ? null : vb - va;
          return h("tr", { dataset: { trace: t.name } }, h("th", { scope: "row" }, t.name), cell("a", t, va), cell("b", t, vb), cell("delta", t, d));
        }),
      ),
    ),
  );
}
