package e2e

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callToolJSON calls tool on s and decodes its text result as a JSON
// object. The error names the tool, for a protocol error, an isError
// result (with its text) and a result that is not JSON. res is the
// result whenever the server answered, so a caller can read its _meta
// (callId, links) even of a refusal.
func callToolJSON(ctx context.Context, s *mcp.ClientSession, tool string, args map[string]any) (out map[string]any, res *mcp.CallToolResult, err error) {
	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", tool, err)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		return nil, res, fmt.Errorf("%s: %s", tool, text)
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, res, fmt.Errorf("%s: %v: %s", tool, err, text)
	}
	return out, res, nil
}
