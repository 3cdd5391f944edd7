package gmsh

import (
	"bufio"
	"fmt"
	"github.com/metaforge/metaforge/internal/vec3"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/meshfile"
)

// stepLink is the name the input is linked under in gmsh's working folder:
// gmsh picks its reader by extension, so whatever the file is called it is
// read as STEP, and no path of the caller's is quoted into the script.
const stepLink = "input.step"

// curvatureElements is the number of elements gmsh puts around a full
// circle of a curved face (Mesh.MeshSizeFromCurvature), so a hole or
// fillet smaller than mesh_size_mm is still resolved.
const curvatureElements = 12

// geoScript writes the .geo gmsh runs. It reads the STEP with the OCC
// kernel in millimetres, stops at the first error, names one physical
// surface Face<tag> per boundary surface of the solids (tag: gmsh's surface
// tag) and one physical volume SOLID, and prints the part's bounding box
// and the element size used on "metaforge-" lines that parseReport reads.
//
// With no mesh_size_mm the size is the part's smallest bounding-box extent
// / 3, but no finer than its largest extent / 100 (so a thin plate does not
// become millions of elements), and at least mesh_size_min_mm.
func geoScript(j meshJob) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var b strings.Builder
	b.WriteString(`// Written by the MetaForge gmsh adapter.
SetFactory("OpenCASCADE");
General.AbortOnError = 4;
Geometry.OCCTargetUnit = "MM";
Merge "` + stepLink + `";
solids() = Volume{:};
If (#solids() == 0)
  Error("metaforge: the file holds no solid volume (only surfaces, curves or points); export the part as a solid");
EndIf
faces() = Unique(Abs(Boundary{ Volume{solids()}; }));
BoundingBox;
Printf("metaforge-bbox: %.17g %.17g %.17g %.17g %.17g %.17g", General.MinX, General.MinY, General.MinZ, General.MaxX, General.MaxY, General.MaxZ);
`)
	fmt.Fprintf(&b, "size = %s;\nsizeMin = %s;\n", num(j.size), num(j.sizeMin))
	b.WriteString(`If (size <= 0)
  dx = General.MaxX - General.MinX;
  dy = General.MaxY - General.MinY;
  dz = General.MaxZ - General.MinZ;
  size = Max(Min(dx, Min(dy, dz)) / 3, Max(dx, Max(dy, dz)) / 100);
  size = Max(size, sizeMin);
EndIf
Printf("metaforge-size: %.17g", size);
Mesh.MeshSizeMax = size;
If (sizeMin > 0)
  Mesh.MeshSizeMin = sizeMin;
EndIf
`)
	fmt.Fprintf(&b, "Mesh.MeshSizeFromCurvature = %d;\nMesh.ElementOrder = %d;\n", curvatureElements, j.order)
	b.WriteString(`Mesh.SaveGroupsOfNodes = 1;
For i In {0:#faces()-1}
  Physical Surface(Sprintf("Face%.0f", faces(i))) = {faces(i)};
EndFor
Physical Volume("SOLID") = {solids()};
`)
	return b.String()
}

// report is what the script printed about the part: its bounding box (as
// OpenCASCADE computes it, widened by its 1e-7 mm tolerance) and the
// largest element size used.
type report struct {
	part meshfile.BBox
	size float64
}

// parseReport reads the script's "metaforge-" lines from gmsh's stdout.
// Both must be there: without them the script did not run as written.
func parseReport(stdout string) (report, error) {
	var (
		r                report
		hasBBox, hasSize bool
	)
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		key, rest, ok := strings.Cut(strings.TrimSpace(sc.Text()), ": ")
		if !ok {
			continue
		}
		switch key {
		case "metaforge-bbox":
			var b [6]float64
			f := strings.Fields(rest)
			hasBBox = len(f) == len(b)
			for i := 0; hasBBox && i < len(b); i++ {
				var err error
				b[i], err = strconv.ParseFloat(f[i], 64)
				hasBBox = err == nil
			}
			r.part = meshfile.BBox{Min: vec3.V{b[0], b[1], b[2]}, Max: vec3.V{b[3], b[4], b[5]}}
		case "metaforge-size":
			var err error
			r.size, err = strconv.ParseFloat(strings.TrimSpace(rest), 64)
			hasSize = err == nil && r.size > 0
		}
	}
	if !hasBBox || !hasSize {
		return r, fmt.Errorf("gmsh did not report the part's bounding box and element size")
	}
	return r, nil
}
