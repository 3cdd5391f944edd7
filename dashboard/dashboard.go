// Package dashboard is MetaForge's web app, served by metaforge serve at /
// from files embedded in the binary: one page per route of the table
// below, sharing a navigation bar, a stylesheet and app.js (the REST
// client, live updates by ETag polling, state kept in the URL). It reads
// the REST routes under /v1 that the other packages serve; it holds no
// state and reaches neither the twin nor Temporal itself.
//
// Third-party libraries (three.js for 3D, uPlot for plots) are copied from
// the versions dashboard/vendor/package-lock.json pins into assets/vendor
// by dashboard/vendor/update.sh and committed, so nothing is fetched at run
// time and no front-end build runs.
package dashboard

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed assets shell.html
var files embed.FS

// A Route is one page of the app: the path it is served at (a
// net/http pattern, without the method), its title, and the ES module
// under assets/pages that draws it.
type Route struct {
	Path   string
	Title  string
	Script string
	// Nav is the label in the navigation bar; empty for pages reached
	// from another (a run, a session, a project).
	Nav string
}

// Routes is the app's route table. Result links (mcpserver/links.go) are
// checked against it, so a link never names a page that is not here.
// /approvals, /runs, /changes, /sessions and /knowledge are served by
// their own packages (approvals, runs, ledger, knowledge) and carry the
// same navigation bar.
var Routes = []Route{
	{Path: "/{$}", Title: "Projects", Script: "home.js", Nav: "Projects"},
	{Path: "/projects/{id}", Title: "Project", Script: "project.js"},
	{Path: "/requirements", Title: "Requirements", Script: "requirements.js", Nav: "Requirements"},
	{Path: "/bom", Title: "Bill of materials", Script: "bom.js", Nav: "BOM"},
	{Path: "/twin", Title: "Twin", Script: "twin.js", Nav: "Twin"},
	{Path: "/sim", Title: "Simulation results", Script: "sim.js", Nav: "Simulation"},
	{Path: "/circuits", Title: "Circuit results", Script: "circuits.js", Nav: "Circuits"},
	{Path: "/runs/{id}", Title: "Run", Script: "run.js"},
	{Path: "/releases", Title: "Releases", Script: "releases.js", Nav: "Releases"},
	{Path: "/sessions/{id}", Title: "Session", Script: "session.js"},
}

// Handler serves the app's pages and assets.
type Handler struct{}

// Register adds each page and the assets to mux.
func (Handler) Register(mux *http.ServeMux) {
	for _, r := range Routes {
		page := render(r)
		mux.HandleFunc("GET "+r.Path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(page)
		})
	}
	assets, _ := fs.Sub(files, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", noStore(http.FileServerFS(assets))))
}

// Pages are the routes above and the assets, served without auth: a page
// holds no data, and the REST routes it calls are behind the API's auth.
func (Handler) Pages() []string {
	out := []string{"/assets/"}
	for _, r := range Routes {
		out = append(out, r.Path)
	}
	return out
}

// noStore: the assets change with the binary, and serve's port is
// reused by the next build; never cached.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

var shell = template.Must(template.ParseFS(files, "shell.html"))

// render is r's page: the shell with its title and script.
func render(r Route) []byte {
	var b bytes.Buffer
	if err := shell.Execute(&b, map[string]string{"Title": r.Title, "Script": "/assets/pages/" + r.Script}); err != nil {
		panic("dashboard: the shell template: " + err.Error())
	}
	return b.Bytes()
}

// PathFor is the path of route pattern p with its {id} wildcard filled,
// for links; "" if p is not a route of the table.
func PathFor(p, id string) string {
	for _, r := range Routes {
		if r.Path == p {
			return strings.Replace(strings.TrimSuffix(p, "{$}"), "{id}", id, 1)
		}
	}
	return ""
}
