package runs

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// StructureNode is one position of the /twin structure tab: its roll-up
// (twin.ComputeRollup: mass, cost and power for one of it, its whole
// branch, no_data named and never counted as zero), who recorded its
// current revision, the model that gives it a 3D view, and the interfaces
// the project's system architecture gives the subsystem it is.
type StructureNode struct {
	twin.RollupNode
	ItemKey string `json:"item_key"`
	// Owner is the author of the position's current revision; "" when
	// the write named none.
	Owner string `json:"owner,omitempty"`
	// Model is the cad_model revision it is realised by, when that
	// revision keeps a geometry file; ModelNote says why there is none.
	Model      *StructureModel      `json:"model,omitempty"`
	ModelNote  string               `json:"model_note,omitempty"`
	Interfaces []StructureInterface `json:"interfaces"`
	Children   []StructureNode      `json:"children,omitempty"`
}

// StructureModel is the geometry a position's 3D view shows.
type StructureModel struct {
	NodeID string `json:"node_id"`
	Ref    string `json:"ref"`
	Format string `json:"format"`
}

// StructureInterface is one interface of the architecture at a position:
// its name and kind, the subsystem on the other end, and whether it
// leaves (out) or reaches (in) this one.
type StructureInterface struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	With      string `json:"with"`
	Direction string `json:"direction"`
}

// StructureView is what GET /v1/twin/hierarchy answers.
type StructureView struct {
	ProjectID string          `json:"project_id"`
	Roots     []StructureNode `json:"roots"`
	// Architecture is the ref of the system architecture the interfaces
	// are read from; InterfacesNote says why there are none.
	Architecture   string `json:"architecture,omitempty"`
	InterfacesNote string `json:"interfaces_note,omitempty"`
	Note           string `json:"note,omitempty"`
}

func (h TwinViews) hierarchy(w http.ResponseWriter, r *http.Request) {
	q, ok := twinQuery(w, r, "pass project=PROJECT_ID", "project")
	if !ok {
		return
	}
	v, err := h.structure(r.Context(), q["project"])
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, v)
}

// structure reads every root of the project's product hierarchy.
func (h TwinViews) structure(ctx context.Context, projectID string) (StructureView, error) {
	if _, err := h.Twin.GetProject(ctx, projectID); err != nil {
		return StructureView{}, fmt.Errorf("project %s: %w; pick one on the Projects page", projectID, err)
	}
	v := StructureView{ProjectID: projectID, Roots: []StructureNode{}}
	ifaces, arch, note, err := h.interfacesByPosition(ctx, projectID)
	if err != nil {
		return StructureView{}, err
	}
	v.Architecture, v.InterfacesNote = arch, note
	roots, err := twin.HierarchyRoots(ctx, h.Twin, projectID)
	if err != nil {
		return StructureView{}, err
	}
	for _, root := range roots {
		ru, err := twin.ComputeRollup(ctx, h.Twin, projectID, root.ID)
		if err != nil {
			return StructureView{}, err
		}
		n, err := h.structureNode(ctx, projectID, ru.Root, ifaces)
		if err != nil {
			return StructureView{}, err
		}
		v.Roots = append(v.Roots, n)
	}
	if len(v.Roots) == 0 {
		v.Note = "no product hierarchy is recorded in this project: record its positions with twin.record_hierarchy_node " +
			"(realized_by a cad_model for its shape and mass, instance_of a BOM item for its cost)"
	}
	return v, nil
}

func (h TwinViews) structureNode(ctx context.Context, projectID string, ru twin.RollupNode, ifaces map[string][]StructureInterface) (StructureNode, error) {
	n, err := h.Twin.GetNode(ctx, ru.NodeID)
	if err != nil {
		return StructureNode{}, err
	}
	out := StructureNode{RollupNode: ru, ItemKey: n.ItemKey, Owner: n.Author, Interfaces: ifaces[n.ItemKey]}
	out.RollupNode.Children = nil
	if out.Interfaces == nil {
		out.Interfaces = []StructureInterface{}
	}
	out.Model, out.ModelNote, err = h.modelOf(ctx, projectID, ru.RealizedBy)
	if err != nil {
		return StructureNode{}, err
	}
	for _, c := range ru.Children {
		cn, err := h.structureNode(ctx, projectID, c, ifaces)
		if err != nil {
			return StructureNode{}, err
		}
		out.Children = append(out.Children, cn)
	}
	return out, nil
}

// modelOf is the geometry of the cad_model revision ref names ("" for a
// position realised by none), or the note saying why it has none.
func (h TwinViews) modelOf(ctx context.Context, projectID, ref string) (*StructureModel, string, error) {
	if ref == "" {
		return nil, "no realized_by cad_model: link one with twin.realize_hierarchy_node", nil
	}
	m, err := twin.ResolveRef(ctx, h.Twin, projectID, ref)
	if err != nil {
		return nil, "", err
	}
	f, err := twin.GeometryOf(m)
	if err != nil {
		return nil, err.Error(), nil
	}
	return &StructureModel{NodeID: m.ID, Ref: m.Ref(), Format: string(f.Format)}, "", nil
}

// interfacesByPosition reads the project's system architecture and gives
// each hierarchy position (by item key) the interfaces of the subsystem
// that names it. A project without an architecture has none, and the
// note says how to record them.
func (h TwinViews) interfacesByPosition(ctx context.Context, projectID string) (map[string][]StructureInterface, string, string, error) {
	heads, err := twin.HeadRevisions(ctx, h.Twin, projectID, twin.SystemArchitectureItemType)
	if err != nil {
		return nil, "", "", err
	}
	if len(heads) == 0 {
		return nil, "", "no system architecture in this project: interfaces come from twin.commit_system_architecture, " +
			"whose subsystems name their hierarchy_node", nil
	}
	a, err := twin.ReadArchitecture(heads[0])
	if err != nil {
		return nil, "", "", err
	}
	keyOf := map[string]string{} // subsystem name -> position item key
	var unlinked []string
	for _, s := range a.Subsystems {
		if s.HierarchyNode == "" {
			unlinked = append(unlinked, s.Name)
			continue
		}
		n, err := twin.ResolveRef(ctx, h.Twin, projectID, s.HierarchyNode)
		if err != nil || n.ItemKey == "" {
			unlinked = append(unlinked, s.Name)
			continue
		}
		keyOf[s.Name] = n.ItemKey
	}
	out := map[string][]StructureInterface{}
	for _, in := range a.Interfaces {
		if k, ok := keyOf[in.From]; ok {
			out[k] = append(out[k], StructureInterface{Name: in.Name, Kind: in.Kind, With: in.To, Direction: "out"})
		}
		if k, ok := keyOf[in.To]; ok {
			out[k] = append(out[k], StructureInterface{Name: in.Name, Kind: in.Kind, With: in.From, Direction: "in"})
		}
	}
	note := ""
	if len(unlinked) > 0 {
		note = fmt.Sprintf("subsystems %s of %s name no hierarchy position, so their interfaces show nowhere: commit the "+
			"architecture again with each subsystem's hierarchy_node", strings.Join(unlinked, ", "), a.Node.Ref())
	}
	return out, a.Node.Ref(), note, nil
}
