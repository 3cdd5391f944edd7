package gazebo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

const validateDescription = "Validate an SDFormat file (.sdf model or .world) with libsdformat, the parser Gazebo loads it with " +
	"(sdf::Root::Load through metaforge-sdfcheck; Gazebo itself is not installed, so nothing is simulated). " +
	"Returns valid, sdf_version (as the file declares it), libsdformat_version, errors ([{code, message}] as libsdformat " +
	"returned them, e.g. JOINT_PARENT_LINK_INVALID for a joint whose parent names no link), messages (warnings and XML " +
	"error details libsdformat printed, such as an element SDF does not define), worlds ([{name, gravity_m_s2, models}]) " +
	"and models: every model, a world's tagged with its world and nested ones named outer::inner, each with its links " +
	"(name, mass_kg, inertia_kg_m2 {ixx, iyy, izz, ixy, ixz, iyz} about the centre of mass, inertial_pose, pose, " +
	"pose_in_model, visual and collision counts) and joints (name, type, parent, child, axis {xyz, xyz_in_model, lower, " +
	"upper, effort, velocity} or null, pose). A file libsdformat rejects is a result with valid false and its errors, " +
	"not a failed call; a file that does not exist or is not .sdf or .world is refused. <include>s are followed inside the read " +
	"roots only: one that leads outside them or climbs with .. is refused, and libsdformat's model search paths are not used, so " +
	"a model:// URI is found beside the file or reported as URI_LOOKUP. Reads only."

type validateArgs struct {
	File string `json:"file" jsonschema:"Path of an SDFormat file (.sdf or .world) inside the workspace, e.g. one cadquery.export_sdf wrote; a relative path is taken from the workspace root."`
}

var validateInputSchema = adapters.SchemaFor[validateArgs](
	adapters.At("file", adapters.MinLength(1)),
)

// ValidateResult is gazebo.validate_world's answer.
type ValidateResult struct {
	File           string     `json:"file"`
	Valid          bool       `json:"valid"`
	SDFVersion     string     `json:"sdf_version"`
	LibraryVersion string     `json:"libsdformat_version"`
	Errors         []SDFError `json:"errors"`
	Messages       []Message  `json:"messages"`
	Worlds         []World    `json:"worlds"`
	Models         []Model    `json:"models"`
}

// World is one <world>: its gravity and the names of its models (which
// are in the result's models, tagged with the world).
type World struct {
	Name       string    `json:"name"`
	GravityMS2 []float64 `json:"gravity_m_s2"`
	Models     []string  `json:"models"`
}

// Model is one <model> with its links and joints.
type Model struct {
	// Name is scoped for a nested model: outer::inner.
	Name string `json:"name"`
	// World is the world the model is in; absent for a model file.
	World         string  `json:"world,omitempty"`
	Static        bool    `json:"static"`
	CanonicalLink string  `json:"canonical_link"`
	Pose          Pose    `json:"pose"`
	Links         []Link  `json:"links"`
	Joints        []Joint `json:"joints"`
}

// sdfExts are the names an SDFormat file goes by.
var sdfExts = []string{".sdf", ".world"}

func (a *Adapter) validateWorld(ctx context.Context, raw json.RawMessage) (*ValidateResult, error) {
	var in validateArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	file, err := a.sdfFile("file", in.File)
	if err != nil {
		return nil, err
	}
	if err := a.screenIncludes("file", file); err != nil {
		return nil, err
	}
	r, err := a.check(ctx, file)
	if err != nil {
		return nil, err
	}
	out := &ValidateResult{File: file, Valid: r.Valid, SDFVersion: r.SDFVersion, LibraryVersion: r.LibraryVersion,
		Errors: nonNil(r.Errors), Messages: nonNil(r.Messages), Worlds: []World{}, Models: []Model{}}
	for _, w := range r.Worlds {
		world := World{Name: w.Name, GravityMS2: nonNil(w.Gravity), Models: []string{}}
		for _, m := range w.Models {
			world.Models = append(world.Models, m.Name)
			out.Models = flatten(out.Models, m, "", w.Name)
		}
		out.Worlds = append(out.Worlds, world)
	}
	for _, m := range r.Models {
		out.Models = flatten(out.Models, m, "", "")
	}
	return out, nil
}

// sdfFile checks the file argument before anything runs: inside the read
// roots, an .sdf or .world name, and readable by this process.
func (a *Adapter) sdfFile(what, path string) (string, error) {
	real, err := a.ws.ResolveRead(what, path)
	if err != nil {
		return "", err
	}
	ext := strings.ToLower(filepath.Ext(real))
	if ext != sdfExts[0] && ext != sdfExts[1] {
		return "", protocol.Invalid("%s %q is not an SDFormat file: give a .sdf model or a .world (cadquery.export_sdf writes both)", what, path)
	}
	f, err := os.Open(real)
	if err != nil {
		return "", protocol.Invalid("%s %q cannot be read (%v); make it readable by the MetaForge server", what, path, err)
	}
	f.Close()
	return real, nil
}

