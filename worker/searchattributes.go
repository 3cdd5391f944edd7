package worker

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/workflows"
)

// SearchAttributes maps every search attribute workflows/names.go declares
// to its type: Keywords, and KeywordLists once SQLite visibility's ten
// Keyword columns are taken.
var SearchAttributes = func() map[string]enumspb.IndexedValueType {
	m := map[string]enumspb.IndexedValueType{}
	for _, k := range workflows.SearchAttributeKeys {
		m[k.GetName()] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	for _, k := range workflows.SearchAttributeListKeys {
		m[k.GetName()] = enumspb.INDEXED_VALUE_TYPE_KEYWORD_LIST
	}
	return m
}()

// RegisterSearchAttributes adds the attributes that the namespace lacks. A
// new embedded database gets them at creation; an existing one, or an
// external cluster, gets them here.
func RegisterSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes of namespace %s: %w", namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, typ := range SearchAttributes {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			missing[name] = typ
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace:        namespace,
		SearchAttributes: missing,
	}); err != nil {
		return fmt.Errorf("add search attributes %v to namespace %s: %w", keys(missing), namespace, err)
	}
	return nil
}

func keys(m map[string]enumspb.IndexedValueType) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
