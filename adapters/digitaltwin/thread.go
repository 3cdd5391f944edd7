package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/metaforge/metaforge/internal/units"
	"reflect"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// threadTools asks the digital thread questions: an arbitrary walk, and the
// two questions whose direction is part of the question.
func threadTools() []tool {
	return []tool{threadForTool(), whatVerifiesTool(), whereUsedTool(), findByPropertyTool()}
}

// targetProps names the node a thread question starts from.
const targetProps = `"node_id":{"type":"string","minLength":1,"description":"the node to start from"},
"item_key":{"type":"string","minLength":1,"description":"or an item: KEY@n for that revision, KEY for its current one"}`

const (
	defaultThreadDepth = 2
	maxThreadDepth     = 5
	maxThreadNodes     = 500
)

func threadForTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.thread_for", Name: "Walk the digital thread", Capability: "twin_read",
		Description: "Walk the digital thread from a node (node_id, or item_key KEY@n / KEY) up to depth hops, returning the nodes and " +
			"edges reached. Edges point child-to-parent (evidence VERIFIES a requirement, a decision DEPENDS_ON what it rests on, a " +
			"revision is REVISION_OF the one before), so the default direction \"outgoing\" finds what a node rests on; a requirement or " +
			"a part is usually an edge target and needs \"incoming\" or \"both\". For those two questions prefer twin.what_verifies and " +
			"twin.where_used, which know the direction.",
		InputSchema: schema(nil, projectIDProp+`,`+targetProps+`,
"depth":{"type":"integer","minimum":1,"maximum":5,"default":2,"description":"hops to walk, 1 to 5"},
"direction":{"type":"string","enum":["outgoing","incoming","both"],"default":"outgoing","description":"which way to follow edges"},
"edge_types":{"type":"array","maxItems":20,"items":{"type":"string","pattern":"^[A-Z][A-Z0-9_]*$"},"description":"follow only these edge types: REVISION_OF, VALID_AGAINST, VERIFIES, DEPENDS_ON, SUPPORTS, SUPPORTED_BY, CONTAINS, USES, RELATES_TO, CONSTRAINED_BY; default all"}`),
		Idempotent: true, TimeoutSeconds: 30}, threadFor}
}

func whatVerifiesTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.what_verifies", Name: "What verifies a requirement", Capability: "twin_read",
		Description: "What evidence and claims support a requirement: the constraint set by item_key (KEY for its current revision, " +
			"KEY@n for one revision) or node_id. Walks VERIFIES and SUPPORTS edges into the requirement (and, for a bare KEY, into " +
			"its earlier revisions). verified is true only when current evidence (not stale, against requirements that have not changed " +
			"since, breaking none of them) or a supported claim backs it; an empty answer says nothing is recorded.",
		InputSchema: schema(nil, projectIDProp+`,`+targetProps),
		Idempotent:  true, TimeoutSeconds: 30}, whatVerifies}
}

func whereUsedTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.where_used", Name: "Where a part is used", Capability: "twin_read",
		Description: "What depends on a part or any item: the nodes with a DEPENDS_ON, CONTAINS (assemblies, release packages), USES or " +
			"VALID_AGAINST (evidence computed on it) edge into it, grouped by edge. item_key KEY covers every revision of the item " +
			"(each entry says which revision it uses and whether that is the current one); KEY@n or node_id that revision only.",
		InputSchema: schema(nil, projectIDProp+`,`+targetProps),
		Idempotent:  true, TimeoutSeconds: 30}, whereUsed}
}

func findByPropertyTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.find_by_property", Name: "Find nodes by a property", Capability: "twin_read",
		Description: "Nodes in a project whose property key equals value: numbers compare numerically, strings ignoring case and " +
			"surrounding space, a list property matches when any element does. key may be a dotted path into nested properties " +
			"(data.solver); name matches the node's name. Current revisions and records only, unless all_revisions. At most 200 " +
			"nodes; truncated says when there were more.",
		InputSchema: schema([]string{"key", "value"}, projectIDProp+`,
"key":{"type":"string","minLength":1,"maxLength":200,"description":"the property: material, kind, metric, document_type, data.solver..."},
"value":{"type":["string","number","boolean"],"description":"the value it must equal"},
"node_type":{"type":"string","minLength":1,"description":"only nodes of this type: cad_model, constraint_set, evidence, claim, decision, risk..."},
"all_revisions":{"type":"boolean","default":false,"description":"also search earlier revisions of items"}`),
		Idempotent: true, TimeoutSeconds: 30}, findByProperty}
}

