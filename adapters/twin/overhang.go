package twin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// OverhangEngine describes an overhang check as the durable process that
// runs it: the mesh's face table is read (gmsh.list_named_faces, a solver
// call), then the check is recorded; the call's workflow runs that process
// as its child.
type OverhangEngine interface {
	OverhangProcess(c twin.OverhangCall) (adapters.Process, error)
}

func evaluateOverhangMetricTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.evaluate_overhang_metric", Name: "Check 3D-print overhangs", Capability: "twin_write",
		Description: "Design-for-manufacture check for 3D printing: read the named-face table of a work product's mesh (gmsh.list_named_faces " +
			"on mesh_file, as a durable child call: each face's area and area-averaged normal) and flag the faces that lean more than " +
			"threshold_deg (default 45, the usual FDM self-supporting angle) from the vertical build_axis (default +Z) as unsupported " +
			"overhangs. Records the flagged area as evidence (metric overhang_area, mm2) pinned to the work product's revision, with " +
			"every face's tilt in its data. Undirected on purpose: a face normal may not point out of the part, so a flat top is " +
			"flagged as a ceiling would be; faces with no mean direction (a full cylinder) are named, not judged. Advisory: no gate reads it.",
		Idempotent: true, TimeoutSeconds: 300}, evaluateOverhangMetric,
		adapters.At("work_product_id", adapters.MinLength(1)),
		adapters.At("mesh_file", adapters.MinLength(1)),
		adapters.At("threshold_deg", adapters.ExclusiveMinimum(0), adapters.ExclusiveMaximum(90), adapters.Default(twin.DefaultOverhangDeg)),
		adapters.At("build_axis", adapters.MinItems(3), adapters.MaxItems(3), adapters.Default([]float64{0, 0, 1})))
}

type evaluateOverhangMetricArgs struct {
	project.Scope
	WorkProductID string    `json:"work_product_id"`
	MeshFile      string    `json:"mesh_file" jsonschema:"the work product's mesh: the mesh_file gmsh.generate_mesh returned"`
	ThresholdDeg  *float64  `json:"threshold_deg,omitempty" jsonschema:"the self-supporting angle, degrees from the vertical"`
	BuildAxis     []float64 `json:"build_axis,omitempty" jsonschema:"the printer's vertical in the part's frame, [x, y, z]"`
}

func evaluateOverhangMetric(ctx context.Context, b *Backend, a evaluateOverhangMetricArgs) (any, error) {
	if b.Overhangs == nil {
		return nil, protocol.Unavailable("an overhang check needs Temporal, which this server is not connected to")
	}
	c := twin.OverhangCall{CallID: callID(ctx), WorkProductID: a.WorkProductID, MeshFile: a.MeshFile, ThresholdDeg: twin.DefaultOverhangDeg,
		BuildAxis: [3]float64{0, 0, 1}}
	if a.ThresholdDeg != nil {
		c.ThresholdDeg = *a.ThresholdDeg
	}
	if a.BuildAxis != nil {
		if len(a.BuildAxis) != 3 {
			return nil, protocol.Invalid("build_axis has %d numbers: give the vertical as [x, y, z]", len(a.BuildAxis))
		}
		c.BuildAxis = [3]float64(a.BuildAxis)
	}
	// The rule's own refusals (an axis of no length, an angle out of
	// range), before anything runs.
	if err := c.Check(); err != nil {
		return nil, classify(err)
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	c.ProjectID = p.ID
	if _, err := b.workProduct(ctx, p.ID, a.WorkProductID); err != nil {
		return nil, classify(err)
	}
	if b.Files != nil {
		if _, err := b.Files.ResolveRead("mesh_file", a.MeshFile); err != nil {
			return nil, err
		}
	}
	proc, err := b.Overhangs.OverhangProcess(c)
	if err != nil {
		return nil, err
	}
	return &adapters.Result{Process: &proc}, nil
}

// RecordOverhang checks the faces of a work product's mesh, as
// gmsh.list_named_faces gave them (faces), and records the flagged area
// as evidence pinned to the work product, keyed by the check's call.
func (b *Backend) RecordOverhang(ctx context.Context, c twin.OverhangCall, faceCallID string, faces json.RawMessage) (map[string]any, error) {
	var table struct {
		MeshFile string `json:"mesh_file"`
		Faces    []struct {
			Name    string     `json:"name"`
			AreaMM2 float64    `json:"area_mm2"`
			Normal  [3]float64 `json:"normal"`
		} `json:"faces"`
	}
	if err := json.Unmarshal(faces, &table); err != nil {
		return nil, fmt.Errorf("gmsh.list_named_faces's answer cannot be read: %w", err)
	}
	mesh := make([]twin.MeshFace, len(table.Faces))
	for i, f := range table.Faces {
		mesh[i] = twin.MeshFace{Name: f.Name, AreaMM2: f.AreaMM2, Normal: f.Normal}
	}
	o, err := twin.CheckOverhangs(mesh, c.BuildAxis, c.ThresholdDeg)
	if err != nil {
		return nil, asProtocolRefusal(err)
	}
	n, err := b.workProduct(ctx, c.ProjectID, c.WorkProductID)
	if err != nil {
		return nil, asProtocolRefusal(classify(err))
	}
	pin := n.Ref()
	if pin == "" {
		pin = n.ID
	}
	judged := make([]any, len(o.Faces))
	for i, f := range o.Faces {
		judged[i] = map[string]any{"name": f.Name, "area_mm2": f.AreaMM2, "tilt_deg": f.TiltDeg, "normal_dot_axis": f.AxisDot, "flagged": f.Flagged}
	}
	flagged, notJudged := nonNil(o.Flagged), nonNil(o.NotJudged)
	data := map[string]any{"threshold_deg": o.ThresholdDeg, "build_axis": o.BuildAxis[:], "flagged_faces": flagged,
		"flagged_area_mm2": o.FlaggedAreaMM2, "total_area_mm2": o.TotalAreaMM2, "faces": judged, "not_judged": notJudged,
		"undirected": true, "summary": o.Summary(), "mesh_file": table.MeshFile, "face_call_id": faceCallID,
		"method": "gmsh.list_named_faces (area-averaged face normals); tilt = asin |n . axis| from the vertical", "advisory": true}
	ctx = adapters.WithCallInfo(ctx, adapters.CallInfo{CallID: c.CallID + "/overhang"})
	out, err := recordEvidenceAs(ctx, b, map[string]any{"project_id": c.ProjectID, "kind": "analysis", "metric": "overhang_area",
		"name": fmt.Sprintf("3D-print overhangs past %g° of %s", o.ThresholdDeg, pin), "value": o.FlaggedAreaMM2, "unit": "mm2",
		"valid_against": []string{pin}, "data": data})
	if err != nil {
		return nil, err
	}
	return map[string]any{"evidence_id": out["node_id"], "work_product": pin, "overhang_area_mm2": o.FlaggedAreaMM2,
		"flagged_faces": flagged, "not_judged": notJudged, "faces": judged, "threshold_deg": o.ThresholdDeg,
		"build_axis": o.BuildAxis[:], "total_area_mm2": o.TotalAreaMM2, "undirected": true, "summary": o.Summary(),
		"face_call_id": faceCallID}, nil
}

// nonNil is names as a list that encodes as [] when empty.
func nonNil(names []string) []string {
	if names == nil {
		return []string{}
	}
	return names
}
