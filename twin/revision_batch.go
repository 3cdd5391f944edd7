package twin

import "fmt"

// checkBatch refuses, before anything is read, a batch of revision writes
// a store cannot apply as one: none, several projects, or an idempotency
// key used twice (each write's key names the revision it made).
func checkBatch(ws []RevisionWrite) error {
	if len(ws) == 0 {
		return fmt.Errorf("%w: no revisions to commit", ErrInvalid)
	}
	keys := map[string]bool{}
	for i, w := range ws {
		if w.ProjectID != ws[0].ProjectID {
			return fmt.Errorf("%w: write %d is in project %s, write 1 in %s: one batch writes one project", ErrInvalid, i+1, w.ProjectID, ws[0].ProjectID)
		}
		if w.IdempotencyKey != "" {
			if keys[w.IdempotencyKey] {
				return fmt.Errorf("%w: idempotency key %s is on two writes of one batch; give each write its own", ErrInvalid, w.IdempotencyKey)
			}
			keys[w.IdempotencyKey] = true
		}
	}
	return nil
}

// repeatedBatch is what a repeated batch made: the nodes its writes' keys
// name, in order; false when none of them wrote anything yet. Keys only
// some of which made a node are not a repeat of one batch, and are refused.
func repeatedBatch(ws []RevisionWrite, made func(key string) (Node, bool, error)) ([]Node, bool, error) {
	var out []Node
	var fresh []string
	for i, w := range ws {
		if w.IdempotencyKey == "" {
			fresh = append(fresh, fmt.Sprintf("write %d (no idempotency key)", i+1))
			continue
		}
		n, ok, err := made(w.IdempotencyKey)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			fresh = append(fresh, w.IdempotencyKey)
			continue
		}
		if n.ItemKey == "" {
			return nil, false, fmt.Errorf("%w: idempotency key %s already made %s record %s, not a revision of an item", ErrInvalid, n.CallID, n.Type, n.ID)
		}
		out = append(out, n)
	}
	switch {
	case len(out) == 0:
		return nil, false, nil
	case len(fresh) > 0:
		return nil, false, fmt.Errorf("%w: %s wrote nothing yet, but %s already made %s: these writes are not one batch", ErrInvalid,
			fresh[0], out[0].CallID, out[0].Label())
	}
	return out, true, nil
}
