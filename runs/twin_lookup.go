package runs

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// TwinNode is GET /v1/twin/node: one node by reference, with its item's
// head and the nodes one edge away, so the CLI can show a node without an
// MCP session (twin.get_node needs one for its project scope).
type TwinNode struct {
	Node    twin.Node     `json:"node"`
	ItemRef string        `json:"item_ref,omitempty"`
	HeadRef string        `json:"head_ref,omitempty"`
	IsHead  *bool         `json:"is_head,omitempty"`
	Related []TwinRelated `json:"related"`
}

// TwinRelated is a node one edge away, and which way the edge points.
type TwinRelated struct {
	NodeID    string `json:"node_id"`
	NodeType  string `json:"node_type"`
	Name      string `json:"name"`
	ItemRef   string `json:"item_ref,omitempty"`
	Edge      string `json:"edge"`
	Direction string `json:"direction"`
}

const nodeHowTo = "pass ref=KEY, ref=KEY@n or ref=NODE_ID, and project=PROJECT_ID when the key is in more than one project"

// node is GET /v1/twin/node?ref=KEY[@n]|NODE_ID[&project=P]: a node id
// needs no project; a key is looked up in the project, or in every
// project when none is named (refused, naming them, when it is in two).
func (h TwinViews) node(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, []string{"ref", "project"}, nodeHowTo) {
		return
	}
	ctx := r.Context()
	ref, project := strings.TrimSpace(r.URL.Query().Get("ref")), strings.TrimSpace(r.URL.Query().Get("project"))
	if ref == "" {
		httpjson.Error(w, http.StatusBadRequest, "ref is missing: "+nodeHowTo)
		return
	}
	var n twin.Node
	var err error
	switch {
	case project != "":
		n, err = twin.ResolveRef(ctx, h.Twin, project, ref)
	case strings.HasPrefix(ref, "n-"):
		n, err = h.Twin.GetNode(ctx, ref)
	default:
		n, err = twin.ResolveRefAnywhere(ctx, h.Twin, ref)
	}
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), err.Error()+"; GET /v1/projects/{id} lists a project's items")
		return
	}
	out := TwinNode{Node: n, ItemRef: n.Ref(), Related: []TwinRelated{}}
	if n.ItemKey != "" {
		it, err := h.Twin.ItemOfNode(ctx, n.ID)
		if err != nil {
			httpjson.Error(w, twinViewStatus(err), err.Error())
			return
		}
		head := it.HeadNodeID == n.ID
		out.HeadRef, out.IsHead = it.HeadRef(), &head
	}
	nbs, err := h.Twin.Neighbors(ctx, n.ID, twin.Both)
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), err.Error())
		return
	}
	for _, nb := range nbs {
		dir := "outgoing"
		if nb.Edge.To == n.ID {
			dir = "incoming"
		}
		out.Related = append(out.Related, TwinRelated{NodeID: nb.Node.ID, NodeType: nb.Node.Type, Name: nb.Node.Name,
			ItemRef: nb.Node.Ref(), Edge: nb.Edge.Type, Direction: dir})
	}
	httpjson.Write(w, http.StatusOK, out)
}

// TwinFound is a node whose property matched, and the value it has.
type TwinFound struct {
	NodeID   string `json:"node_id"`
	NodeType string `json:"node_type"`
	Name     string `json:"name"`
	ItemRef  string `json:"item_ref,omitempty"`
	Value    any    `json:"value"`
}

const findHowTo = "pass project=PROJECT_ID, key=PROPERTY and value=VALUE (node_type=TYPE and all_revisions=true narrow or widen it)"

// find is GET /v1/twin/find: twin.find_by_property's search without an
// MCP session. value is a number or true/false when it reads as one (a
// number compares numerically), else a string.
func (h TwinViews) find(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, []string{"project", "key", "value", "node_type", "all_revisions"}, findHowTo) {
		return
	}
	q := r.URL.Query()
	for _, k := range []string{"project", "key", "value"} {
		if strings.TrimSpace(q.Get(k)) == "" {
			httpjson.Error(w, http.StatusBadRequest, k+" is missing: "+findHowTo)
			return
		}
	}
	all := false
	if v := q.Get("all_revisions"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			httpjson.Error(w, http.StatusBadRequest, "all_revisions must be true or false: "+findHowTo)
			return
		}
		all = b
	}
	ctx := r.Context()
	p, err := h.Twin.GetProject(ctx, strings.TrimSpace(q.Get("project")))
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), projectMissing(q.Get("project"), err))
		return
	}
	m, err := twin.FindByProperty(ctx, h.Twin, twin.PropertyQuery{ProjectID: p.ID, Key: strings.TrimSpace(q.Get("key")),
		Value: propertyValue(q.Get("value")), NodeType: strings.TrimSpace(q.Get("node_type")), AllRevisions: all})
	if err != nil {
		httpjson.Error(w, twinViewStatus(err), err.Error())
		return
	}
	found := []TwinFound{}
	for _, f := range m.Nodes {
		found = append(found, TwinFound{NodeID: f.Node.ID, NodeType: f.Node.Type, Name: f.Node.Name, ItemRef: f.Node.Ref(), Value: f.Value})
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"project_id": p.ID, "key": q.Get("key"), "value": propertyValue(q.Get("value")),
		"nodes": found, "count": len(found), "truncated": m.Truncated, "searched": m.Searched})
}

// propertyValue is a query's value as find_by_property compares it.
func propertyValue(s string) any {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
		return b
	}
	return s
}
