package telemetry

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

func TestClassOfCode(t *testing.T) {
	want := map[protocol.Code]string{
		protocol.ParseError:         ClassInvalidRequest,
		protocol.InvalidRequest:     ClassInvalidRequest,
		protocol.MethodNotFound:     ClassToolNotFound,
		protocol.InvalidParams:      ClassInvalidParams,
		protocol.InternalError:      ClassUnexpected,
		protocol.ToolExecutionError: ClassToolExecutionError,
		protocol.ResourceNotFound:   ClassResourceNotFound,
		protocol.ToolUnavailable:    ClassAdapterUnavailable,
		protocol.ResourceReadError:  ClassResourceReadError,
		protocol.ToolTimeout:        ClassToolTimeout,
		protocol.AuthDenied:         ClassAuthDenied,
		-32099:                      ClassUnexpected,
		0:                           ClassUnexpected,
	}
	for code, class := range want {
		if got := ClassOf(code); got != class {
			t.Errorf("ClassOf(%s) = %q, want %q", code.Name(), got, class)
		}
	}
}

// TestEveryCodeHasAClass finds the taxonomy's codes by name, so a code
// added to protocol without a class here fails: it would otherwise count
// as unexpected.
func TestEveryCodeHasAClass(t *testing.T) {
	found := 0
	for c := protocol.Code(-32768); c <= -32000; c++ {
		if strings.HasPrefix(c.Name(), "CODE_") {
			continue
		}
		found++
		class := ClassOf(c)
		if !isClass(class) {
			t.Errorf("%s maps to %q, which is not a class", c.Name(), class)
		}
		if class == ClassUnexpected && c != protocol.InternalError {
			t.Errorf("%s has no class of its own", c.Name())
		}
	}
	if found != len(classOfCode) {
		t.Errorf("the taxonomy has %d codes, the table classes %d", found, len(classOfCode))
	}
}

func TestClassOfHold(t *testing.T) {
	for outcome, want := range map[string]string{
		workflows.OutcomeApproved:      "",
		workflows.HoldNone:             "",
		workflows.OutcomeRejected:      ClassApprovalRefused,
		workflows.OutcomeTimedOut:      ClassApprovalExpired,
		workflows.OutcomeCancelled:     ClassApprovalCancelled,
		workflows.OutcomeNotConfigured: ClassApprovalNotConfigured,
		"":                             "",
		workflows.HoldPending:          ClassUnexpected,
		"maybe":                        ClassUnexpected,
	} {
		if got := ClassOfHold(outcome); got != want {
			t.Errorf("ClassOfHold(%q) = %q, want %q", outcome, got, want)
		}
	}
}

// rpcErr is an error as mcpserver answers one: a taxonomy code with data.
func rpcErr(code protocol.Code, data map[string]any) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: int64(code), Message: code.Message()}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	return e
}

// heldErr is a held call nobody approved, as mcpserver answers it.
func heldErr(outcome string) *jsonrpc.Error {
	return rpcErr(protocol.ToolExecutionError, map[string]any{
		"code": workflows.ApprovalRequired, "error_type": workflows.ApprovalRequired, "outcome": outcome,
	})
}

func TestClassOfFailure(t *testing.T) {
	for name, tc := range map[string]struct {
		code       protocol.Code
		hold       string
		registered bool
		want       string
	}{
		"timed out":             {protocol.ToolTimeout, "", true, ClassToolTimeout},
		"refused by a person":   {protocol.ToolExecutionError, workflows.OutcomeRejected, true, ClassApprovalRefused},
		"approved, then failed": {protocol.ToolUnavailable, workflows.OutcomeApproved, true, ClassAdapterUnavailable},
		"expired":               {protocol.ToolExecutionError, workflows.OutcomeTimedOut, true, ClassApprovalExpired},
		"unknown, MCP":          {protocol.InvalidParams, "", false, ClassToolNotFound},
		"unknown, legacy":       {protocol.MethodNotFound, "", false, ClassToolNotFound},
		"internal":              {protocol.InternalError, "", true, ClassUnexpected},
		"no code":               {0, "", true, ClassUnexpected},
	} {
		if got := ClassOfFailure(tc.code, tc.hold, tc.registered); got != tc.want {
			t.Errorf("%s: ClassOfFailure = %q, want %q", name, got, tc.want)
		}
	}
}

