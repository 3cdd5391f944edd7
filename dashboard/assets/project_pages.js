// What the project pages (/, /projects/{id}, /requirements, /bom,
// /releases, /sessions/{id}) share: their stylesheet, and the project a
// project-scoped page (/requirements, /bom, /releases) shows:
// its ?project=, checked against GET /v1/projects. When the address names
// none, or one that does not exist, the page shows a picker of the
// projects instead (each a link to the same page with ?project=), or says
// how to make one when there are none.
import { api, h } from "/assets/app.js";

const PROJECT_KEY = "metaforge.project";

if (!document.querySelector('link[href="/assets/project_pages.css"]')) {
  document.head.append(h("link", { rel: "stylesheet", href: "/assets/project_pages.css" }));
}

// fill replaces el's children with the given ones, flattening lists and
// leaving out null and false (the DOM's replaceChildren would print them).
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

// projectScope resolves the page's project. It returns the project
// ({project_id, name, ...}) or null, having drawn the picker into el.
export async function projectScope(el, what) {
  const wanted = new URLSearchParams(location.search).get("project") || "";
  let list;
  try {
    list = (await api("/v1/projects")).projects || [];
  } catch (err) {
    fill(el, h("p", { role: "alert", class: "error" }, `Could not list the projects: ${err.message}`));
    return null;
  }
  const found = list.find((p) => p.project_id === wanted);
  if (found) {
    localStorage.setItem(PROJECT_KEY, found.project_id);
    return found;
  }
  const remembered = localStorage.getItem(PROJECT_KEY) || "";
  const intro = wanted
    ? h("p", { role: "alert", class: "error" }, `There is no project “${wanted}”. Pick one of the projects below.`)
    : h("p", { role: "status" }, `Pick the project whose ${what} to show (the address keeps it as ?project=).`);
  if (list.length === 0) {
    fill(el, 
      intro,
      h("p", { role: "status", class: "empty" }, "No projects yet: create one with the MCP tool project.create, then come back here."),
    );
    return null;
  }
  fill(el, 
    intro,
    h(
      "ul",
      { class: "project-picker", "aria-label": "Projects" },
      list.map((p) => {
        const url = new URL(location.href);
        url.searchParams.set("project", p.project_id);
        return h(
          "li",
          { dataset: { projectId: p.project_id } },
          h("a", { href: url.pathname + url.search }, p.name),
          " ",
          h("code", {}, p.project_id),
          p.project_id === remembered ? h("span", { class: "muted" }, " (last opened)") : null,
        );
      }),
    ),
  );
  return null;
}
