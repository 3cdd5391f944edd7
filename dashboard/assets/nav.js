// The navigation bar every page of the dashboard carries, the app's own
// pages and the ones other packages serve (/approvals, /runs, /changes,
// /sessions, /knowledge) alike. The project chosen on one page is carried
// to the others: taken from ?project= when the page has one, else the
// last one chosen (localStorage), and put on the links of project pages.
const LINKS = [
  ["/", "Projects"],
  ["/requirements", "Requirements", true],
  ["/bom", "BOM", true],
  ["/twin", "Twin", true],
  ["/sim", "Simulation", true],
  ["/circuits", "Circuits"],
  ["/runs", "Runs"],
  ["/approvals", "Approvals"],
  ["/changes", "Changes"],
  ["/releases", "Releases", true],
  ["/sessions", "Sessions"],
  ["/knowledge", "Knowledge"],
];

const PROJECT_KEY = "metaforge.project";

export function currentProject() {
  const fromURL = new URLSearchParams(location.search).get("project");
  if (fromURL) {
    localStorage.setItem(PROJECT_KEY, fromURL);
    return fromURL;
  }
  return localStorage.getItem(PROJECT_KEY) || "";
}

const STYLE = `
.mf-nav { display: flex; flex-wrap: wrap; gap: .2rem 1rem; align-items: baseline;
  padding: .6rem 1rem; margin: -2rem -2rem 1.5rem; background: #1d2127; font: 14px/1.4 system-ui, sans-serif; }
.mf-nav a { color: #c9d1d9; text-decoration: none; }
.mf-nav a:hover { color: #fff; text-decoration: underline; }
.mf-nav a[aria-current="page"] { color: #fff; font-weight: 600; }
.mf-nav .mf-brand { color: #fff; font-weight: 700; margin-right: .5rem; }
.mf-nav .mf-project { margin-left: auto; color: #8b949e; }
`;

export function renderNav() {
  if (document.querySelector("nav.mf-nav")) return;
  const style = document.createElement("style");
  style.textContent = STYLE;
  document.head.appendChild(style);
  const nav = document.createElement("nav");
  nav.className = "mf-nav";
  nav.setAttribute("aria-label", "MetaForge");
  const brand = document.createElement("a");
  brand.href = "/";
  brand.className = "mf-brand";
  brand.textContent = "MetaForge";
  nav.appendChild(brand);
  const project = currentProject();
  for (const [path, label, scoped] of LINKS) {
    const a = document.createElement("a");
    a.href = scoped && project ? `${path}?project=${encodeURIComponent(project)}` : path;
    a.textContent = label;
    const here = location.pathname;
    if (here === path || (path !== "/" && here.startsWith(path + "/"))) a.setAttribute("aria-current", "page");
    nav.appendChild(a);
  }
  if (project) {
    const p = document.createElement("a");
    p.className = "mf-project";
    p.href = `/projects/${encodeURIComponent(project)}`;
    p.textContent = `project ${project}`;
    nav.appendChild(p);
  }
  document.body.prepend(nav);
}

renderNav();
