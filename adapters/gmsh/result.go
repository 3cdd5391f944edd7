package gmsh

import "github.com/metaforge/metaforge/internal/meshfile"

// MeshResult is what gmsh.generate_mesh returns.
type MeshResult struct {
	// MeshFile and FaceTableFile are absolute paths in the call's folder.
	MeshFile      string  `json:"mesh_file"`
	FaceTableFile string  `json:"face_table_file"`
	ElementType   string  `json:"element_type"`
	Elements      int     `json:"elements"`
	Nodes         int     `json:"nodes"`
	ElementOrder  int     `json:"element_order"`
	MeshSizeMM    float64 `json:"mesh_size_mm"`
	// SurfaceSets is keyed by face name (Face<tag>), the deck's NSET names.
	SurfaceSets     map[string]SurfaceSet `json:"surface_sets"`
	MeshBBoxMM      meshfile.BBox         `json:"mesh_bbox_mm"`
	CoordinateFrame string                `json:"coordinate_frame"`
	// PlacementBaked is always false: gmsh keeps the STEP's coordinates,
	// so there is no placement to bake into the nodes.
	PlacementBaked bool             `json:"placement_baked"`
	QualityMetrics meshfile.Quality `json:"quality_metrics"`
	// Warnings are gmsh's warning lines, when it had any.
	Warnings []string `json:"warnings,omitempty"`
}

// SurfaceSet is one face's geometry, enough to pick it by position.
type SurfaceSet struct {
	BBoxMM     meshfile.BBox `json:"bbox_mm"`
	CentroidMM [3]float64    `json:"centroid_mm"`
	AreaMM2    float64       `json:"area_mm2"`
	Normal     [3]float64    `json:"normal"`
}

// FacesResult is what gmsh.list_named_faces returns.
type FacesResult struct {
	MeshFile        string        `json:"mesh_file"`
	FaceTableFile   string        `json:"face_table_file"`
	ElementType     string        `json:"element_type"`
	MeshBBoxMM      meshfile.BBox `json:"mesh_bbox_mm"`
	CoordinateFrame string        `json:"coordinate_frame"`
	Faces           []FaceSummary `json:"faces"`
}

// FaceSummary is one face of the table without its triangles.
type FaceSummary struct {
	Name       string        `json:"name"`
	BBoxMM     meshfile.BBox `json:"bbox_mm"`
	CentroidMM [3]float64    `json:"centroid_mm"`
	AreaMM2    float64       `json:"area_mm2"`
	Normal     [3]float64    `json:"normal"`
	NodeCount  int           `json:"node_count"`
}
