package twin_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

var stepBytes = []byte("ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n")

// binarySTL is a binary STL of one triangle: an 80-byte header that
// itself starts with "solid" (as some exporters write it), the count, and
// 50 bytes of triangle.
func binarySTL() []byte {
	b := make([]byte, 84+50)
	copy(b, "solid written by a careless exporter")
	binary.LittleEndian.PutUint32(b[80:], 1)
	return b
}

// One recorder of geometry: a STEP or an STL is checked to be one, kept
// once in the blob store, and named on the revision by its format; the
// revision's file is found again from the revision alone.
func testCommitGeometry(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Geometry")
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	commit := func(name string, f twin.GeometryFormat, data []byte) (twin.Node, error) {
		n, _, _, err := twin.CommitGeometry(bg, s, blobs, twin.GeometryWrite{ProjectID: g.p.ID, Name: name, Format: f, Data: data,
			Material: "aluminium_6061", Properties: map[string]any{"volume_mm3": 8000.0}})
		return n, err
	}
	step, err := commit("Box", "", stepBytes)
	if err != nil {
		t.Fatal(err)
	}
	if size, _ := twin.NumberOf(step.Properties["step_bytes"]); step.Ref() != "CAD-BOX@1" || size != float64(len(stepBytes)) ||
		step.Properties["material"] != "aluminium_6061" || step.Properties["volume_mm3"] != 8000.0 {
		t.Fatalf("the STEP revision = %+v", step)
	}
	stl, err := commit("Mesh", twin.FormatSTL, binarySTL())
	if err != nil {
		t.Fatal(err)
	}
	ascii, err := commit("Ascii", twin.FormatSTL, []byte("solid a\nfacet normal 0 0 1\nouter loop\nendloop\nendfacet\nendsolid a\n"))
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[*twin.Node][]byte{&step: stepBytes, &stl: binarySTL()} {
		read, err := s.GetNode(bg, n.ID) // as stored, not as written
		if err != nil {
			t.Fatal(err)
		}
		f, err := twin.GeometryOf(read)
		if err != nil {
			t.Fatal(err)
		}
		data, err := blobs.Get(f.Blob.Key)
		if err != nil || !bytes.Equal(data, want) || f.Blob.Bytes != len(want) {
			t.Errorf("%s's %s blob = %d bytes %v, want the %d committed", read.Ref(), f.Format, len(data), err, len(want))
		}
	}
	if f, _ := twin.GeometryOf(stl); f.Format != twin.FormatSTL || f.Format.Ext() != ".stl" || stl.Properties["step_blob"] != nil {
		t.Errorf("the STL revision = %+v (%+v)", f, stl.Properties)
	}
	if f, _ := twin.GeometryOf(ascii); f.Format != twin.FormatSTL {
		t.Errorf("the ASCII STL revision = %+v", f)
	}

	// Refused, and nothing written: no revision, no blob.
	before, _ := s.Items(bg, g.p.ID)
	blobsBefore := countFiles(t, blobs.Dir())
	for _, c := range []struct {
		f    twin.GeometryFormat
		data []byte
		want string
	}{
		{twin.FormatSTEP, []byte("solid cube\nendsolid"), "not a STEP file: it does not start with ISO-10303-21"},
		{twin.FormatSTL, stepBytes, "not an STL file"},
		{twin.FormatSTL, binarySTL()[:120], "not an STL file"}, // cut short: its count says 134 bytes
		{"obj", []byte("v 0 0 0"), `geometry format "obj" is not one a cad_model keeps`},
	} {
		if _, err := commit("Bad", c.f, c.data); !refusal(err, c.want) {
			t.Errorf("%s of %q = %v, want a refusal saying %q", c.f, c.data[:min(len(c.data), 12)], err, c.want)
		}
	}
	after, _ := s.Items(bg, g.p.ID)
	if len(after) != len(before) || countFiles(t, blobs.Dir()) != blobsBefore {
		t.Errorf("a refused commit wrote: %d items before, %d after; %d blobs before, %d after", len(before), len(after), blobsBefore, countFiles(t, blobs.Dir()))
	}

	bare := g.commit("cad_model", "Sketch", map[string]any{"volume_mm3": 1.0})
	if _, err := twin.GeometryOf(bare); !refusal(err, "CAD-SKETCH@1 has no geometry file (no step_blob or stl_blob)") {
		t.Errorf("a revision without a file = %v", err)
	}
	damaged := g.commit("cad_model", "Damaged", map[string]any{"step_blob": "sha256:00", "step_sha256": "11"})
	if _, err := twin.GeometryOf(damaged); !refusal(err, "disagree: the revision is damaged") {
		t.Errorf("a revision whose key and hash disagree = %v", err)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