func TestClassOfError(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"nil":         {nil, ""},
		"unavailable": {rpcErr(protocol.ToolUnavailable, map[string]any{"error_type": "TOOL_UNAVAILABLE"}), ClassAdapterUnavailable},
		"wrapped":     {fmt.Errorf("dispatch: %w", rpcErr(protocol.AuthDenied, nil)), ClassAuthDenied},
		"internal":    {rpcErr(protocol.InternalError, nil), ClassUnexpected},
		"rejected":    {heldErr(workflows.OutcomeRejected), ClassApprovalRefused},
		"timed out":   {heldErr(workflows.OutcomeTimedOut), ClassApprovalExpired},
		"cancelled":   {heldErr(workflows.OutcomeCancelled), ClassApprovalCancelled},
		"no gate":     {heldErr(workflows.OutcomeNotConfigured), ClassApprovalNotConfigured},
		// An approval error for an approved call is a contradiction.
		"approved":     {heldErr(workflows.OutcomeApproved), ClassUnexpected},
		"bad data":     {&jsonrpc.Error{Code: int64(protocol.ToolTimeout), Data: json.RawMessage(`[1`)}, ClassToolTimeout},
		"adapter's":    {protocol.Unavailable("no container"), ClassAdapterUnavailable},
		"plain":        {errors.New("boom"), ClassUnexpected},
		"legacy 32601": {rpcErr(protocol.MethodNotFound, nil), ClassToolNotFound},
	} {
		if got := ClassOfError(tc.err); got != tc.want {
			t.Errorf("%s: ClassOfError = %q, want %q", name, got, tc.want)
		}
	}
}

func TestClassOfCall(t *testing.T) {
	failed := func(meta mcp.Meta) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: true, Meta: meta, Content: []mcp.Content{&mcp.TextContent{Text: "x failed"}}}
	}
	for name, tc := range map[string]struct {
		res        *mcp.CallToolResult
		err        error
		registered bool
		want       string
	}{
		"success":   {&mcp.CallToolResult{}, nil, true, ""},
		"no result": {nil, nil, true, ""},
		"unknown tool": {nil, rpcErr(protocol.InvalidParams, map[string]any{"error_type": "INVALID_PARAMS", "tool_id": "nope"}),
			false, ClassToolNotFound},
		"bad arguments": {nil, rpcErr(protocol.InvalidParams, map[string]any{"error_type": "INVALID_PARAMS", "tool_id": "x"}),
			true, ClassInvalidParams},
		"legacy unknown": {nil, rpcErr(protocol.MethodNotFound, nil), false, ClassToolNotFound},
		"timed out":      {failed(mcp.Meta{"error": map[string]any{"code": int(protocol.ToolTimeout)}}), nil, true, ClassToolTimeout},
		"over the wire":  {failed(mcp.Meta{"error": map[string]any{"code": float64(protocol.ToolTimeout)}}), nil, true, ClassToolTimeout},
		"refused":        {failed(mcp.Meta{"error": map[string]any{"code": int(protocol.ToolExecutionError)}}), nil, true, ClassToolExecutionError},
		"no code":        {failed(nil), nil, true, ClassToolExecutionError},
		"held":           {nil, heldErr(workflows.OutcomeRejected), true, ClassApprovalRefused},
	} {
		if got := ClassOfCall(tc.res, tc.err, tc.registered); got != tc.want {
			t.Errorf("%s: ClassOfCall = %q, want %q", name, got, tc.want)
		}
	}
}

func TestClassesAreLabelValues(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Classes() {
		if seen[c] {
			t.Errorf("%q is listed twice", c)
		}
		seen[c] = true
		if normalise(c) != c {
			t.Errorf("%q is not a label value as it stands", c)
		}
	}
	for _, c := range classOfCode {
		if !seen[c] {
			t.Errorf("ClassOf answers %q, which Classes does not list", c)
		}
	}
	got := Classes()
	got[0] = "mutated"
	if slices.Contains(Classes(), "mutated") {
		t.Error("Classes hands out the package's own slice")
	}
}
