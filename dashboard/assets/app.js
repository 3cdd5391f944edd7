// What the dashboard's pages share: the REST client (with the operator
// token serve printed, kept for this tab by /operator-token.js), live
// updates by polling with ETags (a poll of an unchanged object is a 304
// and redraws nothing), the page state kept in the URL (so a link lands
// where it says and a reload keeps the view), and a small DOM builder.
//
// Pages redraw only the regions that show data, never the inputs a person
// is typing in.
export { currentProject } from "/assets/nav.js";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function authHeaders() {
  const h = {};
  const token = typeof operatorToken === "function" ? operatorToken() : "";
  if (token) h.Authorization = "Bearer " + token;
  const key = localStorage.getItem("metaforge.apikey");
  if (key) h["X-API-Key"] = key;
  return h;
}

// api fetches a REST route and returns its JSON; a non-2xx answer throws
// an ApiError carrying the route's own message ({"error": ...}).
export async function api(path, { method = "GET", body } = {}) {
  const headers = authHeaders();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text };
  }
  if (!resp.ok) throw new ApiError(resp.status, (data && data.error) || `${method} ${path}: HTTP ${resp.status}`);
  return data;
}

// apiBinary fetches a route answering application/octet-stream.
export async function apiBinary(path) {
  const resp = await fetch(path, { headers: authHeaders() });
  if (!resp.ok) {
    let msg = `GET ${path}: HTTP ${resp.status}`;
    try {
      msg = (await resp.json()).error || msg;
    } catch {}
    throw new ApiError(resp.status, msg);
  }
  return resp.arrayBuffer();
}

// watch polls path every everyMs while the tab is visible and calls
// onData(data) when the answer changes (first answer included); onError
// gets an ApiError or network error. Returns a function that stops it.
export function watch(path, onData, { everyMs = 2000, onError = showError } = {}) {
  let etag = "";
  let stopped = false;
  let timer = 0;
  async function poll() {
    if (stopped) return;
    if (!document.hidden) {
      try {
        const headers = authHeaders();
        if (etag) headers["If-None-Match"] = etag;
        const resp = await fetch(path, { headers });
        if (resp.status !== 304) {
          const data = await resp.json().catch(() => null);
          if (!resp.ok) throw new ApiError(resp.status, (data && data.error) || `GET ${path}: HTTP ${resp.status}`);
          etag = resp.headers.get("ETag") || "";
          clearError();
          onData(data);
        }
      } catch (err) {
        onError(err);
      }
    }
    if (!stopped) timer = setTimeout(poll, everyMs);
  }
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// param is the page's query parameter name ("" when absent).
export function param(name) {
  return new URLSearchParams(location.search).get(name) || "";
}

// setParams writes page state into the address (replaceState: no new
// history entry per click); an empty value removes the parameter.
export function setParams(values) {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(values)) {
    if (v === "" || v === null || v === undefined) url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  history.replaceState(null, "", url.pathname + url.search + url.hash);
}

// pathID is the {id} of a /kind/{id} page.
export function pathID() {
  return decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
}

// h builds an element: h("a", {href: "/"}, "text", child...). Props
// starting with "on" are listeners; class, dataset and style are set as
// such; null and false children are skipped.
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// mount replaces the page's content (the <main id="app">).
export function mount(...nodes) {
  const app = document.getElementById("app");
  app.replaceChildren(...nodes);
  return app;
}

// region returns the element with id, created empty on first use: pages
// redraw regions, leaving the rest (inputs) alone.
export function region(id, parent = document.getElementById("app")) {
  let el = document.getElementById(id);
  if (!el) {
    el = h("div", { id });
    parent.appendChild(el);
  }
  return el;
}

// fmt prints a number with sig significant figures (engineering results
// are read to 3 or 4), keeping integers whole.
export function fmt(x, sig = 4) {
  if (typeof x !== "number" || !Number.isFinite(x)) return x === null || x === undefined ? "—" : String(x);
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  return Number(x.toPrecision(sig)).toString();
}

// showError shows err in the page's error bar (role=alert).
export function showError(err) {
  let bar = document.getElementById("mf-error");
  if (!bar) {
    bar = h("p", { id: "mf-error", role: "alert", class: "error" });
    document.getElementById("app").prepend(bar);
  }
  bar.textContent = err && err.message ? err.message : String(err);
  bar.hidden = false;
}

export function clearError() {
  const bar = document.getElementById("mf-error");
  if (bar) bar.hidden = true;
}
