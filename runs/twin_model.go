package runs

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// ModelView is what GET /v1/twin/model?project=&node= answers: the node,
// and the parts its 3D view is made of. A cad_model with a geometry file
// is one part. A hierarchy position is its branch: a position realised by
// a model with a file is drawn as that model (it stands for its whole
// branch, as in a roll-up); one without is drawn as its children, each
// placed in its parent's frame. Any other node has no parts, and the note
// says so.
type ModelView struct {
	ProjectID string      `json:"project_id"`
	Node      twin.Node   `json:"node"`
	Parts     []ModelPart `json:"parts"`
	// Missing are the positions of the branch with nothing to draw, and
	// why.
	Missing []ModelMissing `json:"missing,omitempty"`
	Note    string         `json:"note,omitempty"`
}

// ModelPart is one model to draw. Placements are the positions' placements
// from the viewed node down to this part, outermost first; each rotates
// about its parent's fixed x, then y, then z axis (degrees), then
// translates (mm). Mesh is the route its triangles are read from.
type ModelPart struct {
	Name       string           `json:"name"`
	Position   string           `json:"position,omitempty"`
	NodeID     string           `json:"node_id"`
	Ref        string           `json:"ref"`
	Format     string           `json:"format"`
	Quantity   int              `json:"total_quantity"`
	Placements []twin.Placement `json:"placements"`
	Mesh       string           `json:"mesh"`
}

// ModelMissing is a position with nothing to draw.
type ModelMissing struct {
	Name   string `json:"name"`
	Ref    string `json:"ref"`
	Reason string `json:"reason"`
}

func (h TwinViews) model(w http.ResponseWriter, r *http.Request) {
	q, ok := twinQuery(w, r, "pass project=PROJECT_ID and node=NODE (a node id, KEY or KEY@n)", "project", "node")
	if !ok {
		return
	}
	v, err := h.modelView(r.Context(), q["project"], q["node"])
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, v)
}

func (h TwinViews) modelView(ctx context.Context, projectID, ref string) (ModelView, error) {
	n, err := twin.ResolveRef(ctx, h.Twin, projectID, ref)
	if err != nil {
		return ModelView{}, fmt.Errorf("node %s in project %s: %w; pick a node on the structure tab", ref, projectID, err)
	}
	v := ModelView{ProjectID: projectID, Node: n, Parts: []ModelPart{}}
	switch n.Type {
	case twin.HierarchyNodeType:
		ru, err := twin.ComputeRollup(ctx, h.Twin, projectID, n.ID)
		if err != nil {
			return ModelView{}, err
		}
		if err := h.branchParts(ctx, projectID, ru.Root, nil, true, &v); err != nil {
			return ModelView{}, err
		}
		if len(v.Parts) == 0 {
			v.Note = fmt.Sprintf("nothing under %s has a geometry file to draw: commit a part's STEP with twin.commit_geometry "+
				"and link it with twin.realize_hierarchy_node", n.Ref())
		}
	default:
		f, err := twin.GeometryOf(n)
		if err != nil {
			what := n.Type
			if n.Type != "cad_model" {
				v.Note = fmt.Sprintf("%s is a %s: it has no shape to draw; a cad_model or a hierarchy position has one", refOrNodeID(n), what)
			} else {
				v.Note = err.Error()
			}
			return v, nil
		}
		v.Parts = append(v.Parts, ModelPart{Name: n.Name, NodeID: n.ID, Ref: n.Ref(), Format: string(f.Format), Quantity: 1,
			Placements: []twin.Placement{}, Mesh: meshRoute(projectID, n.ID)})
	}
	return v, nil
}

// branchParts adds the parts of the branch under one position: its own
// model when it has a file, else its children's. The viewed position's
// own placement (in its parent) is not applied: the view is in its frame.
func (h TwinViews) branchParts(ctx context.Context, projectID string, ru twin.RollupNode, chain []twin.Placement, top bool, v *ModelView) error {
	if !top && ru.Placement != nil {
		chain = append(chain[:len(chain):len(chain)], *ru.Placement)
	} else if !top {
		chain = append(chain[:len(chain):len(chain)], twin.Placement{})
	}
	m, note, err := h.modelOf(ctx, projectID, ru.RealizedBy)
	if err != nil {
		return err
	}
	if m != nil {
		name := ru.Name
		placements := append([]twin.Placement{}, chain...)
		v.Parts = append(v.Parts, ModelPart{Name: name, Position: ru.Ref, NodeID: m.NodeID, Ref: m.Ref, Format: m.Format,
			Quantity: ru.TotalQuantity, Placements: placements, Mesh: meshRoute(projectID, m.NodeID)})
		return nil
	}
	if len(ru.Children) == 0 {
		v.Missing = append(v.Missing, ModelMissing{Name: ru.Name, Ref: ru.Ref, Reason: note})
		return nil
	}
	for _, c := range ru.Children {
		if err := h.branchParts(ctx, projectID, c, chain, false, v); err != nil {
			return err
		}
	}
	return nil
}

func meshRoute(projectID, nodeID string) string {
	return "/v1/twin/mesh?" + url.Values{"project": {projectID}, "node": {nodeID}}.Encode()
}

func refOrNodeID(n twin.Node) string {
	if r := n.Ref(); r != "" {
		return r
	}
	return n.ID
}
