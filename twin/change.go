package twin

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"strings"
)

// An engineering change is a patch against named item revisions: each op
// says which revision it was written against (KEY@n), so the twin can
// tell what the change reaches (change_impact.go), apply it only to the
// design it was analysed on (change_commit.go), and keep its history
// (change_log.go).

// PatchOp changes one item revision: Ref is the KEY@n the change was
// written against (must be the head when proposed); Set sets properties
// (merged over the revision's properties), Unset removes some, Name
// optionally renames.
type PatchOp struct {
	Ref   string         `json:"ref"`
	Set   map[string]any `json:"set,omitempty"`
	Unset []string       `json:"unset,omitempty"`
	Name  string         `json:"name,omitempty"`
}

// apply is the properties and name the op gives revision n.
func (op PatchOp) apply(n Node) (map[string]any, string) {
	props := maps.Clone(n.Properties)
	if props == nil {
		props = map[string]any{}
	}
	for _, k := range op.Unset {
		delete(props, k)
	}
	for k, v := range op.Set {
		props[k] = v
	}
	name := n.Name
	if strings.TrimSpace(op.Name) != "" {
		name = strings.TrimSpace(op.Name)
	}
	return props, name
}

// CheckPatch resolves each op's ref in the project and returns the
// revisions, in the patch's order. It refuses (a *RefusalError saying what
// to fix) an empty patch, an op that changes nothing, a ref that is not
// KEY@n, an unknown item, a ref that is not the item's head (naming the
// head), and two ops on one item.
func CheckPatch(ctx context.Context, s Store, projectID string, patch []PatchOp) ([]Node, error) {
	if len(patch) == 0 {
		return nil, Refusef("the patch is empty: give at least one op {ref: KEY@n, set: {...}} naming the revision it changes")
	}
	out := make([]Node, 0, len(patch))
	byKey := map[string]int{}
	for i, op := range patch {
		n, err := patchTarget(ctx, s, projectID, i, op)
		if err != nil {
			return nil, err
		}
		if j, dup := byKey[n.ItemKey]; dup {
			return nil, Refusef("ops %d (%s) and %d (%s) both change %s: merge them into one op", j+1, patch[j].Ref, i+1, op.Ref, n.ItemKey)
		}
		byKey[n.ItemKey] = i
		it, err := s.ItemOfNode(ctx, n.ID)
		if err != nil {
			return nil, err
		}
		if it.HeadRevision != n.Revision {
			return nil, Refusef("op %d: %s is not the head of %s, %s is: read %s and write the change against it", i+1, op.Ref, it.Key,
				it.HeadRef(), it.HeadRef())
		}
		if err := checkOpChanges(i, op, n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// patchTarget is the revision op i names: KEY@n of an item in the project.
func patchTarget(ctx context.Context, s Store, projectID string, i int, op PatchOp) (Node, error) {
	ref := strings.TrimSpace(op.Ref)
	key, rev, err := ParseItemRef(ref)
	if err != nil || rev == 0 || strings.HasPrefix(ref, "n-") {
		return Node{}, Refusef("op %d: ref %q is not KEY@n: name the revision the change is written against, e.g. CAD-BRACKET@2", i+1, op.Ref)
	}
	n, err := ResolveRef(ctx, s, projectID, ref)
	if errors.Is(err, ErrNotFound) {
		if _, ierr := s.GetItem(ctx, projectID, key); ierr != nil {
			return Node{}, Refusef("op %d: %s names no item in this project: twin.list_items shows the items and their heads", i+1, ref)
		}
		return Node{}, Refusef("op %d: %s", i+1, strings.TrimPrefix(err.Error(), ErrNotFound.Error()+": "))
	}
	return n, err
}

// checkOpChanges refuses an op that would leave the revision as it is.
func checkOpChanges(i int, op PatchOp, n Node) error {
	for _, k := range op.Unset {
		if _, both := op.Set[k]; both {
			return Refusef("op %d (%s) both sets and unsets %q: keep one", i+1, op.Ref, k)
		}
	}
	props, name := op.apply(n)
	if name == n.Name && sameJSON(props, n.Properties) {
		if len(op.Set) == 0 && len(op.Unset) == 0 && strings.TrimSpace(op.Name) == "" {
			return Refusef("op %d (%s) changes nothing: give set, unset or name", i+1, op.Ref)
		}
		return Refusef("op %d (%s) changes nothing: %s already has those values; drop the op or change a value", i+1, op.Ref, op.Ref)
	}
	return nil
}

// sameJSON compares two property maps as stored (a store gives numbers
// back as float64).
func sameJSON(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return reflect.DeepEqual(a, b)
	}
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}

// Rebase re-points a patch whose refs moved: each op's Ref is set to its
// item's current head (used when a commit conflicted and the change is
// re-analysed). Moved names each op that moved and its new head; the ops'
// changes are kept as they are.
func Rebase(ctx context.Context, s Store, projectID string, patch []PatchOp) ([]PatchOp, []StalePin, error) {
	out := make([]PatchOp, len(patch))
	moved := []StalePin{}
	for i, op := range patch {
		key, _, err := ParseItemRef(op.Ref)
		if err != nil {
			return nil, nil, Refusef("op %d: ref %q is not KEY@n", i+1, op.Ref)
		}
		it, err := s.GetItem(ctx, projectID, key)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, nil, Refusef("op %d: %s names no item in this project", i+1, op.Ref)
			}
			return nil, nil, err
		}
		out[i] = op
		if head := it.HeadRef(); head != strings.TrimSpace(op.Ref) {
			out[i].Ref = head
			moved = append(moved, StalePin{Pinned: op.Ref, Head: head})
		}
	}
	return out, moved, nil
}
