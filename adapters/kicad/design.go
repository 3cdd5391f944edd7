package kicad

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// maxSheetInstances bounds a hierarchy, so a sheet that places itself
// (directly or not) is refused instead of recursing forever.
const maxSheetInstances = 500

// design is a schematic with its whole hierarchy loaded: every sheet
// instance, and every placed symbol with the reference it has there.
type design struct {
	root      *sheetFile
	files     map[string]*sheetFile
	instances []*sheetInstance
	parts     []*part
}

// sheetInstance is one placement of a sheet file in the hierarchy.
type sheetInstance struct {
	// path is the instance path of sheet uuids, "/" for the root and
	// "/<uuid>/" below it; symbol_instances keys are path + symbol uuid.
	path string
	// name is the sheet-name path KiCad prefixes local nets with ("/",
	// "/pic_sockets/").
	name   string
	file   *sheetFile
	parent *sheetInstance
	// sheet is the sheet symbol in the parent that placed this instance.
	sheet *sheetSymbol
}

// part is one placed symbol in one sheet instance: a unit of a component.
type part struct {
	inst             *sheetInstance
	sym              *placedSymbol
	lib              *libSymbol
	reference, value string
	footprint        string
	unit             int
}

// loadDesign reads the root schematic and every sheet below it, each
// confined to the allowed roots like the root itself.
func (a *Adapter) loadDesign(rootPath string) (*design, error) {
	root, err := loadSheetFile(rootPath)
	if err != nil {
		return nil, err
	}
	d := &design{root: root, files: map[string]*sheetFile{rootPath: root}}
	top := &sheetInstance{path: "/", name: "/", file: root}
	queue := []*sheetInstance{top}
	for len(queue) > 0 {
		inst := queue[0]
		queue = queue[1:]
		d.instances = append(d.instances, inst)
		if len(d.instances) > maxSheetInstances {
			return nil, protocol.Invalid("%s places more than %d sheet instances: a sheet probably places itself", rootPath, maxSheetInstances)
		}
		for i := range inst.file.sheets {
			sh := &inst.file.sheets[i]
			child, err := a.sheetFileOf(d, rootPath, sh)
			if err != nil {
				return nil, err
			}
			queue = append(queue, &sheetInstance{
				path: inst.path + sh.uuid + "/", name: inst.name + sh.name + "/",
				file: child, parent: inst, sheet: sh,
			})
		}
	}
	for _, inst := range d.instances {
		for _, s := range inst.file.symbols {
			lib := inst.file.libs[s.libName]
			if lib == nil {
				return nil, protocol.Invalid("%s: symbol %s (%s) has no entry in the sheet's lib_symbols; save the schematic with KiCad 6", inst.file.path, s.reference, s.libID)
			}
			p := &part{inst: inst, sym: s, lib: lib, reference: s.reference, value: s.value, footprint: s.footprint, unit: s.unit}
			if row, ok := root.instances[inst.path+s.uuid]; ok {
				p.reference, p.unit = row.reference, row.unit
				if row.value != "" {
					p.value = row.value
				}
				p.footprint = row.footprint
			}
			d.parts = append(d.parts, p)
		}
	}
	return d, nil
}

// sheetFileOf loads (once) the file a sheet symbol places, found relative
// to the root schematic's folder.
func (a *Adapter) sheetFileOf(d *design, rootPath string, sh *sheetSymbol) (*sheetFile, error) {
	if strings.TrimSpace(sh.file) == "" {
		return nil, protocol.Invalid("%s: sheet %q names no file", rootPath, sh.name)
	}
	p := sh.file
	if !filepath.IsAbs(p) {
		p = filepath.Join(sheetDir(rootPath), p)
	}
	real, err := a.ws.ResolveRead("sheet file of sheet "+sh.name, p)
	if err != nil {
		return nil, err
	}
	if f, ok := d.files[real]; ok {
		return f, nil
	}
	f, err := loadSheetFile(real)
	if err != nil {
		return nil, err
	}
	d.files[real] = f
	return f, nil
}

// pins are the library pins of the part's unit (which the placement, not
// the symbol, decides in a sheet placed twice) and body style.
func (p *part) pins() []libPin {
	var out []libPin
	for _, lp := range p.lib.pins {
		if (lp.unit == 0 || lp.unit == p.unit) && (lp.style == 0 || lp.style == p.sym.style) {
			out = append(out, lp)
		}
	}
	return out
}

// refuseCrossSheetBuses refuses a schematic whose buses cross sheets
// (through hierarchical or global labels or sheet pins): their members'
// connectivity is not followed, and a netlist without it would be wrong.
func (d *design) refuseCrossSheetBuses() error {
	var where []string
	for _, inst := range d.instances {
		if len(inst.file.crossBuses) > 0 {
			buses := dedupe(inst.file.crossBuses)
			if len(buses) > 3 {
				buses = append(buses[:3], "...")
			}
			where = append(where, fmt.Sprintf("%s (%s)", filepath.Base(inst.file.path), strings.Join(buses, ", ")))
		}
	}
	if len(where) == 0 {
		return nil
	}
	return protocol.Refusal("%s carries buses between sheets through hierarchical or global labels or sheet pins: %s. "+
		"Bus members across sheets are not followed by this schematic reader, so its netlist would be wrong; "+
		"use the board (board_file) for the board's netlist", d.root.path, strings.Join(dedupe(where), "; "))
}
