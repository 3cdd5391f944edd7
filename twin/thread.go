package twin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// The digital thread: walks along the twin's edges. Edges point
// child-to-parent (evidence VERIFIES a requirement, a decision DEPENDS_ON
// what it rests on, a revision is REVISION_OF the one before), so what a
// node rests on is outgoing, and what rests on it incoming.

// Bounds of a thread walk.
const (
	DefaultThreadDepth = 2
	MaxThreadDepth     = 5
	MaxThreadNodes     = 500
)

// WalkSpec is how far and which way a walk goes.
type WalkSpec struct {
	Depth     int
	Direction Direction
	// EdgeTypes restricts the walk to these edges; nil follows all.
	EdgeTypes []string
}

// NewWalkSpec checks a walk's depth (nil: DefaultThreadDepth) and
// direction ("": outgoing), refusing what it cannot walk.
func NewWalkSpec(depth *int, direction string, edgeTypes []string) (WalkSpec, error) {
	w := WalkSpec{Depth: DefaultThreadDepth, Direction: Direction(direction), EdgeTypes: edgeTypes}
	if depth != nil {
		w.Depth = *depth
	}
	if w.Depth < 1 || w.Depth > MaxThreadDepth {
		return WalkSpec{}, Refusef("depth %d: walk 1 to %d hops", w.Depth, MaxThreadDepth)
	}
	switch w.Direction {
	case "":
		w.Direction = Outgoing
	case Outgoing, Incoming, Both:
	default:
		return WalkSpec{}, Refusef("direction %q: use outgoing, incoming or both", direction)
	}
	return w, nil
}

// WalkedNode is a node a walk reached, and how many hops from the root.
type WalkedNode struct {
	Node  Node
	Depth int
}

// Walk is what a walk reached: the root first (depth 0), each node once,
// each edge once.
type Walk struct {
	Root      Node
	Nodes     []WalkedNode
	Edges     []Edge
	Truncated bool
	// Note says which walk found nothing, when no edge was reached.
	Note string
}

// From walks the thread from root, breadth first, stopping at
// MaxThreadNodes nodes (Truncated).
func (w WalkSpec) From(ctx context.Context, s Store, root Node) (Walk, error) {
	out := Walk{Root: root, Nodes: []WalkedNode{{Node: root}}, Edges: []Edge{}}
	seenNode := map[string]bool{root.ID: true}
	seenEdge := map[string]bool{}
	frontier := []Node{root}
	for d := 1; d <= w.Depth && len(frontier) > 0 && !out.Truncated; d++ {
		var next []Node
		for _, n := range frontier {
			nbs, err := s.Neighbors(ctx, n.ID, w.Direction, w.EdgeTypes...)
			if err != nil {
				return Walk{}, err
			}
			for _, nb := range nbs {
				if !seenNode[nb.Node.ID] {
					if len(out.Nodes) >= MaxThreadNodes {
						out.Truncated = true
						continue
					}
					seenNode[nb.Node.ID] = true
					out.Nodes = append(out.Nodes, WalkedNode{Node: nb.Node, Depth: d})
					next = append(next, nb.Node)
				}
				key := nb.Edge.Type + "\x00" + nb.Edge.From + "\x00" + nb.Edge.To
				if seenEdge[key] {
					continue
				}
				seenEdge[key] = true
				out.Edges = append(out.Edges, nb.Edge)
			}
		}
		frontier = next
	}
	if len(out.Edges) == 0 {
		out.Note = w.emptyNote(root)
	}
	return out, nil
}

// emptyNote says which walk found nothing, so an empty thread does not
// read as "nothing is linked" when the walk went the wrong way.
func (w WalkSpec) emptyNote(root Node) string {
	which := "edges"
	if len(w.EdgeTypes) > 0 {
		which = strings.Join(w.EdgeTypes, ", ") + " edges"
	}
	switch w.Direction {
	case Outgoing:
		return fmt.Sprintf("nothing is reached from %s walking outgoing %s (depth %d). Edges point child-to-parent: evidence VERIFIES a "+
			"requirement, a decision DEPENDS_ON a part, so a requirement or a part is usually an edge target. Walk direction \"incoming\" "+
			"or \"both\", or ask twin.what_verifies (for a requirement) or twin.where_used (for a part).", root.Label(), which, w.Depth)
	case Incoming:
		return fmt.Sprintf("nothing points at %s: no incoming %s (depth %d). Walk direction \"outgoing\" for what it rests on, or \"both\".",
			root.Label(), which, w.Depth)
	}
	return fmt.Sprintf("%s has no %s in either direction: nothing is linked to it.", root.Label(), which)
}

// Target is the node a thread question is about, and the nodes to walk
// into: every revision of an item named by a bare KEY (newest first),
// else the node itself.
type Target struct {
	Node Node
	Walk []Node
	// Item is the node's item; nil for a record.
	Item *Item
	// Label is what the question named: KEY, KEY@n or the node.
	Label string
}

