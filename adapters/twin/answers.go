package twin

import "github.com/metaforge/metaforge/twin"

// How the twin's answers read in tool results: the shapes several tools
// share.

// nodeBrief is how the read and thread tools show a node.
func nodeBrief(n twin.Node) map[string]any {
	out := map[string]any{"node_id": n.ID, "node_type": n.Type, "name": n.Name}
	if ref := n.Ref(); ref != "" {
		out["item_ref"] = ref
	}
	return out
}

// evidenceEntry is how claims and twin.what_verifies show a piece of
// evidence.
func evidenceEntry(ev twin.Node, f twin.Freshness) map[string]any {
	e := map[string]any{"node_id": ev.ID, "name": ev.Name, "kind": ev.Properties["kind"], "metric": ev.Properties["metric"],
		"value": ev.Properties["value"], "unit": ev.Properties["unit"], "stale": f.Stale}
	if f.Stale {
		e["stale_against"] = f.Against
	}
	return e
}

// checkEntries are evidence checks as a result lists them.
func checkEntries(cks []twin.EvidenceCheck) []map[string]any {
	out := []map[string]any{}
	for _, ck := range cks {
		out = append(out, map[string]any{"requirement": ck.Constraint.Name, "limit": ck.Limit(), "verdict": ck.Verdict})
	}
	return out
}

// claimStatusAnswer is a claim's status as twin.record_claim returns it:
// status, reasons, evidence and requirement.
func claimStatusAnswer(st twin.ClaimStatus) map[string]any {
	evidence := []map[string]any{}
	for _, e := range st.Evidence {
		entry := evidenceEntry(e.Node, e.Freshness)
		entry["checks"] = checkEntries(e.Checks)
		evidence = append(evidence, entry)
	}
	requirement := map[string]any{}
	if r := st.Requirement; r != nil {
		requirement["ref"], requirement["node_id"] = r.Ref, r.NodeID
		if r.Name != "" {
			requirement["name"] = r.Name
			requirement["metric"], requirement["operator"], requirement["unit"] = r.Metric, r.Operator, r.Unit
			if r.Limit != nil {
				requirement["limit"] = *r.Limit
			}
		}
		if r.HeadRef != "" {
			requirement["head_ref"] = r.HeadRef
		}
	}
	return map[string]any{"status": st.Status, "reasons": st.Reasons, "evidence": evidence, "requirement": requirement}
}
