package meshfile

import (
	"strings"
	"testing"
)

// A plate's faces as gmsh.list_named_faces reports them, with an L's second
// top face: picking by normal, then by a point or by how far out a face is.
func plateTable() Table {
	face := func(name string, n [3]float64, c [3]float64, lo, hi [3]float64, area float64) Face {
		return Face{Name: name, Normal: n, CentroidMM: c, BBoxMM: BBox{Min: lo, Max: hi}, AreaMM2: area}
	}
	return Table{Faces: []Face{
		face("Face1", [3]float64{-1, 0, 0}, [3]float64{0, 20, 2.5}, [3]float64{0, 0, 0}, [3]float64{0, 40, 5}, 200),
		face("Face2", [3]float64{1, 0, 0}, [3]float64{100, 20, 2.5}, [3]float64{100, 0, 0}, [3]float64{100, 40, 5}, 200),
		face("Face3", [3]float64{0, 0, 1}, [3]float64{50, 20, 5}, [3]float64{0, 0, 5}, [3]float64{100, 40, 5}, 4000),
		// A boss on top: a second face looking up, further out.
		face("Face4", [3]float64{0, 0.05, 0.9987}, [3]float64{80, 20, 12}, [3]float64{70, 10, 12}, [3]float64{90, 30, 12}, 400),
		face("Face5", [3]float64{0, 0, -1}, [3]float64{50, 20, 0}, [3]float64{0, 0, 0}, [3]float64{100, 40, 0}, 4000),
	}}
}

func TestPickByGeometry(t *testing.T) {
	tab := plateTable()
	for _, c := range []struct {
		what   string
		normal [3]float64
		point  *[3]float64
		want   string
	}{
		{"the wall face", [3]float64{-1, 0, 0}, nil, "Face1"},
		{"an unnormalised normal", [3]float64{-5, 0, 0}, nil, "Face1"},
		{"the top face furthest out (the boss, 3 degrees off)", [3]float64{0, 0, 1}, nil, "Face4"},
		{"the top face nearest a point", [3]float64{0, 0, 1}, &[3]float64{20, 20, 5}, "Face3"},
		{"the boss by a point above it", [3]float64{0, 0, 1}, &[3]float64{80, 20, 15}, "Face4"},
	} {
		f, err := tab.Pick(c.normal, c.point)
		if err != nil || f.Name != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.what, f.Name, err, c.want)
		}
	}
	// No face looks that way: the error lists the faces there are.
	if _, err := tab.Pick([3]float64{0, 1, 0}, nil); err == nil || !strings.Contains(err.Error(), "Face3 normal") {
		t.Errorf("no face facing +y: %v", err)
	}
	if _, err := tab.Pick([3]float64{0, 0, 0}, nil); err == nil {
		t.Error("a zero normal picks nothing")
	}
}