// flatten appends m, then the models nested in it with scoped names, to out.
func flatten(out []Model, m reportModel, scope, world string) []Model {
	name := m.Name
	if scope != "" {
		name = scope + "::" + m.Name
	}
	out = append(out, Model{Name: name, World: world, Static: m.Static, CanonicalLink: m.CanonicalLink, Pose: m.Pose,
		Links: nonNil(m.Links), Joints: nonNil(m.Joints)})
	for _, n := range m.Models {
		out = flatten(out, n, name, world)
	}
	return out
}

// nonNil is s, or an empty list: the result's lists are never null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

const poseSchema = `{"type": "object", "additionalProperties": false, "required": ["xyz", "rpy"], "properties": {
      "xyz": {"type": "array", "items": {"type": ["number", "null"]}, "minItems": 3, "maxItems": 3, "description": "Position, m."},
      "rpy": {"type": "array", "items": {"type": ["number", "null"]}, "minItems": 3, "maxItems": 3, "description": "Roll, pitch, yaw, rad."}}}`

const axisSchema = `{"type": ["object", "null"], "additionalProperties": false, "required": ["xyz", "expressed_in", "lower", "upper", "effort", "velocity"], "properties": {
      "xyz": {"type": "array", "items": {"type": ["number", "null"]}, "minItems": 3, "maxItems": 3},
      "expressed_in": {"type": "string", "description": "Frame xyz is written in; empty is the joint frame."},
      "xyz_in_model": {"type": "array", "items": {"type": ["number", "null"]}, "minItems": 3, "maxItems": 3},
      "lower": {"type": ["number", "null"]}, "upper": {"type": ["number", "null"]},
      "effort": {"type": ["number", "null"], "description": "null: not limited."}, "velocity": {"type": ["number", "null"], "description": "null: not limited."}}}`

const validateOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["file", "valid", "sdf_version", "libsdformat_version", "errors", "messages", "worlds", "models"],
  "properties": {
    "file": {"type": "string", "description": "Absolute path of the file checked."},
    "valid": {"type": "boolean", "description": "true when libsdformat loaded the file without an error."},
    "sdf_version": {"type": "string", "description": "The SDF version the file declares (empty when it could not be read)."},
    "libsdformat_version": {"type": "string"},
    "errors": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["code", "message"], "properties": {
      "code": {"type": "string", "description": "libsdformat's sdf::ErrorCode name."}, "message": {"type": "string"},
      "file": {"type": "string"}, "line": {"type": "integer"}, "xml_path": {"type": "string"}}}},
    "messages": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["level", "text"], "properties": {
      "level": {"type": "string", "enum": ["error", "warning", "info", "dbg"]}, "text": {"type": "string"}}}},
    "worlds": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["name", "gravity_m_s2", "models"], "properties": {
      "name": {"type": "string"},
      "gravity_m_s2": {"type": "array", "items": {"type": ["number", "null"]}},
      "models": {"type": "array", "items": {"type": "string"}}}}},
    "models": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["name", "static", "canonical_link", "pose", "links", "joints"], "properties": {
      "name": {"type": "string"}, "world": {"type": "string"}, "static": {"type": "boolean"}, "canonical_link": {"type": "string"},
      "pose": ` + poseSchema + `,
      "links": {"type": "array", "items": {"type": "object", "additionalProperties": false,
        "required": ["name", "mass_kg", "inertia_kg_m2", "inertial_pose", "pose", "pose_relative_to", "pose_in_model", "visual_count", "collision_count"], "properties": {
        "name": {"type": "string"},
        "mass_kg": {"type": "number"},
        "inertia_kg_m2": {"type": "object", "additionalProperties": false, "required": ["ixx", "iyy", "izz", "ixy", "ixz", "iyz"], "properties": {
          "ixx": {"type": "number"}, "iyy": {"type": "number"}, "izz": {"type": "number"},
          "ixy": {"type": "number"}, "ixz": {"type": "number"}, "iyz": {"type": "number"}}},
        "inertial_pose": ` + poseSchema + `,
        "pose": ` + poseSchema + `,
        "pose_relative_to": {"type": "string"},
        "pose_in_model": {"anyOf": [{"type": "null"}, ` + poseSchema + `]},
        "visual_count": {"type": "integer", "minimum": 0},
        "collision_count": {"type": "integer", "minimum": 0}}}},
      "joints": {"type": "array", "items": {"type": "object", "additionalProperties": false,
        "required": ["name", "type", "parent", "child", "axis", "pose", "pose_relative_to"], "properties": {
        "name": {"type": "string"}, "type": {"type": "string"}, "parent": {"type": "string"}, "child": {"type": "string"},
        "axis": ` + axisSchema + `, "axis2": ` + axisSchema + `,
        "pose": ` + poseSchema + `, "pose_relative_to": {"type": "string"}}}}}}}
  }
}`
