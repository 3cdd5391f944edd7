package twin

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A technical drawing of one part (its item, linked CONCERNS): toleranced
// dimensions, geometric tolerances (GD&T, ASME Y14.5 / ISO 1101 terms),
// the surface finish and what inspection must check. Every dimension has
// a tolerance band: a dimension nobody can make to is refused. Form
// tolerances take no datum; orientation, location and runout tolerances
// need one.

// GDT characteristics, by whether they take datums.
var (
	formTolerances    = []string{"flatness", "straightness", "circularity", "cylindricity"}
	profileTolerances = []string{"profile_of_a_line", "profile_of_a_surface"}
	datumTolerances   = []string{"perpendicularity", "angularity", "parallelism", "position", "concentricity", "symmetry",
		"circular_runout", "total_runout"}
	// gdtModifiers are the material condition modifiers.
	gdtModifiers = []string{"MMC", "LMC", "RFS"}
	// finishUnits are the units a surface roughness is written in.
	finishUnits = []string{"um", "uin"}
)

// GDTCharacteristics are the geometric characteristics a callout may
// name.
func GDTCharacteristics() []string {
	return slices.Concat(formTolerances, profileTolerances, datumTolerances)
}

// DrawingDimension is one toleranced dimension.
type DrawingDimension struct {
	Feature        string   `json:"feature" jsonschema:"what is measured (overall length, bore diameter, hole spacing)"`
	Nominal        *float64 `json:"nominal" jsonschema:"the nominal value, in unit"`
	Unit           string   `json:"unit" jsonschema:"a length (mm, in) or an angle (deg)"`
	PlusTolerance  *float64 `json:"plus_tolerance" jsonschema:"how far above nominal it may be, in unit (>= 0)"`
	MinusTolerance *float64 `json:"minus_tolerance" jsonschema:"how far below nominal it may be, in unit, as a magnitude (>= 0)"`
}

// GDTCallout is one geometric tolerance.
type GDTCallout struct {
	Characteristic string   `json:"characteristic" jsonschema:"flatness, straightness, circularity, cylindricity, profile_of_a_line, profile_of_a_surface, perpendicularity, angularity, parallelism, position, concentricity, symmetry, circular_runout or total_runout"`
	Feature        string   `json:"feature" jsonschema:"the feature controlled (mounting face, bore)"`
	Tolerance      *float64 `json:"tolerance" jsonschema:"the tolerance zone, in unit (> 0)"`
	Unit           string   `json:"unit" jsonschema:"a length (mm, in)"`
	Datums         []string `json:"datums,omitempty" jsonschema:"datum references in order (A, B, C): required for orientation, location and runout, refused for form"`
	Modifier       string   `json:"modifier,omitempty" jsonschema:"material condition: MMC, LMC or RFS"`
}

// SurfaceFinish is the roughness a surface must meet.
type SurfaceFinish struct {
	Ra       *float64 `json:"ra" jsonschema:"the arithmetic mean roughness Ra, at most"`
	Unit     string   `json:"unit" jsonschema:"um or uin"`
	Surfaces string   `json:"surfaces,omitempty" jsonschema:"where it applies (all machined surfaces, the bearing bore)"`
}

// InspectionRequirement is one thing inspection must check.
type InspectionRequirement struct {
	Characteristic string `json:"characteristic" jsonschema:"what is checked (bore diameter, position of the mounting holes)"`
	Method         string `json:"method" jsonschema:"how (CMM, bore gauge, caliper, surface profilometer)"`
	Sampling       string `json:"sampling,omitempty" jsonschema:"how many (100%, first article, 1 in 10)"`
}

// TechnicalDrawing is the content of a technical drawing.
type TechnicalDrawing struct {
	PartRef          string                  `json:"part_ref" jsonschema:"the part drawn: its item ref (CAD-BRACKET@2, or CAD-BRACKET for the current revision) or node id"`
	DrawingNumber    string                  `json:"drawing_number,omitempty" jsonschema:"the drawing's number, if the shop numbers drawings"`
	GeneralTolerance string                  `json:"general_tolerance,omitempty" jsonschema:"the tolerance of untoleranced dimensions (ISO 2768-m)"`
	Dimensions       []DrawingDimension      `json:"dimensions" jsonschema:"the toleranced dimensions"`
	GDT              []GDTCallout            `json:"gdt,omitempty" jsonschema:"geometric tolerances"`
	SurfaceFinish    *SurfaceFinish          `json:"surface_finish,omitempty"`
	Inspection       []InspectionRequirement `json:"inspection" jsonschema:"what inspection must check"`
}

