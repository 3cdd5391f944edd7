package worker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"

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
// external cluster, gets them here. It lists first and adds only what is
// missing, so a namespace an administrator prepared needs no admin right;
// an attribute of the same name but another type is refused by name (the
// server itself would keep the old type silently); and a refusal to add
// names every missing attribute with the command that creates them.
func RegisterSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		if denied(err) {
			return fmt.Errorf("list the search attributes of namespace %s: %w; the credentials need read rights on it (TEMPORAL_API_KEY or the client certificate)", namespace, err)
		}
		return fmt.Errorf("list the search attributes of namespace %s: %w", namespace, err)
	}
	var wrong []string
	missing := map[string]enumspb.IndexedValueType{}
	for _, name := range sortedNames(SearchAttributes) {
		want := SearchAttributes[name]
		got, ok := have.GetCustomAttributes()[name]
		switch {
		case !ok:
			missing[name] = want
		case got != want:
			wrong = append(wrong, fmt.Sprintf("%s is %s, MetaForge needs %s", name, got, want))
		}
	}
	if len(wrong) > 0 {
		return fmt.Errorf("namespace %s has search attributes of the wrong type: %s. MetaForge's workflows set them with its types and would fail; "+
			"remove them (temporal operator search-attribute remove --namespace %s --name NAME) so MetaForge adds its own, or use another namespace (TEMPORAL_NAMESPACE)",
			namespace, strings.Join(wrong, "; "), namespace)
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace:        namespace,
		SearchAttributes: missing,
	}); err != nil {
		if denied(err) {
			return fmt.Errorf("namespace %s lacks MetaForge's search attributes and these credentials may not add them "+
				"(adding needs the admin role on the namespace: %w). Missing: %s. Have an administrator of the cluster create them:\n  %s\n"+
				"or give MetaForge a TEMPORAL_API_KEY with admin rights on %s",
				namespace, err, describeAttributes(missing), createAttributesCommand(namespace, missing), namespace)
		}
		return fmt.Errorf("add search attributes %s to namespace %s: %w", describeAttributes(missing), namespace, err)
	}
	return waitSearchAttributesUsable(ctx, c, namespace, sortedNames(missing))
}

// usableWithin bounds the wait for added attributes: a cluster's services
// reload them with the namespace, every system.namespaceCacheRefreshInterval
// (10 s by default).
const usableWithin = 30 * time.Second

// waitSearchAttributesUsable returns once the frontend accepts a query on
// every named attribute. On SQL visibility an added attribute is an alias
// in the namespace record, which the services read from their namespace
// cache: until it refreshes, a workflow started with the attribute is
// refused ("not defined"), so serve does not take calls before then.
func waitSearchAttributesUsable(ctx context.Context, c client.Client, namespace string, names []string) error {
	clauses := make([]string, len(names))
	for i, name := range names {
		clauses[i] = name + " = 'metaforge-probe'"
	}
	query := strings.Join(clauses, " AND ")
	ctx, cancel := context.WithTimeout(ctx, usableWithin)
	defer cancel()
	for {
		_, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
		if err == nil {
			return nil
		}
		if serviceerror.ToStatus(err).Code() != codes.InvalidArgument {
			return fmt.Errorf("check the search attributes just added to namespace %s: %w", namespace, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("search attributes %s were added to namespace %s but the cluster still refuses a query on them after %s (%v): "+
				"its services reload them with the namespace (system.namespaceCacheRefreshInterval); start again once it has",
				strings.Join(names, ", "), namespace, usableWithin, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// denied says the cluster's authorizer refused the call.
func denied(err error) bool {
	code := serviceerror.ToStatus(err).Code()
	return code == codes.PermissionDenied || code == codes.Unauthenticated
}

// describeAttributes is "MfAdapter (Keyword), MfChange (KeywordList)".
func describeAttributes(m map[string]enumspb.IndexedValueType) string {
	var out []string
	for _, name := range sortedNames(m) {
		out = append(out, fmt.Sprintf("%s (%s)", name, m[name]))
	}
	return strings.Join(out, ", ")
}

// createAttributesCommand is the one temporal CLI command that creates
// them all: `operator search-attribute create` takes --name and --type
// repeated, paired in order.
func createAttributesCommand(namespace string, m map[string]enumspb.IndexedValueType) string {
	var b strings.Builder
	fmt.Fprintf(&b, "temporal operator search-attribute create --namespace %s", namespace)
	for _, name := range sortedNames(m) {
		fmt.Fprintf(&b, " --name %s --type %s", name, m[name])
	}
	return b.String()
}

func sortedNames(m map[string]enumspb.IndexedValueType) []string {
	return slices.Sorted(maps.Keys(m))
}
