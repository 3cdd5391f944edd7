package twin

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
)

// A cad_model keeps its geometry file in the blob store and, on the
// revision, the file's key, hash and size under properties named for its
// format: step_blob, step_sha256, step_bytes for a STEP (the exact
// B-rep every CAD tool reads), stl_blob, stl_sha256, stl_bytes for an STL
// (a triangle mesh, for a part that only exists as one). The names say
// which format the bytes are, so a reader never has to sniff them.

// GeometryFormat is the format of a cad_model's geometry file.
type GeometryFormat string

// The geometry formats a cad_model keeps.
const (
	FormatSTEP GeometryFormat = "step"
	FormatSTL  GeometryFormat = "stl"
)

// geometryFormats are the formats in the order a revision's blob is
// looked for: a STEP first, as it is the exact geometry.
var geometryFormats = []GeometryFormat{FormatSTEP, FormatSTL}

// Ext is the file extension a staged copy of the format gets.
func (f GeometryFormat) Ext() string { return "." + string(f) }

// BlobProperty is the revision property naming the format's blob key;
// the hash and size are <format>_sha256 and <format>_bytes.
func (f GeometryFormat) BlobProperty() string { return string(f) + "_blob" }

// FormatOfPath is the format a file's extension names: .step or .stp is a
// STEP, .stl an STL; ok is false for anything else.
func FormatOfPath(path string) (GeometryFormat, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".step", ".stp":
		return FormatSTEP, true
	case ".stl":
		return FormatSTL, true
	}
	return "", false
}

// stepMagic opens every STEP (ISO 10303-21) file.
var stepMagic = []byte("ISO-10303-21")

// Check refuses bytes that are not a file of the format, saying what to
// pass instead.
func (f GeometryFormat) Check(data []byte) error {
	switch f {
	case FormatSTEP:
		if !bytes.HasPrefix(bytes.TrimLeft(data, "\ufeff \t\r\n"), stepMagic) {
			return Refusef("the geometry is not a STEP file: it does not start with ISO-10303-21; export STEP (AP203/AP214/AP242) and try again")
		}
		return nil
	case FormatSTL:
		if !isSTL(data) {
			return Refusef("the geometry is not an STL file: it is neither binary STL (an 80-byte header, a triangle count and 50 bytes " +
				"per triangle) nor ASCII STL (solid ... facet ... endsolid); export the mesh as STL and try again")
		}
		return nil
	}
	return Refusef("geometry format %q is not one a cad_model keeps: use %s or %s", f, FormatSTEP, FormatSTL)
}

// isSTL says whether data is a binary STL (its size is exactly what its
// triangle count says) or an ASCII one (solid, at least one facet,
// endsolid). The size is checked first: a binary header may itself start
// with "solid".
func isSTL(data []byte) bool {
	if len(data) >= 84 {
		n := binary.LittleEndian.Uint32(data[80:84])
		if n > 0 && uint64(len(data)) == 84+50*uint64(n) {
			return true
		}
	}
	text := bytes.TrimLeft(data, "\ufeff \t\r\n")
	return bytes.HasPrefix(text, []byte("solid")) && bytes.Contains(text, []byte("facet")) && bytes.Contains(text, []byte("endsolid"))
}

// GeometryWrite is a cad_model revision recorded from a geometry file:
// the bytes go to the blob store, the revision keeps their key, hash and
// size, the material, and the measured properties.
type GeometryWrite struct {
	ProjectID, Name string
	Format          GeometryFormat // "": a STEP
	Data            []byte
	Material        string
	// Properties are the measured ones (volume_mm3, surface_area_mm2,
	// bounding_box, mass_kg, center_of_mass_mm, ...), recorded as given.
	Properties map[string]any
	Info       WriteInfo
}

// CommitGeometry records a geometry file as the next revision of its
// cad_model item: checked to be a file of its format, stored once by
// content, and named on the revision. It is the one recorder of
// geometry: twin.commit_geometry and twin.import_work_product both write
// through it.
func CommitGeometry(ctx context.Context, s Store, blobs *BlobStore, w GeometryWrite) (Node, Item, Blob, error) {
	if w.Format == "" {
		w.Format = FormatSTEP
	}
	if err := w.Format.Check(w.Data); err != nil {
		return Node{}, Item{}, Blob{}, err
	}
	if blobs == nil {
		return Node{}, Item{}, Blob{}, fmt.Errorf("this twin has no blob store to keep the geometry in")
	}
	blob, err := blobs.Put(w.Data)
	if err != nil {
		return Node{}, Item{}, Blob{}, err
	}
	f := string(w.Format)
	props := map[string]any{f + "_blob": blob.Key, f + "_sha256": blob.SHA256, f + "_bytes": blob.Bytes}
	if w.Material != "" {
		props["material"] = w.Material
	}
	for k, v := range w.Properties {
		props[k] = v
	}
	n, it, err := s.CommitRevision(ctx, w.Info.Revision(w.ProjectID, "cad_model", w.Name, props, nil))
	return n, it, blob, err
}

// GeometryFile is the geometry file a cad_model revision keeps.
type GeometryFile struct {
	Format GeometryFormat
	Blob   Blob
}

// GeometryOf finds the geometry file a work product keeps: its STEP, or
// else its STL. A revision with neither (its geometry was never
// committed, only described) is refused, saying how to give it one.
func GeometryOf(n Node) (GeometryFile, error) {
	for _, f := range geometryFormats {
		key, _ := n.Properties[f.BlobProperty()].(string)
		if key == "" {
			continue
		}
		sha, _ := n.Properties[string(f)+"_sha256"].(string)
		size, _ := NumberOf(n.Properties[string(f)+"_bytes"])
		if want := "sha256:" + sha; sha == "" || key != want {
			return GeometryFile{}, Refusef("%s's %s (%s) and %s_sha256 (%q) disagree: the revision is damaged; commit its geometry again",
				refOrID(n), f.BlobProperty(), key, f, sha)
		}
		return GeometryFile{Format: f, Blob: Blob{Key: key, SHA256: sha, Bytes: int(size)}}, nil
	}
	return GeometryFile{}, Refusef("%s has no geometry file (no step_blob or stl_blob): its revision records properties only; "+
		"commit the file with twin.commit_geometry or twin.import_work_product, then stage that revision", refOrID(n))
}

// refOrID names a node by its item ref, or its id for a record.
func refOrID(n Node) string {
	if r := n.Ref(); r != "" {
		return r
	}
	return n.ID
}

// ImportCall is one import of a geometry file as a cad_model revision,
// measured by the CAD kernel before it is recorded. File is the call's
// own copy of SourceFile, named by its SHA256, so the bytes measured are
// the bytes recorded, whatever happens to the source meanwhile.
type ImportCall struct {
	CallID, ProjectID, Name string
	SourceFile, File        string
	SHA256                  string
	Format                  GeometryFormat
	Material                string // the materials table's name; "" for none
	Info                    WriteInfo
}