// nodeBrief is how the read and thread tools show a node.
func nodeBrief(n twin.Node) map[string]any {
	out := map[string]any{"node_id": n.ID, "node_type": n.Type, "name": n.Name}
	if ref := n.Ref(); ref != "" {
		out["item_ref"] = ref
	}
	return out
}

// label names a node in a sentence: its item ref, or its type and name.
func label(n twin.Node) string {
	if ref := n.Ref(); ref != "" {
		return ref
	}
	return fmt.Sprintf("%s %q (%s)", n.Type, n.Name, n.ID)
}

// ---------------------------------------------------------------- thread_for

func threadFor(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		nodeOrKey
		Depth     *int     `json:"depth"`
		Direction string   `json:"direction"`
		EdgeTypes []string `json:"edge_types"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	depth := defaultThreadDepth
	if a.Depth != nil {
		depth = *a.Depth
	}
	if depth < 1 || depth > maxThreadDepth {
		return nil, protocol.Refusal("depth %d: walk 1 to %d hops", depth, maxThreadDepth)
	}
	dir := twin.Direction(a.Direction)
	switch dir {
	case "":
		dir = twin.Outgoing
	case twin.Outgoing, twin.Incoming, twin.Both:
	default:
		return nil, protocol.Refusal("direction %q: use outgoing, incoming or both", a.Direction)
	}
	root, err := a.node(ctx, b)
	if err != nil {
		return nil, err
	}
	nodes := []map[string]any{}
	edges := []map[string]any{}
	seenNode := map[string]bool{root.ID: true}
	seenEdge := map[string]bool{}
	rootEntry := nodeBrief(root)
	rootEntry["depth"] = 0
	nodes = append(nodes, rootEntry)
	truncated := false
	frontier := []twin.Node{root}
	for d := 1; d <= depth && len(frontier) > 0 && !truncated; d++ {
		var next []twin.Node
		for _, n := range frontier {
			nbs, err := b.Store.Neighbors(ctx, n.ID, dir, a.EdgeTypes...)
			if err != nil {
				return nil, err
			}
			for _, nb := range nbs {
				if !seenNode[nb.Node.ID] {
					if len(nodes) >= maxThreadNodes {
						truncated = true
						continue
					}
					seenNode[nb.Node.ID] = true
					e := nodeBrief(nb.Node)
					e["depth"] = d
					nodes = append(nodes, e)
					next = append(next, nb.Node)
				}
				key := nb.Edge.Type + "\x00" + nb.Edge.From + "\x00" + nb.Edge.To
				if seenEdge[key] {
					continue
				}
				seenEdge[key] = true
				e := map[string]any{"type": nb.Edge.Type, "from": nb.Edge.From, "to": nb.Edge.To}
				if len(nb.Edge.Properties) > 0 {
					e["properties"] = nb.Edge.Properties
				}
				edges = append(edges, e)
			}
		}
		frontier = next
	}
	edgeTypes := a.EdgeTypes
	if edgeTypes == nil {
		edgeTypes = []string{}
	}
	out := map[string]any{
		"root": nodeBrief(root), "direction": string(dir), "depth": depth, "edge_types": edgeTypes,
		"nodes": nodes, "edges": edges, "node_count": len(nodes), "edge_count": len(edges), "truncated": truncated,
	}
	if len(edges) == 0 {
		out["note"] = emptyWalkNote(root, dir, depth, a.EdgeTypes)
	}
	return out, nil
}

// emptyWalkNote says which walk found nothing, so an empty thread does not
// read as "nothing is linked" when the walk went the wrong way.
func emptyWalkNote(root twin.Node, dir twin.Direction, depth int, edgeTypes []string) string {
	which := "edges"
	if len(edgeTypes) > 0 {
		which = strings.Join(edgeTypes, ", ") + " edges"
	}
	switch dir {
	case twin.Outgoing:
		return fmt.Sprintf("nothing is reached from %s walking outgoing %s (depth %d). Edges point child-to-parent: evidence VERIFIES a "+
			"requirement, a decision DEPENDS_ON a part, so a requirement or a part is usually an edge target. Walk direction \"incoming\" "+
			"or \"both\", or ask twin.what_verifies (for a requirement) or twin.where_used (for a part).", label(root), which, depth)
	case twin.Incoming:
		return fmt.Sprintf("nothing points at %s: no incoming %s (depth %d). Walk direction \"outgoing\" for what it rests on, or \"both\".",
			label(root), which, depth)
	}
	return fmt.Sprintf("%s has no %s in either direction: nothing is linked to it.", label(root), which)
}

// ------------------------------------------------------------ shared targets

// target is the node a question is about, and the nodes to walk into: every
// revision of an item named by a bare KEY, else the node itself.
type target struct {
	node  twin.Node
	walk  []twin.Node
	item  *twin.Item
	label string // what the question named: KEY, KEY@n or a node id
}

// resolveTarget reads the node or item a question names from its
// arguments.
func resolveTarget(ctx context.Context, b *Backend, raw json.RawMessage) (target, error) {
	var a nodeOrKey
	if err := decode(raw, &a); err != nil {
		return target{}, err
	}
	n, err := a.node(ctx, b)
	if err != nil {
		return target{}, err
	}
	t := target{node: n, walk: []twin.Node{n}, label: label(n)}
	if n.ItemKey == "" {
		return t, nil
	}
	it, err := b.Store.ItemOfNode(ctx, n.ID)
	if err != nil {
		return target{}, err
	}
	t.item = &it
	if a.ItemKey != "" {
		if _, rev, err := twin.ParseItemRef(a.ItemKey); err == nil && rev == 0 {
			revs, err := b.Store.Revisions(ctx, it.ProjectID, it.Key)
			if err != nil {
				return target{}, err
			}
			// Newest first: the current revision's links lead.
			t.walk = t.walk[:0]
			for i := len(revs) - 1; i >= 0; i-- {
				t.walk = append(t.walk, revs[i])
			}
			t.label = it.Key
		}
	}
	return t, nil
}

func (t target) refs() []string {
	out := []string{}
	for _, n := range t.walk {
		out = append(out, refOrID(n))
	}
	return out
}

func refOrID(n twin.Node) string {
	if ref := n.Ref(); ref != "" {
		return ref
	}
	return n.ID
}

// ------------------------------------------------------------- what_verifies

func whatVerifies(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	t, err := resolveTarget(ctx, b, raw)
	if err != nil {
		return nil, err
	}
	asked := t.node // the revision "verified" is about
	askedScope, err := readConstraints(asked)
	if err != nil {
		return nil, err
	}

	type evidenceHit struct {
		node     twin.Node
		verifies []string
		current  bool // against the asked revision, or one whose relevant requirements are unchanged
	}
	var evOrder []string
	evHits := map[string]*evidenceHit{}
	claims := []map[string]any{}
	others := []map[string]any{}
	seenClaim := map[string]bool{}
	for _, rev := range t.walk {
		revScope, err := readConstraints(rev)
		if err != nil {
			return nil, err
		}
		nbs, err := b.Store.Neighbors(ctx, rev.ID, twin.Incoming, twin.EdgeVerifies, twin.EdgeSupports)
		if err != nil {
			return nil, err
		}
		for _, nb := range nbs {
			switch nb.Node.Type {
			case "evidence":
				h := evHits[nb.Node.ID]
				if h == nil {
					h = &evidenceHit{node: nb.Node}
					evHits[nb.Node.ID] = h
					evOrder = append(evOrder, nb.Node.ID)
				}
				h.verifies = append(h.verifies, refOrID(rev))
				if rev.ID == asked.ID || sameRequirementsFor(nb.Node, revScope, askedScope) {
					h.current = true
				}
			case "claim":
				if seenClaim[nb.Node.ID] {
					continue
				}
				seenClaim[nb.Node.ID] = true
				st, err := claimStatus(ctx, b, nb.Node.ID)
				if err != nil {
					return nil, err
				}
				c := map[string]any{"node_id": nb.Node.ID, "name": nb.Node.Name, "claim": nb.Node.Properties["claim"],
					"requirement_ref": refOrID(rev), "status": st["status"], "reasons": st["reasons"]}
				if name, ok := nb.Node.Properties["requirement_name"]; ok {
					c["requirement_name"] = name
				}
				claims = append(claims, c)
			default:
				e := nodeBrief(nb.Node)
				e["edge"], e["requirement_ref"] = nb.Edge.Type, refOrID(rev)
				others = append(others, e)
			}
		}
	}

	verified := false
	evidence := []map[string]any{}
	var staleCount, olderCount, violating int
	for _, id := range evOrder {
		h := evHits[id]
		f, err := staleness(ctx, b, id)
		if err != nil {
			return nil, err
		}
		e := evidenceEntry(h.node, f)
		e["verifies"] = h.verifies
		checks := []map[string]any{}
		broken := false
		for _, ck := range checkEvidence(h.node, askedScope) {
			checks = append(checks, ck.entry())
			broken = broken || ck.verdict == verdictViolates
		}
		e["checks"] = checks
		e["requirement_changed"] = !h.current
		switch {
		case f.Stale:
			staleCount++
		case !h.current:
			olderCount++
		case broken:
			violating++
		default:
			verified = true
		}
		evidence = append(evidence, e)
	}
	for _, c := range claims {
		if c["status"] == claimSupported {
			verified = true
		}
	}
	related := len(evidence) + len(claims) + len(others)
	out := map[string]any{
		"requirement": nodeBrief(asked), "verified": verified, "related_count": related,
		"evidence": evidence, "claims": claims, "walked": map[string]any{
			"edges": []string{twin.EdgeVerifies, twin.EdgeSupports}, "direction": "incoming", "into": t.refs()},
	}
	if len(others) > 0 {
		out["other"] = others
	}
	if t.item != nil {
		out["head_ref"] = t.item.HeadRef()
	}
	switch {
	case related == 0:
		out["note"] = fmt.Sprintf("nothing verifies %s: no VERIFIES or SUPPORTS edge points into %s (walked incoming edges). "+
			"Nothing is recorded; record a result with twin.record_evidence (verifies: [%s]) or a claim with twin.record_claim.",
			t.label, strings.Join(t.refs(), ", "), refOrID(asked))
	case !verified:
		var why []string
		if staleCount > 0 {
			why = append(why, fmt.Sprintf("%d evidence computed against older revisions of what it pinned (stale)", staleCount))
		}
		if olderCount > 0 {
			why = append(why, fmt.Sprintf("%d evidence against earlier requirements that have since changed", olderCount))
		}
		if violating > 0 {
			why = append(why, fmt.Sprintf("%d current evidence breaking a requirement", violating))
		}
		if len(claims) > 0 {
			why = append(why, fmt.Sprintf("%d claims, none supported", len(claims)))
		}
		if len(why) == 0 {
			why = append(why, "no evidence, only other links")
		}
		out["note"] = fmt.Sprintf("%s is not verified: %s. Re-run the analysis on the current design and record it with twin.record_evidence.",
			refOrID(asked), strings.Join(why, "; "))
	}
	return out, nil
}

// sameRequirementsFor: evidence that verified an earlier revision of a
// constraint set still bears on the asked one when the requirements on its
// metric read the same in both.
func sameRequirementsFor(ev twin.Node, verified, asked []constraint) bool {
	metric, _ := ev.Properties["metric"].(string)
	if metric == "" {
		return false
	}
	pick := func(cs []constraint) []constraint {
		var out []constraint
		for _, c := range cs {
			if metricKey(c.Metric) == metricKey(metric) {
				out = append(out, c)
			}
		}
		return out
	}
	was, now := pick(verified), pick(asked)
	if len(was) == 0 {
		return false
	}
	x, _ := json.Marshal(was)
	y, _ := json.Marshal(now)
	return string(x) == string(y)
}

// ---------------------------------------------------------------- where_used

// usedByEdges are the edges into a part that say something depends on it.
var usedByEdges = []string{twin.EdgeDependsOn, twin.EdgeContains, twin.EdgeUses, twin.EdgeValidAgainst}

func whereUsed(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	t, err := resolveTarget(ctx, b, raw)
	if err != nil {
		return nil, err
	}
	groups := map[string][]map[string]any{}
	for _, e := range usedByEdges {
		groups[e] = []map[string]any{}
	}
	seen := map[string]bool{}
	heads := map[string]string{} // item key -> head node id, for the users
	related := 0
	for _, rev := range t.walk {
		nbs, err := b.Store.Neighbors(ctx, rev.ID, twin.Incoming, usedByEdges...)
		if err != nil {
			return nil, err
		}
		for _, nb := range nbs {
			key := nb.Edge.Type + "\x00" + nb.Node.ID + "\x00" + rev.ID
			if seen[key] {
				continue
			}
			seen[key] = true
			e := nodeBrief(nb.Node)
			e["uses"] = refOrID(rev)
			if t.item != nil {
				e["uses_current"] = rev.ID == t.item.HeadNodeID
			}
			if nb.Node.ItemKey != "" {
				head, ok := heads[nb.Node.ItemKey]
				if !ok {
					it, err := b.Store.ItemOfNode(ctx, nb.Node.ID)
					if err != nil {
						return nil, err
					}
					head = it.HeadNodeID
					heads[nb.Node.ItemKey] = head
				}
				e["is_current_revision"] = head == nb.Node.ID
			}
			if nb.Node.Type == "evidence" {
				f, err := staleness(ctx, b, nb.Node.ID)
				if err != nil {
					return nil, err
				}
				e["stale"] = f.Stale
			}
			groups[nb.Edge.Type] = append(groups[nb.Edge.Type], e)
			related++
		}
	}
	out := map[string]any{
		"part": nodeBrief(t.node), "used_by": groups, "related_count": related,
		"walked": map[string]any{"edges": usedByEdges, "direction": "incoming", "into": t.refs()},
	}
	if t.item != nil {
		out["head_ref"] = t.item.HeadRef()
	}
	if related == 0 {
		out["note"] = fmt.Sprintf("nothing uses %s: no DEPENDS_ON, CONTAINS, USES or VALID_AGAINST edge points into %s (walked incoming "+
			"edges). Nothing depends on it as recorded.", t.label, strings.Join(t.refs(), ", "))
	}
	return out, nil
}

// ----------------------------------------------------------- find_by_property

const maxFound = 200

func findByProperty(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID    string          `json:"project_id"`
		Key          string          `json:"key"`
		Value        json.RawMessage `json:"value"`
		NodeType     string          `json:"node_type"`
		AllRevisions bool            `json:"all_revisions"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	a.Key = strings.TrimSpace(a.Key)
	if a.Key == "" {
		return nil, protocol.Refusal("Missing: key, the property to match")
	}
	var want any
	if err := json.Unmarshal(a.Value, &want); err != nil || want == nil {
		return nil, protocol.Refusal("value must be a string, number or boolean")
	}
	switch want.(type) {
	case string, float64, bool:
	default:
		return nil, protocol.Refusal("value must be a string, number or boolean, not %s", string(a.Value))
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	items, err := b.Store.Items(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	heads := map[string]string{}
	for _, it := range items {
		heads[it.Key] = it.HeadNodeID
	}

	found := []map[string]any{}
	truncated := false
	consider := func(n twin.Node) bool {
		v, ok := propMatches(n, a.Key, want)
		if !ok {
			return true
		}
		if len(found) >= maxFound {
			truncated = true
			return false
		}
		e := nodeBrief(n)
		e["value"] = v
		if n.ItemKey != "" {
			e["is_current_revision"] = heads[n.ItemKey] == n.ID
		}
		found = append(found, e)
		return true
	}
	searched := []string{}
	if a.NodeType != "" {
		nodes, err := b.Store.NodesByType(ctx, p.ID, a.NodeType)
		if err != nil {
			return nil, err
		}
		searched = append(searched, a.NodeType)
		for _, n := range nodes {
			if n.ItemKey != "" && !a.AllRevisions && heads[n.ItemKey] != n.ID {
				continue
			}
			if !consider(n) {
				break
			}
		}
	} else {
		// The store has no property query: walk every item, then every
		// record type the tools write.
		more := true
		for _, it := range items {
			if !more {
				break
			}
			var nodes []twin.Node
			if a.AllRevisions {
				if nodes, err = b.Store.Revisions(ctx, p.ID, it.Key); err != nil {
					return nil, err
				}
			} else {
				n, err := b.Store.GetNode(ctx, it.HeadNodeID)
				if err != nil {
					return nil, err
				}
				nodes = []twin.Node{n}
			}
			for _, n := range nodes {
				if more = consider(n); !more {
					break
				}
			}
		}
		searched = append(searched, "every item")
		for _, rt := range recordTypes() {
			if !more {
				break
			}
			nodes, err := b.Store.NodesByType(ctx, p.ID, rt)
			if err != nil {
				return nil, err
			}
			searched = append(searched, rt)
			for _, n := range nodes {
				if more = consider(n); !more {
					break
				}
			}
		}
	}
	out := map[string]any{"project_id": p.ID, "key": a.Key, "value": want, "nodes": found, "count": len(found), "truncated": truncated,
		"all_revisions": a.AllRevisions}
	if a.NodeType != "" {
		out["node_type"] = a.NodeType
	}
	if len(found) == 0 {
		scope := "current revisions and records"
		if a.AllRevisions {
			scope = "all revisions and records"
		}
		out["note"] = fmt.Sprintf("no node has %s = %s (searched %s: %s)", a.Key, string(a.Value), scope, strings.Join(searched, ", "))
	}
	return out, nil
}

// recordTypes are the node types that are records, not revisions: what an
// untyped property search looks through besides the items.
func recordTypes() []string {
	return append([]string{"evidence", "claim", approvalNodeType}, recordEntities...)
}

// propMatches looks a property up (a dotted path reaches into nested
// objects; name is the node's name when no property has it) and says
// whether it equals want.
func propMatches(n twin.Node, key string, want any) (any, bool) {
	v, ok := lookupProp(n.Properties, key)
	if !ok && key == "name" {
		v, ok = n.Name, true
	}
	if !ok {
		return nil, false
	}
	if rv := reflect.ValueOf(v); v != nil && (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) {
		for i := 0; i < rv.Len(); i++ {
			if valueEquals(rv.Index(i).Interface(), want) {
				return v, true
			}
		}
		return nil, false
	}
	return v, valueEquals(v, want)
}

func lookupProp(props map[string]any, key string) (any, bool) {
	if v, ok := props[key]; ok {
		return v, true
	}
	head, rest, found := strings.Cut(key, ".")
	if !found {
		return nil, false
	}
	inner, ok := props[head].(map[string]any)
	if !ok {
		return nil, false
	}
	return lookupProp(inner, rest)
}

func valueEquals(have, want any) bool {
	switch w := want.(type) {
	case float64:
		if h, ok := numberOf(have); ok {
			return units.Equal(h, w)
		}
		if s, ok := have.(string); ok {
			h, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			return err == nil && units.Equal(h, w)
		}
	case bool:
		h, ok := have.(bool)
		return ok && h == w
	case string:
		if h, ok := have.(string); ok {
			return strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(w))
		}
		if h, ok := numberOf(have); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
			return err == nil && units.Equal(h, f)
		}
	}
	return false
}
