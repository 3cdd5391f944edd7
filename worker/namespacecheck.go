package worker

import (
	"context"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"
)

// checkNamespace asks an external cluster for the namespace MetaForge is
// to use. The embedded server creates its own; a cluster's namespaces are
// its operator's, so a missing one is not created behind their back (its
// retention is their decision) but named, with the command that creates
// it, and serve stops.
func checkNamespace(ctx context.Context, c client.Client, address, namespace string, sec TemporalSecurity) error {
	_, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	switch serviceerror.ToStatus(err).Code() {
	case codes.OK:
		return nil
	case codes.NotFound:
		return fmt.Errorf("namespace %s does not exist on the Temporal cluster at %s: create it with\n"+
			"  temporal operator namespace create --namespace %s --retention 72h\n"+
			"(the temporal CLI reads the same TEMPORAL_ADDRESS, TLS and API key variables), or set TEMPORAL_NAMESPACE to a namespace that exists",
			namespace, address, namespace)
	case codes.PermissionDenied, codes.Unauthenticated:
		return fmt.Errorf("the Temporal cluster at %s refused to describe namespace %s (%v): %s",
			address, namespace, err, sec.explainDenied(namespace, "read"))
	default:
		return fmt.Errorf("describe namespace %s on the Temporal cluster at %s: %w", namespace, address, err)
	}
}
