package twin

import (
	"context"
	"fmt"
	"strings"
)

// A release package is a versioned snapshot of what a project releases:
// the node ids of its parts, components, evidence and decisions and the
// item revisions (KEY@n), never a copy of their content. It is recorded
// only when the G8 release gate passes, so stale evidence, an unfixed
// configuration or an unapproved waiver cannot ship.

// ReleasePackageNodeType is the record a release leaves.
const ReleasePackageNodeType = "release_package"

// EdgeReleases links a release package to the baseline it releases.
const EdgeReleases = "RELEASES"

// ReleaseWrite asks for a release package.
type ReleaseWrite struct {
	ProjectID, Reason, CreatedBy string
	IdempotencyKey               string
}

// ReleaseCounts counts a release's snapshot by kind.
type ReleaseCounts struct {
	Hierarchy int `json:"hierarchy"`
	BOM       int `json:"bom"`
	Evidence  int `json:"evidence"`
	Decisions int `json:"decisions"`
	Items     int `json:"items"`
}

// ReleasePackage is a recorded release.
type ReleasePackage struct {
	Node    Node   `json:"node"`
	Version int    `json:"version"`
	Reason  string `json:"reason,omitempty"`
	// Baseline is the baseline it releases (node id).
	Baseline string `json:"baseline_id"`
	// Hierarchy are the cad_model heads, BOM the component_selection
	// heads, Evidence the evidence no fresher evidence supersedes,
	// Decisions the decision heads (node ids); Items every item's KEY@n.
	Hierarchy []string      `json:"hierarchy"`
	BOM       []string      `json:"bom"`
	Evidence  []string      `json:"evidence"`
	Decisions []string      `json:"decisions"`
	Items     []string      `json:"items"`
	Counts    ReleaseCounts `json:"counts"`
	// Delta is Counts minus the previous package's (all of Counts for
	// the first).
	Delta ReleaseCounts `json:"delta"`
	// Gate is G8 as it passed.
	Gate *Gate `json:"gate,omitempty"`
}

