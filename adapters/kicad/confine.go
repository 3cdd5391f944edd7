package kicad

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// KiCad opens more than the design file a tool names: the project files
// beside it (<name>.kicad_pro, .kicad_prl, a board's .kicad_dru rules), the
// library tables there (fp-lib-table, sym-lib-table) and the libraries they
// list, the drawing sheet the project names, a schematic's sheet files and
// its symbols' simulation libraries. screenDesign checks each of them the
// way a file argument is checked, before KiCad runs: a file beside the
// design may not be a link out of the roots, and a path the project names
// may not lead out of them. A library that does not exist inside the roots
// is let be: KiCad only fails to load it.

// companions are the files KiCad reads beside a design named <stem>.<ext>.
func companions(stem string) []string {
	return []string{stem + ".kicad_pro", stem + ".kicad_prl", stem + ".kicad_dru", "fp-lib-table", "sym-lib-table"}
}

// kicadLibVar is an environment variable naming KiCad's own installed
// libraries, which a project may use.
var kicadLibVar = regexp.MustCompile(`^KICAD\d*_(SYMBOL|FOOTPRINT|3DMODEL|TEMPLATE)_DIR$`)

// pathVar finds ${VAR} and $(VAR) in a KiCad path.
var pathVar = regexp.MustCompile(`\$\{([^}]*)\}|\$\(([^)]*)\)`)

// screenDesign checks what KiCad reads besides design (resolved): its
// companions and, for a schematic, its hierarchy.
func (a *Adapter) screenDesign(design string, schematic bool) error {
	dir := filepath.Dir(design)
	stem := strings.TrimSuffix(filepath.Base(design), filepath.Ext(design))
	for _, name := range companions(stem) {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		what := name + " beside " + filepath.Base(design)
		real, err := a.ws.ResolveRead(what, p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(name, "lib-table"):
			err = a.screenLibTable(real, dir, what)
		case strings.HasSuffix(name, ".kicad_pro"):
			err = a.screenProject(real, dir, what)
		}
		if err != nil {
			return err
		}
	}
	if schematic {
		return a.screenSheets(design, dir, map[string]bool{})
	}
	return nil
}

// screenLibTable checks every library a table lists.
func (a *Adapter) screenLibTable(table, dir, what string) error {
	text, err := os.ReadFile(table)
	if err != nil {
		return protocol.Invalid("%s cannot be read: %v", what, err)
	}
	root, err := parseSexpr(string(text))
	if err != nil {
		return protocol.Invalid("%s is not a KiCad library table: %v", what, err)
	}
	for _, lib := range root.children("lib") {
		uri := childArg(lib, "uri")
		if uri == "" {
			continue
		}
		if err := a.screenPath(fmt.Sprintf("%s: library %s's uri", what, childArg(lib, "name")), uri, dir); err != nil {
			return err
		}
	}
	return nil
}

// screenProject checks the drawing sheets a project file names.
func (a *Adapter) screenProject(project, dir, what string) error {
	text, err := os.ReadFile(project)
	if err != nil {
		return protocol.Invalid("%s cannot be read: %v", what, err)
	}
	var pro map[string]json.RawMessage
	if json.Unmarshal(text, &pro) != nil {
		return nil // not JSON: KiCad reads nothing from it either
	}
	for _, section := range []string{"pcbnew", "schematic"} {
		var s struct {
			Sheet string `json:"page_layout_descr_file"`
		}
		if raw, ok := pro[section]; ok && json.Unmarshal(raw, &s) == nil && s.Sheet != "" {
			if err := a.screenPath(what+": "+section+".page_layout_descr_file", s.Sheet, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// screenSheets checks the sheet files a schematic places, and its
// symbols' simulation libraries, then the sheets' own in turn.
func (a *Adapter) screenSheets(sch, dir string, seen map[string]bool) error {
	if seen[sch] || len(seen) > maxSheetInstances {
		return nil
	}
	seen[sch] = true
	text, err := os.ReadFile(sch)
	if err != nil {
		return protocol.Invalid("schematic %s cannot be read: %v", sch, err)
	}
	root, err := parseSexpr(string(text))
	if err != nil {
		return nil // KiCad will refuse it; nothing it names is read
	}
	var walkErr error
	var visit func(n *node)
	visit = func(n *node) {
		if walkErr != nil || !n.isList {
			return
		}
		if n.head() == "property" {
			switch name := n.arg(0); name {
			case "Sheetfile", "Sheet file":
				walkErr = a.screenSheet(sch, dir, n.arg(1), seen)
			case "Sim.Library", "Spice_Lib_File":
				if lib := strings.TrimSpace(n.arg(1)); lib != "" {
					walkErr = a.screenPath(fmt.Sprintf("schematic %s: %s", sch, name), lib, dir)
				}
			}
			return
		}
		for _, c := range n.list {
			visit(c)
		}
	}
	visit(root)
	return walkErr
}

// screenSheet checks one sheet file, relative to the root's folder as
// KiCad finds it, and what it names.
func (a *Adapter) screenSheet(parent, dir, file string, seen map[string]bool) error {
	if strings.TrimSpace(file) == "" {
		return nil
	}
	what := fmt.Sprintf("schematic %s: sheet file", parent)
	if err := a.screenPath(what, file, dir); err != nil {
		return err
	}
	p := file
	if !filepath.IsAbs(p) {
		p = dir + string(filepath.Separator) + p
	}
	real, err := a.ws.ResolveRead(what, p)
	if err != nil {
		return nil // missing inside the roots: KiCad reports it
	}
	return a.screenSheets(real, dir, seen)
}

// screenPath checks a path a project names: ${KIPRJMOD} is the design's
// folder, KiCad's own library variables name its installed libraries (not
// followed with ..), and a relative path is taken against the folder. It
// must not lead outside the read roots; no URI, ~ or other variable.
func (a *Adapter) screenPath(what, path, dir string) error {
	if strings.Contains(path, "://") {
		return protocol.Invalid("%s %q is a URI: give a path inside the allowed roots", what, path)
	}
	if strings.HasPrefix(path, "~") {
		return protocol.Invalid("%s %q starts from ~: give a path inside the allowed roots, or one from ${KIPRJMOD}", what, path)
	}
	system := false
	var bad string
	expanded := pathVar.ReplaceAllStringFunc(path, func(v string) string {
		name := strings.Trim(v, "${}()")
		switch {
		case name == "KIPRJMOD":
			return dir
		case kicadLibVar.MatchString(name):
			system = true
			return "/kicad-libraries"
		}
		bad = name
		return v
	})
	if bad == "" && strings.Contains(expanded, "$") {
		bad = expanded[strings.Index(expanded, "$"):] // KiCad expands $VAR too
	}
	if bad != "" {
		return protocol.Invalid("%s %q names the environment variable %s, which the worker's environment decides: use ${KIPRJMOD} or a path inside the allowed roots", what, path, bad)
	}
	if system {
		if slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
			return protocol.Invalid("%s %q climbs out of KiCad's libraries with ..", what, path)
		}
		return nil // KiCad's installed libraries
	}
	if !filepath.IsAbs(expanded) {
		// Joined by hand: .. is for the links before it to decide.
		expanded = dir + string(filepath.Separator) + expanded
	}
	if !a.ws.Inside(what, expanded) {
		return protocol.Invalid("%s %q is outside the allowed roots for reading: %s", what, path, strings.Join(a.ws.Roots(), ", "))
	}
	return nil
}
