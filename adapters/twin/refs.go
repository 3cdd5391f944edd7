package twin

import (
	"context"
	"errors"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// written is what every definition write returns about its revision.
func written(n twin.Node, it twin.Item) map[string]any {
	return map[string]any{
		"node_id":  n.ID,
		"item_key": it.Key,
		"revision": n.Revision,
		"item_ref": n.Ref(),
		"name":     n.Name,
	}
}

// itemArgs are the optional item arguments of a definition write; null and
// "" both mean not given.
type itemArgs struct {
	ItemKey      *string `json:"item_key,omitempty" jsonschema:"the item to revise (CAD-BRACKET); KEY@n also asserts the head is still revision n"`
	Supersedes   *string `json:"supersedes,omitempty" jsonschema:"node id of an earlier revision whose item this revises"`
	ChangeReason *string `json:"change_reason,omitempty" jsonschema:"why this revision differs from the previous one"`
}

// itemRules let the item arguments be null, as "not given".
var itemRules = []adapters.SchemaRule{
	adapters.At("item_key", adapters.Nullable()),
	adapters.At("supersedes", adapters.Nullable()),
	adapters.At("change_reason", adapters.Nullable()),
}

// withItemRules are a definition write's own rules and the item
// arguments'.
func withItemRules(rules ...adapters.SchemaRule) []adapters.SchemaRule {
	return append(rules, itemRules...)
}

// writeInfo is what a definition write carries besides its content: the
// item arguments, the caller as author, and the callId as idempotency key.
func writeInfo(ctx context.Context, ik itemArgs) twin.WriteInfo {
	return twin.WriteInfo{ItemKey: deref(ik.ItemKey), Supersedes: deref(ik.Supersedes), ChangeReason: deref(ik.ChangeReason),
		Author: author(ctx), IdempotencyKey: callID(ctx)}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// asProtocolRefusal turns a refusal of the twin's rules into the
// protocol's and leaves any other error as it is: for the Backend methods
// workflows call, whose callers tell a refusal from a failure by its
// protocol code.
func asProtocolRefusal(err error) error {
	var refusal *twin.RefusalError
	if errors.As(err, &refusal) {
		return protocol.Refusal("%s", refusal.Message)
	}
	return err
}
