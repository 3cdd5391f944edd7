package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// A load case is a reusable FEA boundary condition: which part, held
// where, loaded how, and why. It names the part's item (KEY), not a
// revision, and its faces by geometry (an outward normal and a point near
// the face), not by a mesher's face number: it applies to whatever revision
// of the part is current when an analysis runs, however that revision
// happens to be meshed.

// ItemTypeLoadCase is the item type of a recorded load case.
const ItemTypeLoadCase = "load_case"

// Load case statuses: a draft (from a goal's text) lacks what a solve
// needs; a ready one is solved by a design flow's analysis phase.
const (
	LoadCaseDraft = "draft"
	LoadCaseReady = "ready"
)

// FaceSelector picks a face by geometry: the face whose outward normal is
// within MaxAngleDeg of Normal and, among those, whose area is nearest
// PointMM (or, without a point, the one furthest out along Normal).
type FaceSelector struct {
	Normal  [3]float64  `json:"normal" jsonschema:"the face's outward normal in the part's frame, e.g. [0, 0, 1] for a top face"`
	PointMM *[3]float64 `json:"point_mm,omitempty" jsonschema:"a point on or near the face, mm; without it the face furthest out along normal is taken"`
}

// LoadSource is where a load case's load comes from.
type LoadSource struct {
	Kind string `json:"kind" jsonschema:"requirement, standard, hand_estimate or intent"`
	Ref  string `json:"ref,omitempty" jsonschema:"the requirement (KEY@n), the standard's clause, or the text the load came from"`
	Note string `json:"note,omitempty"`
}

// LoadSourceKinds are the sources a load may come from.
var LoadSourceKinds = []string{"requirement", "standard", "hand_estimate", "intent"}

// LoadCase is a load case's content.
type LoadCase struct {
	Name string `json:"name"`
	// Part is the cad_model item the case is about (KEY): its current
	// revision is analysed. A draft may not name it yet.
	Part     string        `json:"part,omitempty" jsonschema:"the cad_model item (its KEY, not KEY@n): whatever revision is current is analysed"`
	Material string        `json:"material,omitempty" jsonschema:"the material to analyse with; default the part revision's own"`
	Fixture  *FaceSelector `json:"fixture,omitempty" jsonschema:"the face held fixed"`
	LoadFace *FaceSelector `json:"load_face,omitempty" jsonschema:"the face the load is spread over"`
	ForceN   *float64      `json:"force_n,omitempty" jsonschema:"the total load, N (give force_n or pressure_mpa)"`
	// PressureMPa is turned into a force on the face's area when solved.
	PressureMPa *float64    `json:"pressure_mpa,omitempty" jsonschema:"a uniform pressure on load_face, MPa (N/mm^2)"`
	Direction   *[3]float64 `json:"direction,omitempty" jsonschema:"the load's direction; default into load_face (minus its normal)"`
	Source      LoadSource  `json:"source"`
	// Verifies is the requirement (KEY or KEY@n) whose check the case feeds.
	Verifies     string   `json:"verifies,omitempty"`
	Status       string   `json:"status,omitempty" jsonschema:"ready (default) or draft: a draft is kept, not solved"`
	MeshSizeMM   *float64 `json:"mesh_size_mm,omitempty" jsonschema:"element size for the analysis mesh; default gmsh.generate_mesh's"`
	ElementOrder int      `json:"element_order,omitempty" jsonschema:"2 (C3D10, default) or 1"`
}

// LoadCaseTarget is a recorded load case resolved against the project as
// it is now: the current revision of its part and that revision's STEP,
// written where the mesher can read it.
type LoadCaseTarget struct {
	Case RecordedLoadCase `json:"case"`
	// PartRef is the part's current revision (KEY@n): what the solve's
	// evidence is valid against.
	PartRef string `json:"part_ref"`
	// StepFile is the revision's STEP in the workspace, named by its
	// content hash; StepSHA256 is that hash.
	StepFile   string `json:"step_file"`
	StepSHA256 string `json:"step_sha256"`
	// Material is the case's, or else the revision's own.
	Material string `json:"material,omitempty"`
}

// LoadCaseWrite records a load case as the next revision of its item.
type LoadCaseWrite struct {
	Project Project
	Case    LoadCase
	WriteInfo
}

// RecordedLoadCase is a load case as the twin holds it.
type RecordedLoadCase struct {
	Ref string `json:"load_case"` // KEY@n
	LoadCase
}

