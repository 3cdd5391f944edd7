package kicad

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolGenerateSchematic draws a KiCad 6 schematic from parts and nets.
const ToolGenerateSchematic = "kicad.generate_schematic"

// SchematicResult is what kicad.generate_schematic returns.
type SchematicResult struct {
	SchematicFile  string `json:"schematic_file"`
	Title          string `json:"title,omitempty"`
	Paper          string `json:"paper"`
	ComponentCount int    `json:"component_count"`
	NetCount       int    `json:"net_count"`
	// Nets are the nets as drawn, read back from the written file with the
	// schematic reader kicad.export_netlist uses: net name -> REF.PIN.
	Nets map[string][]string `json:"nets"`
	// KiCadNetNames is the name KiCad's netlist gives each net: /NAME for a
	// local label, NAME for a global label or power port.
	KiCadNetNames    map[string]string `json:"kicad_net_names"`
	Symbols          []UsedSymbol      `json:"symbols"`
	Placements       []Placement       `json:"placements"`
	PowerSymbolCount int               `json:"power_symbol_count"`
	PowerFlagCount   int               `json:"power_flag_count"`
	NoConnect        []string          `json:"no_connect"`
	UnconnectedPins  []string          `json:"unconnected_pins"`
	Warnings         []string          `json:"warnings,omitempty"`
}

// UsedSymbol is a library symbol the schematic embeds.
type UsedSymbol struct {
	LibID       string   `json:"lib_id"`
	LibraryFile string   `json:"library_file"`
	Extends     string   `json:"extends,omitempty"`
	Units       int      `json:"units"`
	References  []string `json:"references"`
}

// Placement is where a unit of a part was put: its symbol's origin, mm,
// KiCad's sheet axes (Y down).
type Placement struct {
	Reference string  `json:"reference"`
	Unit      int     `json:"unit"`
	XMM       float64 `json:"x_mm"`
	YMM       float64 `json:"y_mm"`
}

const generateSchematicDescription = "Draw a KiCad 6 schematic (.kicad_sch, format 20211123, what KiCad 6.0 writes and opens) from parts and nets. " +
	"Each component is a symbol from KiCad's installed libraries (Debian's kicad-symbols, Library:Symbol such as Device:R or Timer:NE555P; " +
	"a symbol that extends another is merged with it) copied into the file, placed unrotated on the 50 mil grid without overlaps (every unit of " +
	"a multi-unit part), and annotated with its reference. Each net is drawn as a short wire from every pin's end to a net label " +
	"(style label: KiCad names the net /NAME), a global label (global_label: NAME) or a power port (power_symbol: NAME, power:<name> or power_symbol); " +
	"power_flag adds a PWR_FLAG so ERC counts the net as powered. Pins listed in no_connect get a no-connect flag; other free pins are left " +
	"bare and listed in unconnected_pins. Every reference, symbol, library and pin (its number, and its name when given as REF.PIN:NAME) is " +
	"checked against the library first; an unknown one, a duplicate reference or a pin on two nets is refused by name and nothing is written. " +
	"The written file is read back with kicad.export_netlist's schematic reader and must give exactly the requested nets, or nothing is kept. " +
	"Returns schematic_file (in the call's folder), nets as drawn (name -> REF.PIN), kicad_net_names, symbols, placements and counts."

var generateSchematicInputSchema = adapters.SchemaFor[SchematicRequest](
	adapters.At("components", adapters.MinItems(1)),
	adapters.At("components[].reference", adapters.Pattern(referencePattern)),
	adapters.At("components[].symbol", adapters.Pattern(`^[^:]+:[^:]+$`)),
	adapters.At("nets[].name", adapters.MinLength(1)),
	adapters.At("nets[].pins", adapters.MinItems(1)),
	adapters.At("nets[].pins[]", adapters.Pattern(`^[^.]+\..+$`)),
	adapters.At("nets[].style", adapters.Enum(StyleLabel, StyleGlobalLabel, StylePowerSymbol), adapters.Default(StyleLabel)),
	adapters.At("nets[].power_symbol", adapters.Pattern(`^[^:]+:[^:]+$`)),
	adapters.At("no_connect[]", adapters.Pattern(`^[^.]+\..+$`)),
	adapters.At("output_path", adapters.MinLength(1), adapters.MaxLength(255), adapters.Pattern(`^[^/\\]+$`),
		adapters.Describe("Plain file name (no folders) of the schematic, written in the call's own folder; default schematic.kicad_sch. "+
			"A name without an extension gets .kicad_sch.")),
)

const generateSchematicOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["schematic_file", "paper", "component_count", "net_count", "nets", "kicad_net_names", "symbols", "placements",
    "power_symbol_count", "power_flag_count", "no_connect", "unconnected_pins"],
  "properties": {
    "schematic_file": {"type": "string", "description": "The .kicad_sch, in the call's folder."},
    "title": {"type": "string"},
    "paper": {"type": "string", "description": "A4 to A0 (landscape), or User when the parts need more."},
    "component_count": {"type": "integer"},
    "net_count": {"type": "integer"},
    "nets": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
      "description": "Net name -> its pins as REF.PIN, read back from the written file."},
    "kicad_net_names": {"type": "object", "additionalProperties": {"type": "string"},
      "description": "Net name -> the name KiCad's netlist gives it (/NAME for a local label)."},
    "symbols": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["lib_id", "library_file", "units", "references"], "properties": {
        "lib_id": {"type": "string"}, "library_file": {"type": "string"},
        "extends": {"type": "string", "description": "The library symbol it extends, merged into the copy."},
        "units": {"type": "integer"}, "references": {"type": "array", "items": {"type": "string"}}}}},
    "placements": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["reference", "unit", "x_mm", "y_mm"], "properties": {
        "reference": {"type": "string"}, "unit": {"type": "integer"}, "x_mm": {"type": "number"}, "y_mm": {"type": "number"}}}},
    "power_symbol_count": {"type": "integer"},
    "power_flag_count": {"type": "integer"},
    "no_connect": {"type": "array", "items": {"type": "string"}},
    "unconnected_pins": {"type": "array", "items": {"type": "string"},
      "description": "Pins on no net and without a no-connect flag (not counting pins whose type is no_connect or hidden power inputs): ERC reports them."},
    "warnings": {"type": "array", "items": {"type": "string"}}
  }
}`

// generateSchematicManifest declares the tool: it writes only its call's
// folder, and the same request gives the same file.
func generateSchematicManifest() adapters.Manifest {
	return adapters.Manifest{
		ToolID: ToolGenerateSchematic, AdapterID: AdapterID, Name: "Generate a KiCad schematic", Capability: "schematic_generation",
		Description: generateSchematicDescription, InputSchema: generateSchematicInputSchema,
		OutputSchema: json.RawMessage(generateSchematicOutputSchema), Idempotent: true, TimeoutSeconds: 60,
	}
}

func (a *Adapter) generateSchematic(ctx context.Context, args json.RawMessage) (*SchematicResult, error) {
	var req SchematicRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	name, err := schematicOutputName(req.OutputPath)
	if err != nil {
		return nil, err
	}
	c, err := checkRequest(req, a.symbolDir())
	if err != nil {
		return nil, err
	}
	d := layoutSchematic(c)
	seed, _ := json.Marshal(req)
	text := writeSchematic(d, req.Title, &uuids{seed: sha256.Sum256(seed)})

	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	file, err := a.ws.ResolveWrite(dir, "output_path", name)
	if err != nil {
		_ = os.Remove(dir) // only if nothing is in it
		return nil, err
	}
	res, err := a.keepIfRight(c, d, text, file)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	return res, nil
}

// schematicOutputName checks output_path: a plain .kicad_sch file name.
func schematicOutputName(name string) (string, error) {
	if name == "" {
		return "schematic.kicad_sch", nil
	}
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.ContainsRune(name, 0) {
		return "", protocol.Invalid("output_path %q must be a plain file name such as power_stage.kicad_sch: the file goes in the call's own folder", name)
	}
	switch ext := filepath.Ext(name); {
	case ext == "":
		return name + schematicKind.ext, nil
	case !strings.EqualFold(ext, schematicKind.ext):
		return "", protocol.Invalid("output_path %q must end in %s", name, schematicKind.ext)
	}
	return name, nil
}

// keepIfRight writes the schematic beside file, reads it back with the
// schematic reader kicad.export_netlist uses, and keeps it as file only if
// the nets it draws are exactly the nets asked for.
func (a *Adapter) keepIfRight(c *checkedRequest, d *drawing, text, file string) (*SchematicResult, error) {
	tmp := file + ".part"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return nil, protocol.Transient("%s cannot be written: %v", tmp, err)
	}
	defer os.Remove(tmp)
	design, err := a.loadDesign(tmp)
	if err != nil {
		return nil, protocol.Refusal("the drawn schematic could not be read back (%v); nothing was written", err)
	}
	drawn := connect(design).nets(design)
	res, err := compareNets(c, drawn)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, file); err != nil {
		return nil, protocol.Transient("%s cannot be written: %v", file, err)
	}
	res.SchematicFile = file
	res.Title = c.req.Title
	res.Paper = d.paper
	res.ComponentCount = len(c.components)
	res.Placements = d.placements
	res.PowerSymbolCount, res.PowerFlagCount = d.powerSymbols, d.flags
	res.NoConnect = []string{}
	for _, p := range c.noConnect {
		res.NoConnect = append(res.NoConnect, p.String())
	}
	res.UnconnectedPins = append([]string{}, d.unconnected...)
	res.Symbols = usedSymbols(c)
	res.Warnings = append(c.warnings, res.Warnings...)
	return res, nil
}

// compareNets checks the nets read back from the drawing against the
// request: each requested net is one drawn net holding all its pins and
// no pin of another. A drawn net may also hold pins the request leaves
// off (hidden power inputs KiCad joins by name): that is a warning.
func compareNets(c *checkedRequest, drawn []Net) (*SchematicResult, error) {
	where := map[pinKey]int{}
	for i, n := range drawn {
		for _, p := range n.Pins {
			where[pinKey{p.Reference, p.Pin}] = i
		}
	}
	res := &SchematicResult{Nets: map[string][]string{}, KiCadNetNames: map[string]string{}}
	owner := map[int]string{}
	for _, n := range c.nets {
		first, ok := where[n.pins[0].key()]
		if !ok {
			return nil, protocol.Refusal("net %s: pin %s is not in the drawn schematic; nothing was written", n.Name, n.pins[0])
		}
		for _, p := range n.pins[1:] {
			if i, ok := where[p.key()]; !ok || i != first {
				return nil, protocol.Refusal("net %s: pins %s and %s are not connected in the drawn schematic; nothing was written", n.Name, n.pins[0], p)
			}
		}
		if other, taken := owner[first]; taken {
			return nil, protocol.Refusal("nets %s and %s would be one net in the drawn schematic (%s): a symbol's pins overlap or a hidden pin joins them; nothing was written",
				other, n.Name, drawn[first].Name)
		}
		owner[first] = n.Name
		var pins, extra []string
		for _, p := range drawn[first].Pins {
			s := p.Reference + "." + p.Pin
			pins = append(pins, s)
			if c.netOf[pinKey{p.Reference, p.Pin}] != n {
				extra = append(extra, s)
			}
		}
		if len(extra) > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("net %s also holds %s, which KiCad joins to it by name (hidden power pins)", n.Name, strings.Join(extra, ", ")))
		}
		res.Nets[n.Name] = pins
		res.KiCadNetNames[n.Name] = drawn[first].Name
	}
	res.NetCount = len(res.Nets)
	return res, nil
}

// usedSymbols lists the library symbols placed, with the parts using them.
func usedSymbols(c *checkedRequest) []UsedSymbol {
	by := map[string]*UsedSymbol{}
	var order []string
	for _, gc := range c.components {
		u := by[gc.libID]
		if u == nil {
			u = &UsedSymbol{LibID: gc.libID, LibraryFile: gc.libFile, Extends: gc.extends, Units: gc.units}
			by[gc.libID] = u
			order = append(order, gc.libID)
		}
		u.References = append(u.References, gc.Reference)
	}
	sort.Strings(order)
	out := make([]UsedSymbol, len(order))
	for i, id := range order {
		out[i] = *by[id]
	}
	return out
}