// TargetOf makes n the target of a question; itemKey is the item_key the
// question named it by, if any: a bare KEY walks every revision.
func TargetOf(ctx context.Context, s Store, n Node, itemKey string) (Target, error) {
	t := Target{Node: n, Walk: []Node{n}, Label: n.Label()}
	if n.ItemKey == "" {
		return t, nil
	}
	it, err := s.ItemOfNode(ctx, n.ID)
	if err != nil {
		return Target{}, err
	}
	t.Item = &it
	if itemKey != "" {
		if _, rev, err := ParseItemRef(itemKey); err == nil && rev == 0 {
			revs, err := s.Revisions(ctx, it.ProjectID, it.Key)
			if err != nil {
				return Target{}, err
			}
			// Newest first: the current revision's links lead.
			t.Walk = t.Walk[:0]
			for i := len(revs) - 1; i >= 0; i-- {
				t.Walk = append(t.Walk, revs[i])
			}
			t.Label = it.Key
		}
	}
	return t, nil
}

// Refs names the nodes walked into: KEY@n, or the node id of a record.
func (t Target) Refs() []string {
	out := []string{}
	for _, n := range t.Walk {
		out = append(out, n.RefOrID())
	}
	return out
}

// Verification is what supports a requirement.
type Verification struct {
	// Requirement is the revision "verified" is about.
	Requirement Node
	// Verified is true only when current evidence (not stale, against
	// requirements that have not changed since, breaking none of them) or
	// a supported claim backs it.
	Verified bool
	Evidence []VerifyingEvidence
	Claims   []VerifyingClaim
	// Other are nodes linked by VERIFIES or SUPPORTS that are neither.
	Other []LinkedNode
	// Related counts evidence, claims and other links.
	Related int
	// Note says why nothing, or nothing current, verifies it.
	Note string
}

// VerifyingEvidence is evidence that VERIFIES the requirement or an
// earlier revision of it.
type VerifyingEvidence struct {
	Node      Node
	Freshness Freshness
	// Verifies are the revisions it points at (KEY@n).
	Verifies []string
	// Checks are its value against the asked requirements.
	Checks []EvidenceCheck
	// RequirementChanged: it verified an earlier revision whose
	// requirements on its metric read differently now.
	RequirementChanged bool
}

// VerifyingClaim is a claim that SUPPORTS the requirement or an earlier
// revision of it, with its status now.
type VerifyingClaim struct {
	Node           Node
	RequirementRef string
	Status         ClaimStatus
}

// LinkedNode is a node linked to a revision by Edge.
type LinkedNode struct {
	Node           Node
	Edge           string
	RequirementRef string
}

// WhatVerifies lists the evidence and claims that support a requirement:
// the VERIFIES and SUPPORTS edges into each revision the target walks.
func WhatVerifies(ctx context.Context, s Store, t Target) (Verification, error) {
	asked := t.Node
	askedScope, err := ReadConstraints(asked)
	if err != nil {
		return Verification{}, err
	}
	type evidenceHit struct {
		node     Node
		verifies []string
		current  bool // against the asked revision, or one whose relevant requirements are unchanged
	}
	var evOrder []string
	evHits := map[string]*evidenceHit{}
	v := Verification{Requirement: asked, Evidence: []VerifyingEvidence{}, Claims: []VerifyingClaim{}}
	seenClaim := map[string]bool{}
	for _, rev := range t.Walk {
		revScope, err := ReadConstraints(rev)
		if err != nil {
			return Verification{}, err
		}
		nbs, err := s.Neighbors(ctx, rev.ID, Incoming, EdgeVerifies, EdgeSupports)
		if err != nil {
			return Verification{}, err
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
				h.verifies = append(h.verifies, rev.RefOrID())
				if rev.ID == asked.ID || sameRequirementsFor(nb.Node, revScope, askedScope) {
					h.current = true
				}
			case "claim":
				if seenClaim[nb.Node.ID] {
					continue
				}
				seenClaim[nb.Node.ID] = true
				st, err := StatusOfClaim(ctx, s, nb.Node.ID)
				if err != nil {
					return Verification{}, err
				}
				v.Claims = append(v.Claims, VerifyingClaim{Node: nb.Node, RequirementRef: rev.RefOrID(), Status: st})
			default:
				v.Other = append(v.Other, LinkedNode{Node: nb.Node, Edge: nb.Edge.Type, RequirementRef: rev.RefOrID()})
			}
		}
	}

	var staleCount, olderCount, violating int
	for _, id := range evOrder {
		h := evHits[id]
		f, err := Staleness(ctx, s, id)
		if err != nil {
			return Verification{}, err
		}
		e := VerifyingEvidence{Node: h.node, Freshness: f, Verifies: h.verifies, Checks: []EvidenceCheck{}, RequirementChanged: !h.current}
		broken := false
		for _, ck := range CheckEvidence(h.node, askedScope) {
			e.Checks = append(e.Checks, ck)
			broken = broken || ck.Verdict == VerdictViolates
		}
		switch {
		case f.Stale:
			staleCount++
		case !h.current:
			olderCount++
		case broken:
			violating++
		default:
			v.Verified = true
		}
		v.Evidence = append(v.Evidence, e)
	}
	for _, c := range v.Claims {
		if c.Status.Status == ClaimSupported {
			v.Verified = true
		}
	}
	v.Related = len(v.Evidence) + len(v.Claims) + len(v.Other)
	switch {
	case v.Related == 0:
		v.Note = fmt.Sprintf("nothing verifies %s: no VERIFIES or SUPPORTS edge points into %s (walked incoming edges). "+
			"Nothing is recorded; record a result with twin.record_evidence (verifies: [%s]) or a claim with twin.record_claim.",
			t.Label, strings.Join(t.Refs(), ", "), asked.RefOrID())
	case !v.Verified:
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
		if len(v.Claims) > 0 {
			why = append(why, fmt.Sprintf("%d claims, none supported", len(v.Claims)))
		}
		if len(why) == 0 {
			why = append(why, "no evidence, only other links")
		}
		v.Note = fmt.Sprintf("%s is not verified: %s. Re-run the analysis on the current design and record it with twin.record_evidence.",
			asked.RefOrID(), strings.Join(why, "; "))
	}
	return v, nil
}

