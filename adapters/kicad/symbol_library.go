package kicad

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// KiCad's installed symbol libraries (Debian's kicad-symbols): one
// <Library>.kicad_sym per library, each a list of symbols. The schematic
// generator copies the symbols it places from them, since a KiCad 6
// schematic carries its own copy of every symbol it uses (lib_symbols).

// DefaultSymbolDir is where Debian's kicad-symbols installs the libraries.
const DefaultSymbolDir = "/usr/share/kicad/symbols"

// SymbolDirEnv is KiCad 6's own variable naming the symbol library folder;
// it overrides DefaultSymbolDir here too.
const SymbolDirEnv = "KICAD6_SYMBOL_DIR"

const installSymbols = "apt-get install kicad-symbols"

func (a *Adapter) symbolDir() string {
	if a.SymbolDir != "" {
		return a.SymbolDir
	}
	if d := os.Getenv(SymbolDirEnv); d != "" {
		return d
	}
	return DefaultSymbolDir
}

// symbolLibrary is one parsed .kicad_sym.
type symbolLibrary struct {
	name, path string
	symbols    map[string]*node
	modTime    time.Time
	size       int64
}

// libraryCache keeps parsed libraries between calls: Device.kicad_sym is
// 2 MB of text, parsed once unless the file changes.
var libraryCache = struct {
	sync.Mutex
	libs map[string]*symbolLibrary
}{libs: map[string]*symbolLibrary{}}

// libraryName is the part of a lib id before the colon: a file name stem.
var libraryName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// loadSymbolLibrary reads the library named name from dir (parsed once).
// An unknown library is refused with the libraries whose names are close.
func loadSymbolLibrary(dir, name string) (*symbolLibrary, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, protocol.Unavailable("KiCad's symbol libraries are not installed at %s: %s (or set %s to the folder of the .kicad_sym files)", dir, installSymbols, SymbolDirEnv)
	}
	if !libraryName.MatchString(name) {
		return nil, protocol.Invalid("symbol library %q is not a library name (letters, digits, _ . + -), as in Device:R", name)
	}
	path := filepath.Join(dir, name+".kicad_sym")
	st, err := os.Stat(path)
	if err != nil {
		return nil, protocol.Invalid("there is no symbol library %s in %s%s", name, dir, suggest(libraryNames(dir), name))
	}
	libraryCache.Lock()
	defer libraryCache.Unlock()
	if lib, ok := libraryCache.libs[path]; ok && lib.modTime.Equal(st.ModTime()) && lib.size == st.Size() {
		return lib, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, protocol.Unavailable("symbol library %s cannot be read: %v", path, err)
	}
	root, err := parseSexpr(string(text))
	if err == nil && root.head() != "kicad_symbol_lib" {
		err = fmt.Errorf("it starts with (%s, not (kicad_symbol_lib", root.head())
	}
	if err != nil {
		return nil, protocol.Unavailable("symbol library %s is not a KiCad 6 symbol library: %v; reinstall it (%s)", path, err, installSymbols)
	}
	lib := &symbolLibrary{name: name, path: path, symbols: map[string]*node{}, modTime: st.ModTime(), size: st.Size()}
	for _, s := range root.children("symbol") {
		lib.symbols[s.arg(0)] = s
	}
	libraryCache.libs[path] = lib
	return lib, nil
}

// libraryNames lists the libraries installed in dir.
func libraryNames(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.kicad_sym"))
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".kicad_sym")
	}
	return names
}

// inheritedWhenEmpty are the fields a derived symbol takes from its parent
// when it leaves them empty (LIB_SYMBOL::Flatten).
var inheritedWhenEmpty = map[string]bool{
	"Reference": true, "Value": true, "Footprint": true, "Datasheet": true,
	"ki_keywords": true, "ki_description": true, "ki_fp_filters": true,
}

// flatSymbol is a library symbol as a schematic embeds it: a symbol that
// extends another is merged into its parent's drawing and pins, as
// KiCad's LIB_SYMBOL::Flatten does when it saves a schematic.
func (lib *symbolLibrary) flatSymbol(name string) (*node, string, error) {
	s, ok := lib.symbols[name]
	if !ok {
		names := make([]string, 0, len(lib.symbols))
		for n := range lib.symbols {
			names = append(names, n)
		}
		return nil, "", protocol.Invalid("library %s has no symbol %s%s", lib.name, name, suggest(names, name))
	}
	parentName := childArg(s, "extends")
	if parentName == "" {
		return s.clone(), "", nil
	}
	parent, ok := lib.symbols[parentName]
	if !ok {
		return nil, "", protocol.Unavailable("symbol %s:%s extends %s, which %s does not hold; reinstall it (%s)", lib.name, name, parentName, lib.path, installSymbols)
	}
	if childArg(parent, "extends") != "" {
		return nil, "", protocol.Unavailable("symbol %s:%s extends %s, which itself extends another symbol: KiCad 6 allows one level", lib.name, name, parentName)
	}
	flat := parent.clone()
	flat.list[1] = str(name)
	// The derived symbol's fields replace the parent's of the same name;
	// the parent's others stay (ki_locked, its own fields), and an empty
	// mandatory field, keywords, description or filter keeps the parent's.
	props := flat.children("property")
	for _, d := range s.children("property") {
		i := slices.IndexFunc(props, func(p *node) bool { return p.arg(0) == d.arg(0) })
		switch {
		case i < 0:
			props = append(props, d.clone())
		case d.arg(1) != "" || !inheritedWhenEmpty[d.arg(0)]:
			props[i] = d.clone()
		}
	}
	for i, p := range props {
		if id := p.child("id"); id != nil {
			id.list[1] = integer(i)
		}
	}
	var kept []*node
	for _, c := range flat.list {
		if c.head() != "property" {
			kept = append(kept, c)
		}
	}
	// Properties go where the parent had them: after the flags.
	at := len(kept)
	for i, c := range kept {
		if c.head() == "symbol" {
			at = i
			break
		}
	}
	flat.list = append(kept[:at:at], append(props, kept[at:]...)...)
	// Unit sub-symbols are named <symbol>_<unit>_<style>.
	for _, sub := range flat.children("symbol") {
		sub.list[1] = str(name + strings.TrimPrefix(sub.arg(0), parentName))
	}
	return flat, parentName, nil
}

// suggest lists up to eight names close to want (sharing a word with it,
// case ignored), or says none is.
func suggest(names []string, want string) string {
	w := strings.ToLower(want)
	var close []string
	for _, n := range names {
		l := strings.ToLower(n)
		if strings.Contains(l, w) || strings.Contains(w, l) && len(l) > 2 {
			close = append(close, n)
		}
	}
	if len(close) == 0 {
		// Names sharing the first letters.
		for k := min(len(w), 4); k >= 2 && len(close) == 0; k-- {
			for _, n := range names {
				if strings.HasPrefix(strings.ToLower(n), w[:k]) {
					close = append(close, n)
				}
			}
		}
	}
	if len(close) == 0 {
		return fmt.Sprintf(" (it has %d; none is named like it)", len(names))
	}
	sort.Slice(close, func(i, j int) bool { return naturalLess(close[i], close[j]) })
	if len(close) > 8 {
		close = append(close[:8], "...")
	}
	return "; close names: " + strings.Join(close, ", ")
}
