package dashboard

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// Every route serves the shell naming a script that is embedded, and the
// assets are served.
func TestEveryRouteServesItsPage(t *testing.T) {
	mux := http.NewServeMux()
	Handler{}.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, r := range Routes {
		path := strings.NewReplacer("{$}", "", "{id}", "x-1").Replace(r.Path)
		code, body := get(path)
		if code != http.StatusOK || !strings.Contains(body, "/assets/pages/"+r.Script) || !strings.Contains(body, "<title>MetaForge · "+r.Title) {
			t.Errorf("GET %s: %d, page without its script %s or title %q", path, code, r.Script, r.Title)
		}
		if code, _ := get("/assets/pages/" + r.Script); code != http.StatusOK {
			t.Errorf("route %s: its script assets/pages/%s is not embedded (GET: %d)", r.Path, r.Script, code)
		}
	}
	for _, a := range []string{"/assets/app.js", "/assets/nav.js", "/assets/app.css", "/assets/vendor/three/three.module.js", "/assets/vendor/uplot/uPlot.esm.js"} {
		if code, _ := get(a); code != http.StatusOK {
			t.Errorf("GET %s: %d", a, code)
		}
	}
	if code, _ := get("/nowhere"); code != http.StatusNotFound {
		t.Errorf("GET /nowhere: %d, want 404 (only the route table's pages are served)", code)
	}
}

// The committed vendor files are the ones dashboard/vendor/update.sh
// copied from the versions package-lock.json pins: each file's hash is in
// VERSIONS, and each version is the lockfile's.
func TestVendoredFilesAreTheLockedVersions(t *testing.T) {
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	b, err := os.ReadFile("vendor/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	f, err := files.Open("assets/vendor/VERSIONS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		var pkg, version, file, sum string
		if parts := strings.Fields(line); len(parts) == 4 {
			pkg, version, file, sum = parts[0], parts[1], parts[2], parts[3]
		} else {
			t.Fatalf("VERSIONS line %q: want package version file sha256", line)
		}
		if got := lock.Packages["node_modules/"+pkg].Version; got != version {
			t.Errorf("%s: VERSIONS says %s %s, package-lock.json pins %q; run dashboard/vendor/update.sh", file, pkg, version, got)
		}
		data, err := files.ReadFile("assets/vendor/" + file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		h := sha256.Sum256(data)
		if hex.EncodeToString(h[:]) != sum {
			t.Errorf("assets/vendor/%s differs from what update.sh copied from %s %s; run dashboard/vendor/update.sh", file, pkg, version)
		}
		n++
	}
	if n == 0 {
		t.Fatal("VERSIONS lists no files")
	}
}
