package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/workflows"
)

// The engine sub-benchmark is the durable path without MCP: the ToolCall
// workflow started and awaited through mcpserver.TemporalEngine with the
// input the MCP server would give it (its search attributes, eager start,
// the local activity). Between the floor and durable-c1 it splits what
// MetaForge adds into the workflow's part and MCP's part.

// callEngine makes the reference call through the engine and checks it.
func callEngine(ctx context.Context, e *env) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	m, _, _ := e.registry.Tool(tool)
	in := workflows.ToolCallInput{
		CallID: mcpserver.NewCallID(), ToolID: tool, AdapterID: m.AdapterID, Arguments: json.RawMessage(referenceArgs),
		TimeoutSeconds: m.TimeoutSeconds, Idempotent: m.Idempotent, Retries: m.Retries,
		Local: e.registry.RunsLocal(tool), Caller: mcpserver.CallerUntrusted, Client: "metaforge-bench",
	}
	engine := mcpserver.TemporalEngine{Client: e.temporal.Client, Eager: true}
	runID, err := engine.StartCall(ctx, in, nil)
	if err != nil {
		return err
	}
	res, err := engine.AwaitCall(ctx, in.CallID, runID)
	if err != nil {
		return err
	}
	if res.Status != workflows.StatusSuccess || !strings.Contains(string(res.Data), `"status":"pass"`) {
		return fmt.Errorf("the engine's call did not pass the reference budget: %+v", res)
	}
	return nil
}

func benchEngineSequential(b *testing.B) {
	e := durableEnv(b)
	l := runSequential(b, func(ctx context.Context) error { return callEngine(ctx, e) })
	b.ReportMetric(float64(l.p50)/float64(floorBaseline(b)), "x-floor-p50")
}
