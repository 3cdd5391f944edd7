package freecad

import (
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// The ops of an editing session, as data: the integrator makes one MCP
// tool per op (freecad.<name>) and journals the ops that edit, knowing
// nothing of FreeCAD. Each op's arguments are a Go type here; its schema
// comes from that type (adapters.SchemaFor) and CheckSessionOp decodes
// into it, so the schema an agent reads and the check that runs agree.
// The kernel (python/session) gets the canonical arguments CheckSessionOp
// returns, session_id included (it ignores it).

// SessionOp is one op a session's document takes.
type SessionOp struct {
	Name        string // the kernel's op name; the tool is freecad.<Name>
	Title       string
	Description string
	// Args is the zero value of the op's Go arguments type; its schema is
	// adapters.SchemaFor of that type with Rules (see Schema).
	Args  any
	Rules []adapters.SchemaRule
	// Class is the annotation class: "read_only" (describe_model),
	// "producing" (export_model), "destructive" (execute_code), "additive".
	Class string
	// Edits says the op changes the document, so the session journals it
	// and replays it when the document is rebuilt.
	Edits bool
}

// Schema is the op's input schema.
func (o SessionOp) Schema() json.RawMessage {
	s, err := o.resolved()
	if err != nil {
		panic(fmt.Sprintf("freecad: the schema of op %s: %v", o.Name, err)) // a declaration gone wrong
	}
	raw, err := json.Marshal(s.Schema())
	if err != nil {
		panic(fmt.Sprintf("freecad: the schema of op %s: %v", o.Name, err))
	}
	return raw
}

type createBodyArgs struct {
	SessionID string `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Label     string `json:"label,omitempty" jsonschema:"The body's label; its obj_id is FreeCAD's name (Body, Body001, ...)."`
}

// sketchGeometry is one element of a sketch; which fields it takes
// depends on its type.
type sketchGeometry struct {
	Type string `json:"type" jsonschema:"rectangle (x, y, width, height), circle (cx, cy, r), polygon (points, closed), line (x1, y1, x2, y2) or arc (cx, cy, r, start_angle, end_angle)."`

	X      *float64 `json:"x,omitempty" jsonschema:"rectangle: the corner with the least coordinates, mm in the sketch plane."`
	Y      *float64 `json:"y,omitempty"`
	Width  *float64 `json:"width,omitempty" jsonschema:"rectangle: along the sketch's x, mm."`
	Height *float64 `json:"height,omitempty" jsonschema:"rectangle: along the sketch's y, mm."`

	CX *float64 `json:"cx,omitempty" jsonschema:"circle, arc: the centre, mm."`
	CY *float64 `json:"cy,omitempty"`
	R  *float64 `json:"r,omitempty" jsonschema:"circle, arc: the radius, mm."`

	StartAngle *float64 `json:"start_angle,omitempty" jsonschema:"arc: degrees from the sketch's x axis, counter-clockwise."`
	EndAngle   *float64 `json:"end_angle,omitempty"`

	Points [][]float64 `json:"points,omitempty" jsonschema:"polygon: [x, y] vertices in order, mm."`
	Closed bool        `json:"closed,omitempty" jsonschema:"polygon: join the last point to the first (a profile to pad must be closed)."`

	X1 *float64 `json:"x1,omitempty" jsonschema:"line: from (x1, y1) to (x2, y2), mm."`
	Y1 *float64 `json:"y1,omitempty"`
	X2 *float64 `json:"x2,omitempty"`
	Y2 *float64 `json:"y2,omitempty"`
}

type faceRef struct {
	Feature string `json:"feature" jsonschema:"The obj_id of the feature whose face carries the sketch."`
	Face    string `json:"face" jsonschema:"The planar face, by name: Face1, Face6, ..."`
}

type createSketchArgs struct {
	SessionID string           `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Body      string           `json:"body,omitempty" jsonschema:"The body to sketch in; left out: the only body, made on first use."`
	Plane     string           `json:"plane,omitempty" jsonschema:"The body's base plane: XY, XZ or YZ (default XY). Not with face."`
	Offset    float64          `json:"offset,omitempty" jsonschema:"Shift along the plane's (or face's) normal, mm."`
	Face      *faceRef         `json:"face,omitempty" jsonschema:"A planar face of a feature to sketch on, instead of a plane."`
	Geometry  []sketchGeometry `json:"geometry" jsonschema:"The sketch's elements."`
	Label     string           `json:"label,omitempty"`
}

type padArgs struct {
	SessionID string  `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Sketch    string  `json:"sketch" jsonschema:"The obj_id of the sketch to pad (a closed profile)."`
	Length    float64 `json:"length,omitempty" jsonschema:"How far, mm; required with type dimension."`
	Type      string  `json:"type,omitempty" jsonschema:"dimension (default) or through_all (up to the body's last face)."`
	Reversed  bool    `json:"reversed,omitempty" jsonschema:"Pad against the sketch's normal."`
	Symmetric bool    `json:"symmetric,omitempty" jsonschema:"Pad half the length to each side of the sketch."`
}

type pocketArgs struct {
	SessionID  string  `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Sketch     string  `json:"sketch" jsonschema:"The obj_id of the sketch whose profile is cut."`
	Depth      float64 `json:"depth,omitempty" jsonschema:"How deep, mm; required unless through_all."`
	ThroughAll bool    `json:"through_all,omitempty" jsonschema:"Cut through the whole solid."`
	Reversed   bool    `json:"reversed,omitempty" jsonschema:"Cut along the sketch's normal instead of against it."`
	Symmetric  bool    `json:"symmetric,omitempty" jsonschema:"Cut to both sides of the sketch."`
}

type revolveArgs struct {
	SessionID string  `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Sketch    string  `json:"sketch" jsonschema:"The obj_id of the sketch to revolve."`
	Axis      string  `json:"axis,omitempty" jsonschema:"V_Axis or H_Axis (the sketch's own axes, default V_Axis), or X, Y, Z (the body's)."`
	Angle     float64 `json:"angle,omitempty" jsonschema:"Degrees, default 360."`
}

type loftArgs struct {
	SessionID string   `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Sketches  []string `json:"sketches" jsonschema:"The sections in order, obj_ids of sketches in one body."`
	Ruled     bool     `json:"ruled,omitempty" jsonschema:"Straight faces between sections instead of a smooth skin."`
}

type sweepArgs struct {
	SessionID string `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Profile   string `json:"profile" jsonschema:"The obj_id of the sketch swept (a closed profile)."`
	Path      string `json:"path" jsonschema:"The obj_id of the sketch (or edge-bearing object) it is swept along; all its edges are used."`
}

type shellArgs struct {
	SessionID string   `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Feature   string   `json:"feature,omitempty" jsonschema:"The solid to hollow; left out: the tip of the only body."`
	Faces     []string `json:"faces" jsonschema:"The faces left open: Face1, Face6, ..."`
	Thickness float64  `json:"thickness" jsonschema:"Wall thickness, mm; the wall grows inwards."`
}

type filletArgs struct {
	SessionID string   `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Feature   string   `json:"feature,omitempty" jsonschema:"The solid whose edges are picked; left out: the tip of the only body."`
	Edges     []string `json:"edges,omitempty" jsonschema:"Edges by name: Edge1, Edge2, ... Not with selector."`
	Selector  string   `json:"selector,omitempty" jsonschema:"|X, |Y, |Z: straight edges parallel to the axis (not seams); >X, <X, >Y, <Y, >Z, <Z: edges at the solid's max or min along it; all."`
	Radius    float64  `json:"radius" jsonschema:"Fillet radius, mm."`
}

type chamferArgs struct {
	SessionID string   `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Feature   string   `json:"feature,omitempty" jsonschema:"The solid whose edges are picked; left out: the tip of the only body."`
	Edges     []string `json:"edges,omitempty" jsonschema:"Edges by name: Edge1, Edge2, ... Not with selector."`
	Selector  string   `json:"selector,omitempty" jsonschema:"|X, |Y, |Z: straight edges parallel to the axis (not seams); >X, <X, >Y, <Y, >Z, <Z: edges at the solid's max or min along it; all."`
	Size      float64  `json:"size" jsonschema:"Chamfer size (setback along each face), mm."`
}

type linearPatternArgs struct {
	SessionID   string   `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Features    []string `json:"features" jsonschema:"The obj_ids of the features repeated (pads, pockets, ...), in one body."`
	Direction   string   `json:"direction" jsonschema:"The body's axis to repeat along: X, Y or Z."`
	Length      float64  `json:"length" jsonschema:"From the first occurrence to the last, mm."`
	Occurrences int      `json:"occurrences" jsonschema:"How many, the original included."`
	Reversed    bool     `json:"reversed,omitempty"`
}

type polarPatternArgs struct {
	SessionID   string   `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Features    []string `json:"features" jsonschema:"The obj_ids of the features repeated, in one body."`
	Axis        string   `json:"axis" jsonschema:"The body's axis to turn about: X, Y or Z."`
	Angle       float64  `json:"angle,omitempty" jsonschema:"Degrees spanned, default 360."`
	Occurrences int      `json:"occurrences" jsonschema:"How many, the original included."`
	Reversed    bool     `json:"reversed,omitempty"`
}

type describeModelArgs struct {
	SessionID string `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
}

type exportModelArgs struct {
	SessionID  string               `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Path       string               `json:"path" jsonschema:"Absolute path of the STEP file written (.step or .stp), replaced whole."`
	Objects    []string             `json:"objects,omitempty" jsonschema:"obj_ids to export; left out: every body with a solid and every loose solid."`
	Color      []float64            `json:"color,omitempty" jsonschema:"[r, g, b], 0-1 or 0-255, for every part."`
	PartColors map[string][]float64 `json:"part_colors,omitempty" jsonschema:"Part label to [r, g, b]; wins over color."`
}

type executeCodeArgs struct {
	SessionID string `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	Code      string `json:"code" jsonschema:"Python run against the live document (doc, App, Part, Sketcher in scope); set result to return data."`
}

// The kernel's own ops, which Documents drives: not session tools.
type openArgs struct {
	Base string `json:"base,omitempty"`
}

type saveArgs struct {
	Path string `json:"path"`
}

var (
	positive     = adapters.ExclusiveMinimum(0)
	axes         = adapters.Enum("X", "Y", "Z")
	edgeName     = adapters.Pattern(`^Edge[1-9][0-9]*$`)
	faceName     = adapters.Pattern(`^Face[1-9][0-9]*$`)
	nonEmpty     = adapters.MinLength(1)
	edgeSelector = adapters.Enum("|X", "|Y", "|Z", ">X", "<X", ">Y", "<Y", ">Z", "<Z", "all")
	geometryType = adapters.Enum("rectangle", "circle", "polygon", "line", "arc")
	colour       = []adapters.SchemaEdit{adapters.MinItems(3), adapters.MaxItems(3)}
)

func idRule() adapters.SchemaRule { return adapters.At("session_id", nonEmpty) }

// sessionOps is the table; SessionOps returns a copy.
var sessionOps = []SessionOp{
	{Name: "create_body", Title: "Create a body", Class: "additive", Edits: true,
		Description: "Adds an empty PartDesign body to the session's document. Needed only for a second body: create_sketch makes the first.",
		Args:        createBodyArgs{}, Rules: []adapters.SchemaRule{idRule()}},
	{Name: "create_sketch", Title: "Sketch a profile", Class: "additive", Edits: true,
		Description: "Adds a sketch to a body, on its XY, XZ or YZ plane (with an offset) or on a planar face of a feature, holding rectangles, circles, polygons, lines and arcs. Returns the sketch's obj_id, which pad_sketch, pocket_sketch and the others take.",
		Args:        createSketchArgs{}, Rules: []adapters.SchemaRule{idRule(),
			adapters.At("plane", adapters.Enum("XY", "XZ", "YZ")),
			adapters.At("geometry", adapters.MinItems(1)),
			adapters.At("geometry[].type", geometryType),
			adapters.At("geometry[].width", positive), adapters.At("geometry[].height", positive),
			adapters.At("geometry[].r", positive),
			adapters.At("geometry[].points", adapters.MinItems(2)),
			adapters.At("geometry[].points[]", adapters.MinItems(2), adapters.MaxItems(2)),
			adapters.At("face.face", faceName), adapters.At("face.feature", nonEmpty)}},
	{Name: "pad_sketch", Title: "Pad a sketch", Class: "additive", Edits: true,
		Description: "Extrudes a sketch's closed profile into solid (PartDesign Pad), by a length or up to the body's last face.",
		Args:        padArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("sketch", nonEmpty),
			adapters.At("length", positive), adapters.At("type", adapters.Enum("dimension", "through_all"), adapters.Default("dimension"))}},
	{Name: "pocket_sketch", Title: "Pocket a sketch", Class: "additive", Edits: true,
		Description: "Cuts a sketch's profile out of the body's solid (PartDesign Pocket), to a depth or through all.",
		Args:        pocketArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("sketch", nonEmpty), adapters.At("depth", positive)}},
	{Name: "revolve_sketch", Title: "Revolve a sketch", Class: "additive", Edits: true,
		Description: "Turns a sketch's profile about an axis into solid (PartDesign Revolution).",
		Args:        revolveArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("sketch", nonEmpty),
			adapters.At("axis", adapters.Enum("V_Axis", "H_Axis", "X", "Y", "Z"), adapters.Default("V_Axis")),
			adapters.At("angle", positive, adapters.Maximum(360), adapters.Default(360))}},
	{Name: "loft_sketches", Title: "Loft through sketches", Class: "additive", Edits: true,
		Description: "Skins solid through two or more section sketches in order (PartDesign AdditiveLoft).",
		Args:        loftArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("sketches", adapters.MinItems(2), adapters.UniqueItems())}},
	{Name: "sweep_sketch", Title: "Sweep a sketch", Class: "additive", Edits: true,
		Description: "Sweeps a profile sketch along a path sketch into solid (PartDesign AdditivePipe).",
		Args:        sweepArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("profile", nonEmpty), adapters.At("path", nonEmpty)}},
	{Name: "shell_solid", Title: "Shell a solid", Class: "additive", Edits: true,
		Description: "Hollows a solid to a wall thickness, leaving the faces named open (PartDesign Thickness).",
		Args:        shellArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("faces", adapters.MinItems(1)),
			adapters.At("faces[]", faceName), adapters.At("thickness", positive)}},
	{Name: "fillet", Title: "Fillet edges", Class: "additive", Edits: true,
		Description: "Rounds edges of a solid (PartDesign Fillet), named or picked by a selector such as |Z (vertical straight edges, seams excluded).",
		Args:        filletArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("edges[]", edgeName),
			adapters.At("selector", edgeSelector), adapters.At("radius", positive)}},
	{Name: "chamfer", Title: "Chamfer edges", Class: "additive", Edits: true,
		Description: "Bevels edges of a solid (PartDesign Chamfer), named or picked by a selector.",
		Args:        chamferArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("edges[]", edgeName),
			adapters.At("selector", edgeSelector), adapters.At("size", positive)}},
	{Name: "linear_pattern", Title: "Repeat features in a line", Class: "additive", Edits: true,
		Description: "Repeats features along a body axis (PartDesign LinearPattern).",
		Args:        linearPatternArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("features", adapters.MinItems(1)),
			adapters.At("direction", axes), adapters.At("length", positive), adapters.At("occurrences", adapters.Minimum(2))}},
	{Name: "polar_pattern", Title: "Repeat features about an axis", Class: "additive", Edits: true,
		Description: "Repeats features about a body axis (PartDesign PolarPattern).",
		Args:        polarPatternArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("features", adapters.MinItems(1)),
			adapters.At("axis", axes), adapters.At("angle", positive, adapters.Maximum(360), adapters.Default(360)),
			adapters.At("occurrences", adapters.Minimum(2))}},
	{Name: "describe_model", Title: "Describe the model", Class: "read_only",
		Description: "Lists every object of the session's document: obj_id (FreeCAD's name), label, type, and for solids volume, area and bounding box in the global frame; each body's tip and features.",
		Args:        describeModelArgs{}, Rules: []adapters.SchemaRule{idRule()}},
	{Name: "export_model", Title: "Export the model as STEP", Class: "producing",
		Description: "Writes the session's solids as one STEP with placements baked into the geometry and optional colours (COLOUR_RGB), and returns volume, surface area and bounding box measured from the file written.",
		Args:        exportModelArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("path", nonEmpty),
			adapters.At("color", colour...), adapters.At("color[]", adapters.Minimum(0), adapters.Maximum(255))}},
	{Name: "execute_code", Title: "Run Python on the model", Class: "destructive", Edits: true,
		Description: "Runs Python against the live document (doc, App, Part, Sketcher in scope) as one transaction: an exception leaves the document as it was. The script's result variable comes back as plain data, capped at 20000 characters (result_truncated when cut).",
		Args:        executeCodeArgs{}, Rules: []adapters.SchemaRule{idRule(), adapters.At("code", nonEmpty, adapters.MaxLength(200000))}},
}

// SessionOps are the ops a session takes, one MCP tool each. open and
// save are not among them: Documents.Open and Documents.Save drive them.
func SessionOps() []SessionOp {
	out := make([]SessionOp, len(sessionOps))
	copy(out, sessionOps)
	return out
}

func findOp(name string) (SessionOp, bool) {
	for _, o := range sessionOps {
		if o.Name == name {
			return o, true
		}
	}
	return SessionOp{}, false
}

// CheckSessionOp checks an op's arguments against its Go type and rules
// and returns them canonical (as the type encodes them), which is what the
// kernel gets and the journal keeps. A refusal is INVALID_PARAMS saying
// what to fix.
func CheckSessionOp(name string, args json.RawMessage) (json.RawMessage, error) {
	op, ok := findOp(name)
	if !ok {
		names := make([]string, len(sessionOps))
		for i, o := range sessionOps {
			names[i] = o.Name
		}
		return nil, protocol.Invalid("unknown session op %q; the ops are %s", name, strings.Join(names, ", "))
	}
	// Decoding first names an unknown argument and the ones the op takes.
	ptr := reflect.New(reflect.TypeOf(op.Args))
	if err := adapters.DecodeArguments(args, ptr.Interface()); err != nil {
		return nil, withOp(name, err)
	}
	var instance map[string]any
	if err := json.Unmarshal(adapters.ArgumentsOrEmpty(args), &instance); err != nil {
		return nil, protocol.Invalid("%s: the arguments must be a JSON object: %v", name, err)
	}
	if id, _ := instance["session_id"].(string); id == "" {
		return nil, protocol.Invalid("%s: session_id is required: the editing session, as freecad.open_session returned it", name)
	}
	// The op's own checks first: they say what to fix in its terms.
	if c, ok := ptr.Interface().(interface{ check() error }); ok {
		if err := c.check(); err != nil {
			return nil, withOp(name, err)
		}
	}
	resolved, err := op.resolved()
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: fmt.Sprintf("the schema of op %s: %v", name, err)}
	}
	if err := resolved.Validate(any(instance)); err != nil {
		return nil, protocol.Invalid("%s: %s", name, schemaMessage(err))
	}
	canonical, err := json.Marshal(ptr.Elem().Interface())
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: fmt.Sprintf("%s: the arguments cannot be encoded: %v", name, err)}
	}
	return canonical, nil
}

func withOp(name string, err error) error {
	if pe, ok := err.(*protocol.Error); ok {
		return protocol.Invalid("%s: %s", name, pe.Details)
	}
	return protocol.Invalid("%s: %v", name, err)
}

var (
	resolvedMu sync.Mutex
	resolvedBy = map[string]*jsonschema.Resolved{}
)

// resolved is the op's schema, compiled once.
func (o SessionOp) resolved() (*jsonschema.Resolved, error) {
	resolvedMu.Lock()
	defer resolvedMu.Unlock()
	if r := resolvedBy[o.Name]; r != nil {
		return r, nil
	}
	var schema jsonschema.Schema
	raw := schemaOf(o)
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	r, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	resolvedBy[o.Name] = r
	return r, nil
}

// schemaOf is adapters.SchemaFor of the op's Args type, with its rules.
func schemaOf(o SessionOp) json.RawMessage {
	switch o.Args.(type) {
	case createBodyArgs:
		return adapters.SchemaFor[createBodyArgs](o.Rules...)
	case createSketchArgs:
		return adapters.SchemaFor[createSketchArgs](o.Rules...)
	case padArgs:
		return adapters.SchemaFor[padArgs](o.Rules...)
	case pocketArgs:
		return adapters.SchemaFor[pocketArgs](o.Rules...)
	case revolveArgs:
		return adapters.SchemaFor[revolveArgs](o.Rules...)
	case loftArgs:
		return adapters.SchemaFor[loftArgs](o.Rules...)
	case sweepArgs:
		return adapters.SchemaFor[sweepArgs](o.Rules...)
	case shellArgs:
		return adapters.SchemaFor[shellArgs](o.Rules...)
	case filletArgs:
		return adapters.SchemaFor[filletArgs](o.Rules...)
	case chamferArgs:
		return adapters.SchemaFor[chamferArgs](o.Rules...)
	case linearPatternArgs:
		return adapters.SchemaFor[linearPatternArgs](o.Rules...)
	case polarPatternArgs:
		return adapters.SchemaFor[polarPatternArgs](o.Rules...)
	case describeModelArgs:
		return adapters.SchemaFor[describeModelArgs](o.Rules...)
	case exportModelArgs:
		return adapters.SchemaFor[exportModelArgs](o.Rules...)
	case executeCodeArgs:
		return adapters.SchemaFor[executeCodeArgs](o.Rules...)
	}
	panic(fmt.Sprintf("freecad: op %s has args of type %T, which schemaOf does not know", o.Name, o.Args))
}

// schemaMessage words a schema refusal as "argument x: what is wrong".
func schemaMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "validating root: ")
	var path []string
	for {
		rest, ok := strings.CutPrefix(msg, "validating /")
		if !ok {
			break
		}
		seg, tail, found := strings.Cut(rest, ": ")
		if !found {
			break
		}
		path = path[:0]
		for _, p := range strings.Split(seg, "/") {
			if p != "properties" && p != "items" && p != "" {
				path = append(path, p)
			}
		}
		msg = tail
	}
	msg = boundMessage(msg)
	if len(path) > 0 {
		return "argument " + strings.Join(path, ".") + ": " + msg
	}
	return "arguments: " + msg
}

// The validator words a bound as "exclusiveMinimum: -5/1 is less than
// or equal to 0.000000"; an agent reads "must be greater than 0, not -5".
var boundPattern = regexp.MustCompile(`^(exclusiveMinimum|minimum|exclusiveMaximum|maximum): (\S+) is (?:less|greater) than (?:or equal to )?(\S+)$`)

func boundMessage(msg string) string {
	m := boundPattern.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	got, ok1 := new(big.Rat).SetString(m[2])
	bound, ok2 := new(big.Rat).SetString(m[3])
	if !ok1 || !ok2 {
		return msg
	}
	g, _ := got.Float64()
	b, _ := bound.Float64()
	word := map[string]string{"exclusiveMinimum": "greater than", "minimum": "at least",
		"exclusiveMaximum": "less than", "maximum": "at most"}[m[1]]
	return fmt.Sprintf("must be %s %s, not %s", word, strconv.FormatFloat(b, 'g', -1, 64), strconv.FormatFloat(g, 'g', -1, 64))
}

// Checks a schema cannot say.

func (a *createSketchArgs) check() error {
	if a.Face != nil && a.Plane != "" {
		return protocol.Invalid("give plane or face, not both")
	}
	for i, g := range a.Geometry {
		need := map[string][]*float64{
			"rectangle": {g.X, g.Y, g.Width, g.Height},
			"circle":    {g.CX, g.CY, g.R},
			"line":      {g.X1, g.Y1, g.X2, g.Y2},
			"arc":       {g.CX, g.CY, g.R, g.StartAngle, g.EndAngle},
		}
		names := map[string]string{
			"rectangle": "x, y, width, height", "circle": "cx, cy, r", "line": "x1, y1, x2, y2",
			"arc": "cx, cy, r, start_angle, end_angle",
		}
		if g.Type == "polygon" {
			if len(g.Points) < 2 {
				return protocol.Invalid("geometry[%d]: a polygon needs points, at least 2 [x, y] pairs", i)
			}
			continue
		}
		for _, v := range need[g.Type] {
			if v == nil {
				return protocol.Invalid("geometry[%d]: a %s needs %s", i, g.Type, names[g.Type])
			}
		}
	}
	return nil
}

func (a *padArgs) check() error {
	if a.Type != "through_all" && a.Length <= 0 {
		return protocol.Invalid("argument length: a pad of type dimension needs a length above 0 mm")
	}
	return nil
}

func (a *pocketArgs) check() error {
	if !a.ThroughAll && a.Depth <= 0 {
		return protocol.Invalid("argument depth: give a depth above 0 mm, or through_all")
	}
	return nil
}

func (a *filletArgs) check() error  { return checkEdges(a.Edges, a.Selector) }
func (a *chamferArgs) check() error { return checkEdges(a.Edges, a.Selector) }

// checkEdges: a fillet or chamfer names its edges one way.
func checkEdges(edges []string, selector string) error {
	if (len(edges) > 0) == (selector != "") {
		return protocol.Invalid("name the edges (edges: [\"Edge1\", ...]) or give a selector (|Z, >Z, all, ...): one of the two")
	}
	return nil
}

func (a *exportModelArgs) check() error {
	ext := strings.ToLower(filepath.Ext(a.Path))
	if !filepath.IsAbs(a.Path) || (ext != ".step" && ext != ".stp") {
		return protocol.Invalid("argument path: %q must be an absolute path ending in .step or .stp", a.Path)
	}
	for label, c := range a.PartColors {
		if len(c) != 3 {
			return protocol.Invalid("argument part_colors.%s: a colour is [r, g, b]", label)
		}
	}
	return nil
}
