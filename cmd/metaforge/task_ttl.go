package main

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/mcpserver"
)

// taskMaxTTL is the longest ttl an MCP task is granted: the namespace's
// retention of a closed workflow, which keeps a task's result at least
// that long after its creation (retention counts from the close). The
// embedded Temporal keeps 24 h; a cluster says its own. If the namespace
// cannot be read, the embedded server's 24 h.
func taskMaxTTL(c client.Client, namespace string, logger *slog.Logger) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	if err != nil {
		logger.Warn("could not read the namespace's retention; MCP tasks are kept at most the default", "namespace", namespace,
			"default", mcpserver.DefaultTaskMaxTTL, "error", err)
		return mcpserver.DefaultTaskMaxTTL
	}
	if r := d.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration(); r > 0 {
		return r
	}
	return mcpserver.DefaultTaskMaxTTL
}
