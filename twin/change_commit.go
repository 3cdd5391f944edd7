package twin

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ChangeCommit is an approved engineering change to apply.
type ChangeCommit struct {
	ProjectID, ChangeID, Reason, Author, ApprovedBy string
	Patch                                           []PatchOp
	// IdempotencyKey: a commit that repeats one returns what the first
	// wrote. Each op's revision is keyed by it and the op's ref.
	IdempotencyKey string
}

// CommittedChange is what a commit wrote: the new revisions (KEY@n) and
// their node ids, in the patch's order; Moved maps each patched ref to
// the revision that replaced it (what RebaseReplay needs).
type CommittedChange struct {
	Revisions []string          `json:"revisions"`
	NodeIDs   []string          `json:"node_ids"`
	Moved     map[string]string `json:"moved"`
}

// ChangeConflictError is a commit refused because revisions the change was
// analysed on are no longer their items' heads: nothing was written, and
// the change must be re-analysed against the heads (Rebase).
type ChangeConflictError struct {
	ChangeID string
	Moved    []StalePin
}

func (e *ChangeConflictError) Error() string {
	moved := make([]string, len(e.Moved))
	for i, m := range e.Moved {
		moved[i] = fmt.Sprintf("%s (the head is now %s)", m.Pinned, m.Head)
	}
	return fmt.Sprintf("engineering change %s was not committed, nothing was written: %s moved since it was analysed; "+
		"re-analyse the change against the current heads", e.ChangeID, strings.Join(moved, ", "))
}

// Is makes a conflict an ErrStaleRevision.
func (e *ChangeConflictError) Is(target error) bool { return target == ErrStaleRevision }

// CommitChange applies the whole patch atomically (Store.CommitRevisions):
// each op writes the next revision of its item, the op's properties merged
// over the revision it names and the revision's outgoing links carried
// over (what it rests on does not change with it; what rests on it, such
// as evidence, stays on the old revision and so goes stale), with a change
// reason naming the change. It writes only if every item's head is still
// the op's Ref; if any moved, nothing is written and the error is a
// *ChangeConflictError naming each moved ref and its head. Repeating the
// idempotency key returns the first commit's result.
func CommitChange(ctx context.Context, s Store, c ChangeCommit) (CommittedChange, error) {
	if strings.TrimSpace(c.ChangeID) == "" {
		return CommittedChange{}, Refusef("the commit names no change: give change_id")
	}
	if len(c.Patch) == 0 {
		return CommittedChange{}, Refusef("engineering change %s has an empty patch: nothing to commit", c.ChangeID)
	}
	reason := "engineering change " + c.ChangeID
	if c.ApprovedBy != "" {
		reason += " (approved by " + c.ApprovedBy + ")"
	}
	if r := strings.TrimSpace(c.Reason); r != "" {
		reason += ": " + r
	}
	ws := make([]RevisionWrite, len(c.Patch))
	for i, op := range c.Patch {
		n, err := patchTarget(ctx, s, c.ProjectID, i, op)
		if err != nil {
			return CommittedChange{}, err
		}
		links, err := carriedLinks(ctx, s, n)
		if err != nil {
			return CommittedChange{}, err
		}
		props, name := op.apply(n)
		ws[i] = RevisionWrite{ProjectID: c.ProjectID, ItemType: n.Type, Name: name, ItemKey: n.Ref(), ChangeReason: reason,
			Author: c.Author, Properties: props, Links: links}
		if c.IdempotencyKey != "" {
			ws[i].IdempotencyKey = c.IdempotencyKey + "/" + n.Ref()
		}
	}
	nodes, err := s.CommitRevisions(ctx, ws)
	if errors.Is(err, ErrStaleRevision) {
		_, moved, rerr := Rebase(ctx, s, c.ProjectID, c.Patch)
		if rerr != nil {
			return CommittedChange{}, rerr
		}
		if len(moved) > 0 {
			return CommittedChange{}, &ChangeConflictError{ChangeID: c.ChangeID, Moved: moved}
		}
	}
	if err != nil {
		return CommittedChange{}, err
	}
	out := CommittedChange{Revisions: make([]string, len(nodes)), NodeIDs: make([]string, len(nodes)), Moved: map[string]string{}}
	for i, n := range nodes {
		out.Revisions[i], out.NodeIDs[i] = n.Ref(), n.ID
		out.Moved[ws[i].ItemKey] = n.Ref()
	}
	return out, nil
}

// carriedLinks are the links a new revision keeps from the one it
// replaces: its outgoing edges but the revision chain and supersession.
func carriedLinks(ctx context.Context, s Store, n Node) ([]Link, error) {
	nbs, err := s.Neighbors(ctx, n.ID, Outgoing)
	if err != nil {
		return nil, err
	}
	var out []Link
	for _, nb := range nbs {
		if nb.Edge.Type == EdgeRevisionOf || nb.Edge.Type == EdgeSupersedes {
			continue
		}
		out = append(out, Link{Type: nb.Edge.Type, To: nb.Node.ID, Properties: nb.Edge.Properties})
	}
	return out, nil
}

// RebaseReplay is the replay recipe's args with every patched ref (KEY@old,
// wherever it is a whole string value in the args, e.g. work_product_id)
// moved to its new head ref, and "supersedes": [staleEvidenceID] set, so a
// replay re-runs the same tool on the changed design and its evidence
// replaces the stale one. The recipe given is not changed.
func RebaseReplay(r Replay, moved map[string]string, staleEvidenceID string) Replay {
	args, _ := rebaseValue(map[string]any(r.Args), moved).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	args["supersedes"] = []string{staleEvidenceID}
	return Replay{ToolID: r.ToolID, Args: args}
}

// rebaseValue copies v, replacing each string that is a moved ref.
func rebaseValue(v any, moved map[string]string) any {
	switch x := v.(type) {
	case string:
		if to, ok := moved[strings.TrimSpace(x)]; ok {
			return to
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = rebaseValue(e, moved)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rebaseValue(e, moved)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i], _ = rebaseValue(e, moved).(string)
		}
		return out
	}
	return v
}
