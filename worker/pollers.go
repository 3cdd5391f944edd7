package worker

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/workflows"
)

// pollerFresh is how recently a worker must have polled to count as
// serving a queue. An idle worker's long poll lasts about a minute before
// it polls again, so a live one is never older than this; a dead one drops
// out within it.
const pollerFresh = 90 * time.Second

// QueueWorkers measures an adapter served elsewhere: how many workers have
// polled its task queue for activities within pollerFresh. It is health's
// measure in a process that does not run that adapter's worker itself
// (metaforge serve --no-worker, or a worker for other queues).
func QueueWorkers(ctx context.Context, c client.Client, adapterID string) (reachable bool, detail string) {
	queue := workflows.AdapterTaskQueue(adapterID)
	resp, err := c.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_ACTIVITY)
	if err != nil {
		return false, fmt.Sprintf("cannot ask Temporal who serves task queue %s: %v", queue, err)
	}
	fresh := 0
	for _, p := range resp.GetPollers() {
		if t := p.GetLastAccessTime(); t != nil && time.Since(t.AsTime()) <= pollerFresh {
			fresh++
		}
	}
	if fresh == 0 {
		return false, fmt.Sprintf("no worker has polled task queue %s in the last %s: its calls wait until one does; start one with `metaforge worker --queues %s`",
			queue, pollerFresh, queue)
	}
	return true, ""
}
