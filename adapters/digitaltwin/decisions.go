package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func recordDecisionTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_decision", Name: "Record a design decision", Capability: "twin_write",
		Description: "Record a design decision as the next revision of a decision item (DEC-...): what was decided, why, and the " +
			"alternatives rejected (each an option and the reason it lost). depends_on pins the item revisions it rests on " +
			"(KEY@n, or KEY for the current revision) with DEPENDS_ON edges: for a decision that rests on the requirements, link the " +
			"constraint set (CS-...@n) instead of restating its values. An unknown item or revision writes nothing. " +
			"The result names item_key, revision, item_ref and the pinned depends_on refs.",
		InputSchema: schema([]string{"name", "decision"}, projectIDProp+`,
"name":{"type":"string","minLength":1,"maxLength":200,"description":"short title of the decision; the same name revises the same decision"},
"decision":{"type":"string","minLength":1,"maxLength":20000,"description":"what was decided"},
"rationale":{"type":"string","maxLength":20000,"description":"why: the reasoning, citing requirements by ref rather than restating their values"},
"alternatives":{"type":"array","maxItems":50,"description":"the options considered and rejected","items":{"type":"object","additionalProperties":false,"required":["option","reason"],"properties":{
  "option":{"type":"string","minLength":1,"maxLength":2000,"description":"the alternative considered"},
  "reason":{"type":"string","minLength":1,"maxLength":4000,"description":"why it was rejected"}}}},
"depends_on":{"type":["array","null"],"maxItems":50,"items":{"type":"string","minLength":1},"description":"item refs the decision rests on: KEY@n pins that revision, a bare KEY pins the current one; null means none"},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordDecision}
}

type alternative struct {
	Option string `json:"option"`
	Reason string `json:"reason"`
}

func recordDecision(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID string `json:"project_id"`
		decisionInput
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	n, it, refs, err := writeDecision(ctx, b, p.ID, a.decisionInput)
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["depends_on"] = refs
	return out, nil
}

// decisionInput is a decision to record: what twin.record_decision takes,
// and what the tools that decide (twin.optimize_parameter) record through
// writeDecision.
type decisionInput struct {
	Name         string        `json:"name"`
	Decision     string        `json:"decision"`
	Rationale    string        `json:"rationale"`
	Alternatives []alternative `json:"alternatives"`
	DependsOn    []string      `json:"depends_on"`
	// SupportedBy are node ids of the evidence the decision rests on,
	// linked with SUPPORTED_BY edges; only tools that record both set it.
	SupportedBy []string `json:"-"`
	itemArgs
}

// check refuses a decision with nothing decided, or an alternative with
// no option or no reason.
func (d decisionInput) check() error {
	if strings.TrimSpace(d.Name) == "" || strings.TrimSpace(d.Decision) == "" {
		return protocol.Refusal("Missing: name and decision. Say what was decided in decision, and give it a short name")
	}
	for i, alt := range d.Alternatives {
		if strings.TrimSpace(alt.Option) == "" || strings.TrimSpace(alt.Reason) == "" {
			return protocol.Refusal("alternatives[%d] needs both option and reason (why it was rejected)", i)
		}
	}
	return nil
}

// writeDecision records a decision as the next revision of its item,
// pinned (DEPENDS_ON) to the revisions it rests on and SUPPORTED_BY the
// evidence it cites; refs are the pinned revisions' KEY@n. Its
// idempotency key is the context's callId.
func writeDecision(ctx context.Context, b *Backend, projectID string, d decisionInput) (twin.Node, twin.Item, []string, error) {
	if err := d.check(); err != nil {
		return twin.Node{}, twin.Item{}, nil, err
	}
	pins, err := pinItems(ctx, b, projectID, "depends_on", d.DependsOn)
	if err != nil {
		return twin.Node{}, twin.Item{}, nil, err
	}
	var links []twin.Link
	refs := []string{}
	for _, n := range pins {
		links = append(links, twin.Link{Type: twin.EdgeDependsOn, To: n.ID, Properties: map[string]any{"ref": n.Ref()}})
		refs = append(refs, n.Ref())
	}
	for _, id := range d.SupportedBy {
		ev, err := resolveRef(ctx, b, projectID, id)
		if err != nil {
			return twin.Node{}, twin.Item{}, nil, fmt.Errorf("supporting evidence %s: %w", id, err)
		}
		if ev.Type != "evidence" {
			return twin.Node{}, twin.Item{}, nil, protocol.Refusal("supporting evidence %s is a %s, not evidence", id, ev.Type)
		}
		links = append(links, twin.Link{Type: edgeSupportedBy, To: ev.ID})
	}
	alts := []any{}
	for _, alt := range d.Alternatives {
		alts = append(alts, map[string]any{"option": strings.TrimSpace(alt.Option), "reason": strings.TrimSpace(alt.Reason)})
	}
	props := map[string]any{"decision": d.Decision, "alternatives": alts}
	if d.Rationale != "" {
		props["rationale"] = d.Rationale
	}
	if len(refs) > 0 {
		props["depends_on"] = refs
	}
	n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, projectID, "decision", strings.TrimSpace(d.Name), d.itemArgs, props, links))
	if err != nil {
		return twin.Node{}, twin.Item{}, nil, err
	}
	return n, it, refs, nil
}

// pinItems resolves item refs to exact revisions, once each, in order. Each
// must be a revision of an item: records cannot be pinned.
func pinItems(ctx context.Context, b *Backend, projectID, field string, refs []string) ([]twin.Node, error) {
	var out []twin.Node
	seen := map[string]bool{}
	for _, ref := range refs {
		n, err := resolveRef(ctx, b, projectID, ref)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", field, ref, err)
		}
		if n.ItemKey == "" {
			return nil, protocol.Refusal("%s %s: that is a %s record, not a revision of an item; pass an item ref (KEY@n or KEY)", field, ref, n.Type)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			out = append(out, n)
		}
	}
	return out, nil
}