// sameRequirementsFor: evidence that verified an earlier revision of a
// constraint set still bears on the asked one when the requirements on its
// metric read the same in both.
func sameRequirementsFor(ev Node, verified, asked []Constraint) bool {
	metric, _ := ev.Properties["metric"].(string)
	if metric == "" {
		return false
	}
	pick := func(cs []Constraint) []Constraint {
		var out []Constraint
		for _, c := range cs {
			if MetricKey(c.Metric) == MetricKey(metric) {
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

// UsedByEdges are the edges into a part that say something depends on it.
var UsedByEdges = []string{EdgeDependsOn, EdgeContains, EdgeUses, EdgeValidAgainst}

// Usage is what depends on a part.
type Usage struct {
	Part Node
	// UsedBy groups the users by the edge type into the part, one list
	// (maybe empty) for each of UsedByEdges.
	UsedBy map[string][]User
	// Related counts the users.
	Related int
	Note    string
}

// User is a node with an edge into a revision of the part.
type User struct {
	Node Node
	// Uses is the revision it points at (KEY@n, or a node id).
	Uses string
	// UsesCurrent says whether that is the part's head; nil when the part
	// is a record.
	UsesCurrent *bool
	// IsCurrentRevision says whether the user is its own item's head; nil
	// for a record.
	IsCurrentRevision *bool
	// Stale says whether evidence is stale; nil for anything else.
	Stale *bool
}

// WhereUsed lists what depends on a part: the DEPENDS_ON, CONTAINS, USES
// and VALID_AGAINST edges into each revision the target walks.
func WhereUsed(ctx context.Context, s Store, t Target) (Usage, error) {
	u := Usage{Part: t.Node, UsedBy: map[string][]User{}}
	for _, e := range UsedByEdges {
		u.UsedBy[e] = []User{}
	}
	seen := map[string]bool{}
	heads := map[string]string{} // item key -> head node id, for the users
	for _, rev := range t.Walk {
		nbs, err := s.Neighbors(ctx, rev.ID, Incoming, UsedByEdges...)
		if err != nil {
			return Usage{}, err
		}
		for _, nb := range nbs {
			key := nb.Edge.Type + "\x00" + nb.Node.ID + "\x00" + rev.ID
			if seen[key] {
				continue
			}
			seen[key] = true
			user := User{Node: nb.Node, Uses: rev.RefOrID()}
			if t.Item != nil {
				current := rev.ID == t.Item.HeadNodeID
				user.UsesCurrent = &current
			}
			if nb.Node.ItemKey != "" {
				head, ok := heads[nb.Node.ItemKey]
				if !ok {
					it, err := s.ItemOfNode(ctx, nb.Node.ID)
					if err != nil {
						return Usage{}, err
					}
					head = it.HeadNodeID
					heads[nb.Node.ItemKey] = head
				}
				isHead := head == nb.Node.ID
				user.IsCurrentRevision = &isHead
			}
			if nb.Node.Type == "evidence" {
				f, err := Staleness(ctx, s, nb.Node.ID)
				if err != nil {
					return Usage{}, err
				}
				user.Stale = &f.Stale
			}
			u.UsedBy[nb.Edge.Type] = append(u.UsedBy[nb.Edge.Type], user)
			u.Related++
		}
	}
	if u.Related == 0 {
		u.Note = fmt.Sprintf("nothing uses %s: no DEPENDS_ON, CONTAINS, USES or VALID_AGAINST edge points into %s (walked incoming "+
			"edges). Nothing depends on it as recorded.", t.Label, strings.Join(t.Refs(), ", "))
	}
	return u, nil
}
