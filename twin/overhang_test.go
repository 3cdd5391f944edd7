package twin_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// A 40 x 20 x 10 box: its top and bottom lie flat (90° from the vertical,
// flagged at 45° either way up), its four sides stand (0°). A face whose
// plane rises 30° from horizontal has its normal 30° from the axis,
// (sin 30°, 0, cos 30°): it leans asin(cos 30°) = 60° from the vertical,
// flagged at 45° and 55°, not at 65°.
func TestOverhangsFlagFacesTiltedPastTheThreshold(t *testing.T) {
	s30, c30 := math.Sin(math.Pi/6), math.Cos(math.Pi/6)
	faces := []twin.MeshFace{
		{"Face1", 200, [3]float64{-1, 0, 0}}, {"Face2", 200, [3]float64{1, 0, 0}},
		{"Face3", 400, [3]float64{0, -1, 0}}, {"Face4", 400, [3]float64{0, 1, 0}},
		{"Face5", 800, [3]float64{0, 0, -1}}, {"Face6", 800, [3]float64{0, 0, 1}},
		{"Slope", 100, [3]float64{s30, 0, c30}},
		{"Bore", 300, [3]float64{0, 0, 0}},
	}
	o, err := twin.CheckOverhangs(faces, [3]float64{0, 0, 1}, twin.DefaultOverhangDeg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.Flagged, []string{"Face5", "Face6", "Slope"}) || o.FlaggedAreaMM2 != 1700 || o.TotalAreaMM2 != 2900 ||
		!reflect.DeepEqual(o.NotJudged, []string{"Bore"}) {
		t.Fatalf("at 45°: flagged %v (%g of %g mm2), not judged %v", o.Flagged, o.FlaggedAreaMM2, o.TotalAreaMM2, o.NotJudged)
	}
	const tol = 1e-9 // degrees
	for _, f := range o.Faces {
		want := map[string]float64{"Face1": 0, "Face2": 0, "Face3": 0, "Face4": 0, "Face5": 90, "Face6": 90, "Slope": 60}[f.Name]
		if math.Abs(f.TiltDeg-want) > tol {
			t.Errorf("%s leans %g° from the vertical, want %g°", f.Name, f.TiltDeg, want)
		}
	}
	if o.Faces[4].AxisDot != -1 || o.Faces[5].AxisDot != 1 {
		t.Errorf("normal_dot_axis keeps the sign it ignores: bottom %g, top %g", o.Faces[4].AxisDot, o.Faces[5].AxisDot)
	}
	for threshold, slopeFlagged := range map[float64]bool{55: true, 65: false} {
		o, _ := twin.CheckOverhangs(faces, [3]float64{0, 0, 1}, threshold)
		if got := o.Faces[6].Flagged; got != slopeFlagged {
			t.Errorf("at %g° the 60° slope is flagged %v, want %v", threshold, got, slopeFlagged)
		}
	}
	// The axis's length and sign do not matter; building along +X stands
	// the top and bottom up and lays the ends flat.
	if o, _ := twin.CheckOverhangs(faces, [3]float64{0, 0, -2}, 45); !reflect.DeepEqual(o.Flagged, []string{"Face5", "Face6", "Slope"}) {
		t.Errorf("axis -2Z: flagged %v", o.Flagged)
	}
	if o, _ := twin.CheckOverhangs(faces, [3]float64{1, 0, 0}, 45); !reflect.DeepEqual(o.Flagged, []string{"Face1", "Face2"}) {
		// The slope leans asin(sin 30°) = 30° from the X axis's vertical.
		t.Errorf("axis +X: flagged %v", o.Flagged)
	}
	// A 45° chamfer sits at the threshold, and rounding does not tip it over.
	c45 := math.Sqrt(0.5)
	if o, _ := twin.CheckOverhangs([]twin.MeshFace{{"Chamfer", 1, [3]float64{c45, 0, c45}}}, [3]float64{0, 0, 1}, 45); o.Faces[0].Flagged {
		t.Errorf("a 45° chamfer is flagged at 45°: %+v", o.Faces[0])
	}
}

func TestOverhangsRefuseWhatCannotBeJudged(t *testing.T) {
	box := []twin.MeshFace{{"Face1", 1, [3]float64{0, 0, 1}}}
	for _, c := range []struct {
		faces     []twin.MeshFace
		axis      [3]float64
		threshold float64
		want      string
	}{
		{box, [3]float64{0, 0, 1}, 0, "threshold_deg 0 is not an angle from the vertical between 0 and 90"},
		{box, [3]float64{0, 0, 1}, 90, "threshold_deg 90 is not an angle"},
		{box, [3]float64{0, 0, 1}, math.NaN(), "threshold_deg NaN is not an angle"},
		{box, [3]float64{0, 0, 0}, 45, "build_axis [0 0 0] has no direction"},
		{nil, [3]float64{0, 0, 1}, 45, "the face table has no faces"},
		{[]twin.MeshFace{{"Sphere", 1, [3]float64{}}}, [3]float64{0, 0, 1}, 45, "no face of the mesh has a direction"},
	} {
		if _, err := twin.CheckOverhangs(c.faces, c.axis, c.threshold); !refusal(err, c.want) {
			t.Errorf("%v, axis %v, %g° = %v, want a refusal saying %q", c.faces, c.axis, c.threshold, err, c.want)
		}
	}
}
