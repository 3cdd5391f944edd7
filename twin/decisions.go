package twin

import (
	"context"
	"fmt"
	"strings"
)

// Alternative is an option a decision rejected, and why.
type Alternative struct {
	Option string `json:"option"`
	Reason string `json:"reason"`
}

// EdgeGeneratedFrom points from a decision to what it chose: a trade
// study's winning concept option, a selected component's BOM item, a
// design loop's winning iteration.
const EdgeGeneratedFrom = "GENERATED_FROM"

// DecisionWrite is a decision to record.
type DecisionWrite struct {
	ProjectID                 string
	Name, Decision, Rationale string
	Alternatives              []Alternative
	// DependsOn are the item refs (KEY@n, KEY) the decision rests on;
	// SupportedBy the node ids of the evidence it cites.
	DependsOn, SupportedBy []string
	// GeneratedFrom are the nodes (KEY@n, KEY or a node id) the decision
	// chose, linked GENERATED_FROM, so a reader walks from the chosen
	// option to the decision that chose it.
	GeneratedFrom []string
	// Details are what the rule that decided computed (a trade study's
	// scores, a selection's margins), recorded beside the decision; they
	// never replace decision, alternatives, rationale or depends_on.
	Details map[string]any
	WriteInfo
}

// Check refuses a decision with nothing decided, or an alternative with
// no option or no reason.
func (d DecisionWrite) Check() error {
	if strings.TrimSpace(d.Name) == "" || strings.TrimSpace(d.Decision) == "" {
		return Refusef("Missing: name and decision. Say what was decided in decision, and give it a short name")
	}
	for i, alt := range d.Alternatives {
		if strings.TrimSpace(alt.Option) == "" || strings.TrimSpace(alt.Reason) == "" {
			return Refusef("alternatives[%d] needs both option and reason (why it was rejected)", i)
		}
	}
	return nil
}

// RecordDecision records a decision as the next revision of its item,
// pinned (DEPENDS_ON) to the revisions it rests on, SUPPORTED_BY the
// evidence it cites and GENERATED_FROM what it chose; pinned are the
// pinned revisions' KEY@n.
func RecordDecision(ctx context.Context, s Store, d DecisionWrite) (n Node, it Item, pinned []string, err error) {
	if err := d.Check(); err != nil {
		return Node{}, Item{}, nil, err
	}
	pins, err := pinItems(ctx, s, d.ProjectID, "depends_on", d.DependsOn)
	if err != nil {
		return Node{}, Item{}, nil, err
	}
	var links []Link
	pinned = []string{}
	for _, n := range pins {
		links = append(links, Link{Type: EdgeDependsOn, To: n.ID, Properties: map[string]any{"ref": n.Ref()}})
		pinned = append(pinned, n.Ref())
	}
	for _, id := range d.SupportedBy {
		ev, err := ResolveRef(ctx, s, d.ProjectID, id)
		if err != nil {
			return Node{}, Item{}, nil, fmt.Errorf("supporting evidence %s: %w", id, err)
		}
		if ev.Type != "evidence" {
			return Node{}, Item{}, nil, Refusef("supporting evidence %s is a %s, not evidence", id, ev.Type)
		}
		links = append(links, Link{Type: EdgeSupportedBy, To: ev.ID})
	}
	for _, ref := range d.GeneratedFrom {
		n, err := ResolveRef(ctx, s, d.ProjectID, ref)
		if err != nil {
			return Node{}, Item{}, nil, fmt.Errorf("generated_from %s: %w", ref, err)
		}
		props := map[string]any{}
		if r := n.Ref(); r != "" {
			props["ref"] = r
		}
		links = append(links, Link{Type: EdgeGeneratedFrom, To: n.ID, Properties: props})
	}
	alts := []any{}
	for _, alt := range d.Alternatives {
		alts = append(alts, map[string]any{"option": strings.TrimSpace(alt.Option), "reason": strings.TrimSpace(alt.Reason)})
	}
	props := map[string]any{}
	for k, v := range d.Details {
		switch k {
		case "decision", "alternatives", "rationale", "depends_on":
		default:
			props[k] = v
		}
	}
	props["decision"], props["alternatives"] = d.Decision, alts
	if d.Rationale != "" {
		props["rationale"] = d.Rationale
	}
	if len(pinned) > 0 {
		props["depends_on"] = pinned
	}
	n, it, err = s.CommitRevision(ctx, d.Revision(d.ProjectID, "decision", strings.TrimSpace(d.Name), props, links))
	if err != nil {
		return Node{}, Item{}, nil, err
	}
	return n, it, pinned, nil
}

// pinItems resolves item refs to exact revisions, once each, in order.
// Each must be a revision of an item: records cannot be pinned.
func pinItems(ctx context.Context, s Store, projectID, field string, refs []string) ([]Node, error) {
	var out []Node
	seen := map[string]bool{}
	for _, ref := range refs {
		n, err := ResolveRef(ctx, s, projectID, ref)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", field, ref, err)
		}
		if n.ItemKey == "" {
			return nil, Refusef("%s %s: that is a %s record, not a revision of an item; pass an item ref (KEY@n or KEY)", field, ref, n.Type)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			out = append(out, n)
		}
	}
	return out, nil
}
