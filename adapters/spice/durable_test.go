package spice_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/spice"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

// The divider through the whole durable path: an MCP client over HTTP, a
// ToolCall workflow, the InvokeTool activity on adapter-spice, ngspice; with
// the adapter in process and served over HTTP.
func TestDividerThroughMCP(t *testing.T) {
	t.Run("in-process", func(t *testing.T) { dividerThroughMCP(t, spice.New()) })
	t.Run("remote", func(t *testing.T) {
		srv := httptest.NewServer(adapters.HTTPHandler(spice.New()))
		t.Cleanup(srv.Close)
		c, err := adapters.DialHTTP(context.Background(), spice.AdapterID, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		dividerThroughMCP(t, c)
	})
}

func dividerThroughMCP(t *testing.T, a adapters.Adapter) {
	s := mcptest.Start(t, a)
	cs := s.ConnectHTTP(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "spice.run_simulation", Arguments: map[string]any{
		"netlist":       "divider\nV1 in 0 DC 5\nR1 in out 1k\nR2 out 0 1k\n.end\n",
		"analysis_type": "op",
	}})
	if err != nil || res.IsError {
		t.Fatalf("spice.run_simulation: %v %+v", err, res)
	}
	var out struct {
		Converged bool `json:"converged"`
		Vectors   []struct {
			Name  string  `json:"name"`
			Final float64 `json:"final"`
		} `json:"vectors"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	for _, v := range out.Vectors {
		if v.Name == "v(out)" {
			// Closed form: 5 V * 1k / (1k + 1k) = 2.5 V; tolerance 1e-6 V.
			if !out.Converged || math.Abs(v.Final-2.5) > 1e-6 {
				t.Fatalf("v(out) = %v (converged %v), want 2.500 V", v.Final, out.Converged)
			}
			return
		}
	}
	t.Fatalf("no v(out) in %s", raw)
}