// CreateReleasePackage records the next release package of a project,
// refused (a *RefusalError naming every check that does not pass) unless
// G8 passes. The snapshot is written only if no item moved while it was
// read. A repeated idempotency key returns the package it made.
func CreateReleasePackage(ctx context.Context, s Store, w ReleaseWrite) (ReleasePackage, error) {
	prev, err := ReleasePackages(ctx, s, w.ProjectID)
	if err != nil {
		return ReleasePackage{}, err
	}
	for _, p := range prev {
		if w.IdempotencyKey != "" && p.Node.CallID == w.IdempotencyKey {
			return p, nil
		}
	}
	g8, err := ReleaseGate(ctx, s, w.ProjectID)
	if err != nil {
		return ReleasePackage{}, err
	}
	if !g8.Passed {
		return ReleasePackage{}, Refusef("no release package was recorded: the G8 release gate is %s. %s", g8.Status, g8.Summary())
	}
	bs, err := Baselines(ctx, s, w.ProjectID)
	if err != nil {
		return ReleasePackage{}, err
	}
	rp := ReleasePackage{Version: len(prev) + 1, Reason: strings.TrimSpace(w.Reason), Baseline: bs[len(bs)-1].Node.ID,
		Hierarchy: []string{}, BOM: []string{}, Evidence: []string{}, Decisions: []string{}, Items: []string{}}
	items, err := s.Items(ctx, w.ProjectID)
	if err != nil {
		return ReleasePackage{}, err
	}
	heads := map[string]int{}
	for _, it := range items {
		heads[it.Key] = it.HeadRevision
		rp.Items = append(rp.Items, it.HeadRef())
		switch it.ItemType {
		case "cad_model":
			rp.Hierarchy = append(rp.Hierarchy, it.HeadNodeID)
		case "component_selection":
			rp.BOM = append(rp.BOM, it.HeadNodeID)
		case "decision":
			rp.Decisions = append(rp.Decisions, it.HeadNodeID)
		}
	}
	evs, err := s.NodesByType(ctx, w.ProjectID, "evidence")
	if err != nil {
		return ReleasePackage{}, err
	}
	for _, ev := range evs {
		by, err := SupersededBy(ctx, s, ev.ID)
		if err != nil {
			return ReleasePackage{}, err
		}
		if len(by) == 0 {
			rp.Evidence = append(rp.Evidence, ev.ID)
		}
	}
	rp.Counts = ReleaseCounts{Hierarchy: len(rp.Hierarchy), BOM: len(rp.BOM), Evidence: len(rp.Evidence), Decisions: len(rp.Decisions),
		Items: len(rp.Items)}
	rp.Delta = rp.Counts
	if len(prev) > 0 {
		p := prev[len(prev)-1].Counts
		rp.Delta = ReleaseCounts{Hierarchy: rp.Counts.Hierarchy - p.Hierarchy, BOM: rp.Counts.BOM - p.BOM, Evidence: rp.Counts.Evidence - p.Evidence,
			Decisions: rp.Counts.Decisions - p.Decisions, Items: rp.Counts.Items - p.Items}
	}
	props := map[string]any{"version": rp.Version, "baseline_id": rp.Baseline, "hierarchy": rp.Hierarchy, "bom": rp.BOM,
		"evidence": rp.Evidence, "decisions": rp.Decisions, "items": rp.Items, "counts": countsMap(rp.Counts), "delta": countsMap(rp.Delta),
		"created_by": w.CreatedBy}
	if rp.Reason != "" {
		props["reason"] = rp.Reason
	}
	n, err := s.RecordNode(ctx, RecordWrite{ProjectID: w.ProjectID, Type: ReleasePackageNodeType, Name: fmt.Sprintf("Release %d", rp.Version),
		Properties: props, Links: []Link{{Type: EdgeReleases, To: rp.Baseline}}, IdempotencyKey: w.IdempotencyKey, ExpectHeads: heads})
	if err != nil {
		return ReleasePackage{}, err
	}
	rp.Node, rp.Gate = n, &g8
	return rp, nil
}

// ReleasePackages lists a project's release packages, oldest first.
func ReleasePackages(ctx context.Context, s Store, projectID string) ([]ReleasePackage, error) {
	ns, err := s.NodesByType(ctx, projectID, ReleasePackageNodeType)
	if err != nil {
		return nil, err
	}
	out := make([]ReleasePackage, 0, len(ns))
	for _, n := range ns {
		v, ok := NumberOf(n.Properties["version"])
		if !ok {
			continue // recorded by hand before releases were gated: no snapshot
		}
		rp := ReleasePackage{Node: n, Version: int(v), Hierarchy: orEmpty(stringList(n.Properties["hierarchy"])),
			BOM: orEmpty(stringList(n.Properties["bom"])), Evidence: orEmpty(stringList(n.Properties["evidence"])),
			Decisions: orEmpty(stringList(n.Properties["decisions"])), Items: orEmpty(stringList(n.Properties["items"])),
			Counts: countsOf(n.Properties["counts"]), Delta: countsOf(n.Properties["delta"])}
		rp.Reason, _ = n.Properties["reason"].(string)
		rp.Baseline, _ = n.Properties["baseline_id"].(string)
		out = append(out, rp)
	}
	return out, nil
}

func countsMap(c ReleaseCounts) map[string]any {
	return map[string]any{"hierarchy": c.Hierarchy, "bom": c.BOM, "evidence": c.Evidence, "decisions": c.Decisions, "items": c.Items}
}

func countsOf(v any) ReleaseCounts {
	m, _ := v.(map[string]any)
	get := func(k string) int {
		f, _ := NumberOf(m[k])
		return int(f)
	}
	return ReleaseCounts{Hierarchy: get("hierarchy"), BOM: get("bom"), Evidence: get("evidence"), Decisions: get("decisions"), Items: get("items")}
}