// DocumentType implements TypedDocument.
func (TechnicalDrawing) DocumentType() string { return "technical_drawing" }

// Check implements TypedDocument.
func (d TechnicalDrawing) Check() error {
	if blank(d.PartRef) {
		return Refusef("part_ref is blank: name the part drawn (its item ref, CAD-BRACKET@2, or node id)")
	}
	if len(d.Dimensions) == 0 {
		return Refusef("dimensions is empty: give the toleranced dimensions (feature, nominal, unit, plus_tolerance, minus_tolerance)")
	}
	for i, m := range d.Dimensions {
		if err := m.check(i); err != nil {
			return err
		}
	}
	for i, g := range d.GDT {
		if err := g.check(i); err != nil {
			return err
		}
	}
	if f := d.SurfaceFinish; f != nil {
		switch {
		case f.Ra == nil || !finite(*f.Ra) || *f.Ra <= 0:
			return Refusef("surface_finish.ra must be a number > 0 (the Ra the surface must not exceed)")
		case !slices.Contains(finishUnits, units.Normalize(strings.TrimSpace(f.Unit))):
			return Refusef("surface_finish.unit %q; use um or uin", f.Unit)
		}
	}
	if len(d.Inspection) == 0 {
		return Refusef("inspection is empty: say what inspection must check (characteristic, method), at least the critical dimensions")
	}
	for i, r := range d.Inspection {
		if blank(r.Characteristic) || blank(r.Method) {
			return Refusef("inspection[%d] needs characteristic and method (what is checked, and how)", i)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// check refuses a dimension without a feature, a nominal, a length or
// angle unit, or a tolerance band; or a length whose lower limit is not
// above zero.
func (m DrawingDimension) check(i int) error {
	if blank(m.Feature) {
		return Refusef("dimensions[%d].feature is blank: say what is measured", i)
	}
	if m.Nominal == nil || !finite(*m.Nominal) {
		return Refusef("dimensions[%d] (%s): nominal must be a number", i, m.Feature)
	}
	dim, err := units.Dimension(strings.TrimSpace(m.Unit))
	if err != nil || dim != units.Length && dim != units.Angle {
		return Refusef("dimensions[%d] (%s): unit %q; a drawing dimension is a length (mm, in) or an angle (deg)", i, m.Feature, m.Unit)
	}
	if m.PlusTolerance == nil || m.MinusTolerance == nil {
		return Refusef("dimensions[%d] (%s): give plus_tolerance and minus_tolerance (a dimension without a tolerance cannot be made or inspected)", i, m.Feature)
	}
	plus, minus := *m.PlusTolerance, *m.MinusTolerance
	switch {
	case !finite(plus) || !finite(minus) || plus < 0 || minus < 0:
		return Refusef("dimensions[%d] (%s): tolerances are magnitudes >= 0 (plus above nominal, minus below it)", i, m.Feature)
	case plus+minus == 0:
		return Refusef("dimensions[%d] (%s): the tolerance band is zero; nothing can be made to an exact size", i, m.Feature)
	case dim == units.Length && *m.Nominal-minus <= 0:
		return Refusef("dimensions[%d] (%s): the lower limit %s %s is not above zero", i, m.Feature, units.Format(*m.Nominal-minus), m.Unit)
	}
	return nil
}

// check refuses a callout with an unknown characteristic, no feature, a
// tolerance not > 0, a unit not a length, datums where it takes none or
// none where it needs them, a datum named twice, or an unknown modifier.
func (g GDTCallout) check(i int) error {
	c := g.Characteristic
	if !slices.Contains(GDTCharacteristics(), c) {
		return Refusef("gdt[%d]: characteristic %q; use one of %s", i, c, strings.Join(GDTCharacteristics(), ", "))
	}
	if blank(g.Feature) {
		return Refusef("gdt[%d] (%s): feature is blank: say which feature it controls", i, c)
	}
	if g.Tolerance == nil || !finite(*g.Tolerance) || *g.Tolerance <= 0 {
		return Refusef("gdt[%d] (%s of %s): tolerance must be a number > 0", i, c, g.Feature)
	}
	if dim, err := units.Dimension(strings.TrimSpace(g.Unit)); err != nil || dim != units.Length {
		return Refusef("gdt[%d] (%s of %s): unit %q; a tolerance zone is a length (mm, in)", i, c, g.Feature, g.Unit)
	}
	switch {
	case slices.Contains(formTolerances, c) && len(g.Datums) > 0:
		return Refusef("gdt[%d]: %s is a form tolerance and takes no datum; leave datums out", i, c)
	case slices.Contains(datumTolerances, c) && len(g.Datums) == 0:
		return Refusef("gdt[%d]: %s of %s needs at least one datum (A, B, C)", i, c, g.Feature)
	}
	seen := map[string]bool{}
	for _, d := range g.Datums {
		d = strings.TrimSpace(d)
		if d == "" || strings.IndexFunc(d, func(r rune) bool { return (r < 'A' || r > 'Z') && r != '-' }) >= 0 {
			return Refusef("gdt[%d] (%s of %s): datum %q; name datums by capital letters (A, B, A-B)", i, c, g.Feature, d)
		}
		if seen[d] {
			return Refusef("gdt[%d] (%s of %s): datum %s is named twice", i, c, g.Feature, d)
		}
		seen[d] = true
	}
	if g.Modifier != "" && !slices.Contains(gdtModifiers, g.Modifier) {
		return Refusef("gdt[%d] (%s of %s): modifier %q; use MMC, LMC or RFS", i, c, g.Feature, g.Modifier)
	}
	return nil
}

// Markdown implements TypedDocument.
func (d TechnicalDrawing) Markdown(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nTechnical drawing of %s", title, strings.TrimSpace(d.PartRef))
	if !blank(d.DrawingNumber) {
		fmt.Fprintf(&b, ", drawing %s", strings.TrimSpace(d.DrawingNumber))
	}
	b.WriteString(".")
	if !blank(d.GeneralTolerance) {
		fmt.Fprintf(&b, " General tolerance: %s.", strings.TrimSpace(d.GeneralTolerance))
	}
	b.WriteString("\n\n## Dimensions\n\n| Feature | Nominal | Tolerance | Limits | Unit |\n| --- | --- | --- | --- | --- |\n")
	for _, m := range d.Dimensions {
		n, p, q := *m.Nominal, *m.PlusTolerance, *m.MinusTolerance
		fmt.Fprintf(&b, "| %s | %s | +%s / -%s | %s to %s | %s |\n", mdCell(m.Feature), units.Format(n), units.Format(p), units.Format(q),
			units.Format(units.RoundSig(n-q, 12)), units.Format(units.RoundSig(n+p, 12)), mdCell(m.Unit))
	}
	if len(d.GDT) > 0 {
		b.WriteString("\n## Geometric tolerances\n\n| Characteristic | Feature | Tolerance | Datums | Modifier |\n| --- | --- | --- | --- | --- |\n")
		for _, g := range d.GDT {
			fmt.Fprintf(&b, "| %s | %s | %s %s | %s | %s |\n", g.Characteristic, mdCell(g.Feature), units.Format(*g.Tolerance), mdCell(g.Unit),
				mdCell(strings.Join(g.Datums, ", ")), mdCell(g.Modifier))
		}
	}
	if f := d.SurfaceFinish; f != nil {
		fmt.Fprintf(&b, "\n## Surface finish\n\nRa %s %s at most", units.Format(*f.Ra), f.Unit)
		if !blank(f.Surfaces) {
			fmt.Fprintf(&b, " on %s", strings.TrimSpace(f.Surfaces))
		}
		b.WriteString(".\n")
	}
	b.WriteString("\n## Inspection\n\n| Characteristic | Method | Sampling |\n| --- | --- | --- |\n")
	for _, r := range d.Inspection {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(r.Characteristic), mdCell(r.Method), mdCell(r.Sampling))
	}
	return b.String()
}

// Summary implements TypedDocument: the counts, and the tightest length
// dimension (the smallest tolerance band, compared in mm).
func (d TechnicalDrawing) Summary() map[string]any {
	out := map[string]any{"part_ref": strings.TrimSpace(d.PartRef), "dimensions": float64(len(d.Dimensions)), "gdt_callouts": float64(len(d.GDT)),
		"inspection_requirements": float64(len(d.Inspection)), "surface_finish": d.SurfaceFinish != nil}
	best := math.Inf(1)
	for _, m := range d.Dimensions {
		bandMM, err := units.Convert(*m.PlusTolerance+*m.MinusTolerance, strings.TrimSpace(m.Unit), "mm")
		if err != nil || bandMM >= best {
			continue // an angle, or a wider band
		}
		best = bandMM
		out["tightest_dimension"] = map[string]any{"feature": strings.TrimSpace(m.Feature), "band_mm": bandMM}
	}
	return out
}

// Concerns implements TypedDocument: the part drawn.
func (d TechnicalDrawing) Concerns() []string { return []string{strings.TrimSpace(d.PartRef)} }