// Check refuses a load case that could not be solved as written, naming
// what to fix. A draft needs only a name, a part and a load.
func (c *LoadCase) Check() error {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return Refusef("Missing: name. Name the load case (e.g. \"shelf load\")")
	}
	if c.Status == "" {
		c.Status = LoadCaseReady
	}
	if c.Status != LoadCaseReady && c.Status != LoadCaseDraft {
		return Refusef("status %q is not ready or draft", c.Status)
	}
	if strings.TrimSpace(c.Part) == "" && c.Status == LoadCaseReady {
		return Refusef("Missing: part. Name the cad_model item the load case is about (its KEY, from twin.commit_geometry); a load case with no part yet is a draft")
	}
	switch {
	case c.ForceN == nil && c.PressureMPa == nil:
		return Refusef("Missing: force_n or pressure_mpa. Give the load as a total force in N or a pressure in MPa (a mass m held is a force m x 9.80665 N)")
	case c.ForceN != nil && c.PressureMPa != nil:
		return Refusef("give force_n or pressure_mpa, not both: which one is the load?")
	case c.ForceN != nil && !(*c.ForceN > 0):
		return Refusef("force_n %g must be positive: give its direction in direction", *c.ForceN)
	case c.PressureMPa != nil && !(*c.PressureMPa > 0):
		return Refusef("pressure_mpa %g must be positive: it presses into load_face", *c.PressureMPa)
	}
	if !slices.Contains(LoadSourceKinds, c.Source.Kind) {
		return Refusef("source.kind %q is not one of %s: say where the load comes from", c.Source.Kind, strings.Join(LoadSourceKinds, ", "))
	}
	if c.ElementOrder != 0 && c.ElementOrder != 1 && c.ElementOrder != 2 {
		return Refusef("element_order %d is not 1 (C3D4) or 2 (C3D10)", c.ElementOrder)
	}
	if c.MeshSizeMM != nil && !(*c.MeshSizeMM > 0) {
		return Refusef("mesh_size_mm %g must be positive", *c.MeshSizeMM)
	}
	for name, sel := range map[string]*FaceSelector{"fixture": c.Fixture, "load_face": c.LoadFace} {
		if sel == nil {
			if c.Status == LoadCaseReady {
				return Refusef("Missing: %s. A ready load case picks its faces by geometry ({normal, point_mm}, as gmsh.list_named_faces reports them); record it as status draft until they are known", name)
			}
			continue
		}
		if norm(sel.Normal) < 1e-9 {
			return Refusef("%s.normal %v has no direction: give the face's outward normal, e.g. [0, 0, 1]", name, sel.Normal)
		}
	}
	if c.Direction != nil && norm(*c.Direction) < 1e-9 {
		return Refusef("direction %v has no direction: give a non-zero vector, or leave it out to press into load_face", *c.Direction)
	}
	return nil
}

// RecordLoadCase records a load case about a part of the project: a
// cad_model item, or the KEY one will be committed under (a load case is
// usually known before the part is designed). The requirement it
// verifies, when named, must exist.
func RecordLoadCase(ctx context.Context, s Store, w LoadCaseWrite) (Node, Item, error) {
	c := w.Case
	if err := c.Check(); err != nil {
		return Node{}, Item{}, err
	}
	// A part not designed yet is named by the KEY it will be committed
	// under; one that exists must be a cad_model.
	c.Part = strings.TrimSpace(c.Part)
	if c.Part != "" {
		part, err := s.GetItem(ctx, w.Project.ID, c.Part)
		switch {
		case err == nil && part.ItemType != "cad_model":
			return Node{}, Item{}, Refusef("part %q is a %s, not a cad_model: name the item twin.commit_geometry commits the part's geometry under", c.Part, part.ItemType)
		case err != nil && !errors.Is(err, ErrNotFound):
			return Node{}, Item{}, err
		}
	}
	var links []Link
	if c.Verifies != "" {
		req, err := ResolveRef(ctx, s, w.Project.ID, c.Verifies)
		if err != nil {
			return Node{}, Item{}, Refusef("verifies %q names no requirement of this project: %v", c.Verifies, err)
		}
		links = append(links, Link{Type: EdgeVerifies, To: req.ID, Properties: map[string]any{"ref": req.Ref()}})
	}
	props, err := loadCaseProps(c)
	if err != nil {
		return Node{}, Item{}, err
	}
	return s.CommitRevision(ctx, w.Revision(w.Project.ID, ItemTypeLoadCase, c.Name, props, links))
}

// LoadCases are the current revisions of the project's load cases.
func LoadCases(ctx context.Context, s Store, projectID string) ([]RecordedLoadCase, error) {
	heads, err := HeadRevisions(ctx, s, projectID, ItemTypeLoadCase)
	if err != nil {
		return nil, err
	}
	out := make([]RecordedLoadCase, 0, len(heads))
	for _, n := range heads {
		c, err := loadCaseOf(n)
		if err != nil {
			return nil, err
		}
		out = append(out, RecordedLoadCase{Ref: n.Ref(), LoadCase: c})
	}
	return out, nil
}

// loadCaseProps stores a load case as the revision's properties, one
// property per field, as JSON where a field is a structure.
func loadCaseProps(c LoadCase) (map[string]any, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	props := map[string]any{}
	if err := json.Unmarshal(b, &props); err != nil {
		return nil, err
	}
	return props, nil
}

func loadCaseOf(n Node) (LoadCase, error) {
	b, err := json.Marshal(n.Properties)
	if err != nil {
		return LoadCase{}, err
	}
	var c LoadCase
	if err := json.Unmarshal(b, &c); err != nil {
		return LoadCase{}, fmt.Errorf("load case %s cannot be read: %w", n.Ref(), err)
	}
	return c, nil
}

func norm(v [3]float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }
