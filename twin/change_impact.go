package twin

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The impact of an engineering change: what in the digital thread rests on
// the revisions a patch replaces, which evidence the change makes stale,
// how to revalidate it, and who must approve the change.

// Approval levels an impact needs, from least to most.
const (
	ApprovalPeer  = "peer"
	ApprovalLead  = "lead"
	ApprovalBoard = "board"
)

// BoardImpactLimit is how many nodes a change may reach before a board
// must approve it.
const BoardImpactLimit = 10

// ImpactDepth bounds the walk: hops from a patched revision.
const ImpactDepth = 6

// ImpactEdges are the edges over which something rests on a node, walked
// against their direction (incoming): evidence VALID_AGAINST a revision,
// an item that DEPENDS_ON, CONTAINS or USES it, an item CONSTRAINED_BY a
// requirement, evidence that VERIFIES it, a claim that SUPPORTS it or is
// SUPPORTED_BY evidence, an entity that RELATES_TO it.
var ImpactEdges = []string{EdgeValidAgainst, EdgeDependsOn, EdgeVerifies, EdgeSupports, EdgeSupportedBy, EdgeContains, EdgeUses,
	EdgeConstrains, EdgeRelatesTo}

// requirementTypes are the node types whose verification a change can put
// in question.
var requirementTypes = map[string]bool{"constraint_set": true, "prd": true, "stakeholder_need": true}

// releasedTypes are records that freeze what they name: reaching one needs
// the board.
var releasedTypes = map[string]bool{"release_package": true, "baseline": true}

// releasedStates are values of a revision's status (or lifecycle_state)
// property that say it is frozen.
var releasedStates = map[string]bool{"released": true, "baselined": true}

// Replay is a recipe to re-run the tool call that produced evidence: what
// evaluate-type tools record in the evidence's data.replay.
type Replay struct {
	ToolID string         `json:"tool_id"`
	Args   map[string]any `json:"args"`
}

// ImpactedNode is a node the change reaches: Depth hops from a patched
// revision, reached over an edge of type Via from the node From (its ref
// or id).
type ImpactedNode struct {
	NodeID string `json:"node_id"`
	Type   string `json:"type"`
	Name   string `json:"name"`
	Ref    string `json:"ref,omitempty"`
	Depth  int    `json:"depth"`
	Via    string `json:"via"`
	From   string `json:"from,omitempty"`
}

// PlanEntry is one evidence in a revalidation plan.
type PlanEntry struct {
	EvidenceID string `json:"evidence_id"`
	Name       string `json:"name"`
	Metric     string `json:"metric,omitempty"`
	// PinnedTo are the patched refs (KEY@n) it is VALID_AGAINST.
	PinnedTo []string `json:"pinned_to"`
	// Replay is nil when the evidence carries no recipe.
	Replay *Replay `json:"replay,omitempty"`
	// Reason says why it goes stale, or why a person must review it.
	Reason string `json:"reason"`
}

// RevalidationPlan is what to do about the evidence a change reaches: re-run
// what has a recipe, and hand the rest to a person, never guessing.
type RevalidationPlan struct {
	Replay             []PlanEntry `json:"replay"`
	ManualReviewNeeded []PlanEntry `json:"manual_review_needed"`
}

// ChangeImpact is what a patch reaches in the twin. The patched revisions
// themselves are in Patched, not in the lists.
type ChangeImpact struct {
	ProjectID    string         `json:"project_id"`
	Patched      []string       `json:"patched"`
	Items        []ImpactedNode `json:"items"`
	Requirements []ImpactedNode `json:"requirements"`
	Evidence     []ImpactedNode `json:"evidence"`
	Claims       []ImpactedNode `json:"claims"`
	Other        []ImpactedNode `json:"other"`
	// Stale is the evidence the commit makes stale: VALID_AGAINST a
	// patched revision and not already superseded.
	Stale          []PlanEntry      `json:"stale"`
	Plan           RevalidationPlan `json:"plan"`
	ApprovalLevel  string           `json:"approval_level"`
	ApprovalReason string           `json:"approval_reason"`
	// Truncated: the walk stopped at MaxThreadNodes nodes; there may be
	// more.
	Truncated bool `json:"truncated"`
}

// Reached is how many nodes the change reaches, the patched revisions
// aside.
func (c ChangeImpact) Reached() int {
	return len(c.Items) + len(c.Requirements) + len(c.Evidence) + len(c.Claims) + len(c.Other)
}

// AnalyzeChange walks the digital thread from the patched revisions (the
// patch is checked first, as CheckPatch does) and says what the patch
// reaches, which evidence goes stale, the revalidation plan and the
// approval level. It reads only.
//
// The walk follows ImpactEdges incoming, transitively, up to ImpactDepth
// hops. Evidence also leads to the requirements it VERIFIES, and a claim
// to those it SUPPORTS: their verification is in question, but nothing
// rests on them because of the change, so the walk stops there.
//
// The plan: stale evidence that carries a replay recipe (data.replay =
// {tool_id, args}) is to be replayed; stale evidence without one, and
// evidence reached some other way (pinned to something that rests on a
// patched revision, or verifying a patched requirement) that is not
// superseded, needs a person, with the reason.
//
// The approval level: board when the change reaches more than
// BoardImpactLimit nodes or a frozen thing (a release package or baseline,
// or a revision whose status is released or baselined); else lead when it
// changes or reaches a requirement or a claim (something verified); else
// peer.
func AnalyzeChange(ctx context.Context, s Store, projectID string, patch []PatchOp) (ChangeImpact, error) {
	roots, err := CheckPatch(ctx, s, projectID, patch)
	if err != nil {
		return ChangeImpact{}, err
	}
	out := ChangeImpact{ProjectID: projectID, Patched: []string{}, Items: []ImpactedNode{}, Requirements: []ImpactedNode{},
		Evidence: []ImpactedNode{}, Claims: []ImpactedNode{}, Other: []ImpactedNode{}, Stale: []PlanEntry{},
		Plan: RevalidationPlan{Replay: []PlanEntry{}, ManualReviewNeeded: []PlanEntry{}}}
	patched := map[string]string{} // node id -> KEY@n
	seen := map[string]bool{}
	var frontier []Node
	for _, n := range roots {
		out.Patched = append(out.Patched, n.Ref())
		patched[n.ID] = n.Ref()
		seen[n.ID] = true
		frontier = append(frontier, n)
	}
	var reached []Node
	for d := 1; d <= ImpactDepth && len(frontier) > 0 && !out.Truncated; d++ {
		var next []Node
		for _, n := range frontier {
			nbs, err := impactNeighbors(ctx, s, n)
			if err != nil {
				return ChangeImpact{}, err
			}
			for _, nb := range nbs {
				if seen[nb.Node.ID] {
					continue
				}
				if len(seen) >= MaxThreadNodes {
					out.Truncated = true
					break
				}
				seen[nb.Node.ID] = true
				in := ImpactedNode{NodeID: nb.Node.ID, Type: nb.Node.Type, Name: nb.Node.Name, Ref: nb.Node.Ref(), Depth: d, Via: nb.Edge.Type,
					From: n.RefOrID()}
				out.add(in)
				reached = append(reached, nb.Node)
				// What a requirement's verification rests on is not
				// changed by reaching it from evidence or a claim.
				if !(requirementTypes[nb.Node.Type] && (nb.Edge.From == n.ID)) {
					next = append(next, nb.Node)
				}
			}
		}
		frontier = next
	}
	if err := out.plan(ctx, s, reached, patched); err != nil {
		return ChangeImpact{}, err
	}
	out.ApprovalLevel, out.ApprovalReason = approvalFor(out, roots, reached)
	return out, nil
}

// impactNeighbors are the nodes one step further from n: what rests on it,
// and for evidence and claims the requirements they bear on.
func impactNeighbors(ctx context.Context, s Store, n Node) ([]Neighbor, error) {
	nbs, err := s.Neighbors(ctx, n.ID, Incoming, ImpactEdges...)
	if err != nil {
		return nil, err
	}
	var bears string
	switch n.Type {
	case "evidence":
		bears = EdgeVerifies
	case "claim":
		bears = EdgeSupports
	default:
		return nbs, nil
	}
	out, err := s.Neighbors(ctx, n.ID, Outgoing, bears)
	if err != nil {
		return nil, err
	}
	return append(nbs, out...), nil
}

// add files a reached node under its kind.
func (c *ChangeImpact) add(in ImpactedNode) {
	switch {
	case in.Type == "evidence":
		c.Evidence = append(c.Evidence, in)
	case in.Type == "claim":
		c.Claims = append(c.Claims, in)
	case requirementTypes[in.Type]:
		c.Requirements = append(c.Requirements, in)
	case in.Ref != "":
		c.Items = append(c.Items, in)
	default:
		c.Other = append(c.Other, in)
	}
}

// plan sorts the reached evidence into stale, replay and manual review.
func (c *ChangeImpact) plan(ctx context.Context, s Store, reached []Node, patched map[string]string) error {
	for _, ev := range reached {
		if ev.Type != "evidence" {
			continue
		}
		by, err := SupersededBy(ctx, s, ev.ID)
		if err != nil {
			return err
		}
		if len(by) > 0 {
			continue // already replaced; what replaced it is judged on its own
		}
		pins, err := s.Neighbors(ctx, ev.ID, Outgoing, EdgeValidAgainst)
		if err != nil {
			return err
		}
		e := PlanEntry{EvidenceID: ev.ID, Name: ev.Name, PinnedTo: []string{}}
		e.Metric, _ = ev.Properties["metric"].(string)
		for _, p := range pins {
			if ref, ok := patched[p.Node.ID]; ok {
				e.PinnedTo = append(e.PinnedTo, ref)
			}
		}
		if len(e.PinnedTo) == 0 {
			e.Reason = fmt.Sprintf("it rests on what the change touches (%s) but is not pinned to a patched revision, so it will not "+
				"show as stale: check that it still holds, and re-record it if not", reachedThrough(c.Evidence, ev.ID))
			c.Plan.ManualReviewNeeded = append(c.Plan.ManualReviewNeeded, e)
			continue
		}
		pinned := strings.Join(e.PinnedTo, ", ")
		r, problem := ReplayOf(ev)
		switch {
		case r != nil:
			e.Replay = r
			e.Reason = fmt.Sprintf("pinned to %s, which the change replaces; its recipe re-runs %s on the new revision", pinned, r.ToolID)
			c.Plan.Replay = append(c.Plan.Replay, e)
		case problem != "":
			e.Reason = fmt.Sprintf("pinned to %s, which the change replaces, and its replay recipe is unusable (%s): re-run it by hand "+
				"and record evidence that supersedes it", pinned, problem)
			c.Plan.ManualReviewNeeded = append(c.Plan.ManualReviewNeeded, e)
		default:
			e.Reason = fmt.Sprintf("pinned to %s, which the change replaces, and it carries no replay recipe (data.replay): re-check it "+
				"by hand and record evidence that supersedes it", pinned)
			c.Plan.ManualReviewNeeded = append(c.Plan.ManualReviewNeeded, e)
		}
		stale := e
		stale.Reason = fmt.Sprintf("VALID_AGAINST %s, which the change replaces", pinned)
		c.Stale = append(c.Stale, stale)
	}
	return nil
}

// reachedThrough says how the walk reached a node: "VALID_AGAINST from
// ASM@1".
func reachedThrough(ns []ImpactedNode, id string) string {
	for _, n := range ns {
		if n.NodeID == id {
			return fmt.Sprintf("%s %s", n.Via, n.From)
		}
	}
	return "reached"
}

// ReplayOf is the replay recipe evidence carries in data.replay, nil when
// it carries none; problem says what is wrong with one it cannot use.
func ReplayOf(ev Node) (r *Replay, problem string) {
	data, _ := ev.Properties["data"].(map[string]any)
	raw, ok := data["replay"]
	if !ok || raw == nil {
		return nil, ""
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Sprintf("data.replay is a %T, not {tool_id, args}", raw)
	}
	tool, _ := m["tool_id"].(string)
	if strings.TrimSpace(tool) == "" {
		return nil, "data.replay has no tool_id"
	}
	args, ok := m["args"].(map[string]any)
	if !ok {
		return nil, "data.replay has no args object"
	}
	if !ReplayableTools[tool] {
		return nil, fmt.Sprintf("its recipe names %s, which is not a tool revalidation re-runs (only %s): a recipe is data anyone could record, so it is never trusted to start another tool", tool, strings.Join(slices.Sorted(maps.Keys(ReplayableTools)), ", "))
	}
	if _, ok := args["tier2"]; ok {
		return nil, "it was solved on a mesh of the old geometry (tier2.mesh_file): re-mesh the committed revision and run twin.evaluate_metric with its tier2 inputs"
	}
	return &Replay{ToolID: tool, Args: args}, ""
}

// ReplayableTools are the tools a revalidation re-runs from a recipe: ones
// that recompute from the twin's own record of the revision, so the same
// arguments on the next revision describe the changed design.
var ReplayableTools = map[string]bool{"twin.evaluate_metric": true}

// approvalFor is the level the impact needs and why.
func approvalFor(c ChangeImpact, roots, reached []Node) (string, string) {
	for _, n := range append(append([]Node{}, roots...), reached...) {
		if releasedTypes[n.Type] {
			return ApprovalBoard, fmt.Sprintf("the change reaches %s %s: what a release or baseline froze needs the board", n.Type, n.Label())
		}
		for _, p := range []string{"status", "lifecycle_state"} {
			if st, _ := n.Properties[p].(string); releasedStates[strings.ToLower(st)] {
				return ApprovalBoard, fmt.Sprintf("the change reaches %s, which is %s: a frozen revision needs the board", n.Label(), st)
			}
		}
	}
	if k := c.Reached(); k > BoardImpactLimit {
		return ApprovalBoard, fmt.Sprintf("the change reaches %d nodes, more than %d: an impact that wide needs the board", k, BoardImpactLimit)
	}
	if c.Truncated {
		return ApprovalBoard, fmt.Sprintf("the change reaches more than %d nodes (the walk stopped): an impact that wide needs the board", MaxThreadNodes)
	}
	var verified []string
	for _, n := range roots {
		if requirementTypes[n.Type] {
			verified = append(verified, n.Ref()+" (patched)")
		}
	}
	for _, n := range c.Requirements {
		verified = append(verified, n.Ref)
	}
	for _, n := range c.Claims {
		verified = append(verified, "claim "+n.NodeID)
	}
	if len(verified) > 0 {
		return ApprovalLead, fmt.Sprintf("the change reaches what is verified (%s): a lead must approve it", strings.Join(verified, ", "))
	}
	return ApprovalPeer, fmt.Sprintf("the change reaches %d nodes and no requirement or claim: a peer may approve it", c.Reached())
}
