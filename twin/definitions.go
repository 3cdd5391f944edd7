package twin

// WriteInfo is what every definition write carries besides its content:
// which item it revises (ItemKey: KEY, or KEY@n to assert the head;
// Supersedes: an earlier revision's node id; empty for the item of the
// same name and type), why, who writes it, and the call's idempotency
// key.
type WriteInfo struct {
	ItemKey, Supersedes, ChangeReason string
	Author, IdempotencyKey            string
}

// Revision is the store write of a definition with this info.
func (w WriteInfo) Revision(projectID, itemType, name string, props map[string]any, links []Link) RevisionWrite {
	return RevisionWrite{
		ProjectID: projectID, ItemType: itemType, Name: name,
		ItemKey: w.ItemKey, Supersedes: w.Supersedes, ChangeReason: w.ChangeReason,
		Author: w.Author, Properties: props, Links: links, IdempotencyKey: w.IdempotencyKey,
	}
}
