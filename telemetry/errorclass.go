package telemetry

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// Error classes: what kind of failure a call was, in the words an operator
// acts on. They are derived from the error the client received (its
// protocol code, or a hold's outcome), never chosen separately, so the
// metric and the span cannot disagree with the client.
const (
	// ClassToolNotFound: a client called something this build does not have.
	ClassToolNotFound = "tool_not_found"
	// ClassInvalidParams: the arguments were wrong.
	ClassInvalidParams = "invalid_params"
	// ClassInvalidRequest: the message itself was malformed.
	ClassInvalidRequest = "invalid_request"
	// ClassAdapterUnavailable: the adapter was not there to ask; it needs a
	// container.
	ClassAdapterUnavailable = "adapter_unavailable"
	// ClassToolExecutionError: the tool ran and failed or refused.
	ClassToolExecutionError = "tool_execution_error"
	// ClassToolTimeout: the tool ran past its timeout.
	ClassToolTimeout = "tool_timeout"
	// ClassApprovalRefused: a person rejected a held call.
	ClassApprovalRefused = "approval_refused"
	// ClassApprovalExpired: nobody decided a held call inside its window.
	ClassApprovalExpired = "approval_expired"
	// ClassApprovalCancelled: the hold was closed before anyone answered
	// (the client went away); neither a person's no nor an absent reviewer.
	ClassApprovalCancelled = "approval_cancelled"
	// ClassApprovalNotConfigured: the server holds writes and was given no
	// way for a person to decide them.
	ClassApprovalNotConfigured = "approval_not_configured"
	// ClassAuthDenied: the credential was rejected.
	ClassAuthDenied = "auth_denied"
	// ClassResourceNotFound: no such resource.
	ClassResourceNotFound = "resource_not_found"
	// ClassResourceReadError: the resource exists and could not be read.
	ClassResourceReadError = "resource_read_error"
	// ClassUnexpected: anything nobody classified, INTERNAL_ERROR included.
	// It is its own class so that it stands out rather than hiding inside
	// tool_execution_error.
	ClassUnexpected = "unexpected"
)

var classes = []string{
	ClassToolNotFound, ClassInvalidParams, ClassInvalidRequest,
	ClassAdapterUnavailable, ClassToolExecutionError, ClassToolTimeout,
	ClassApprovalRefused, ClassApprovalExpired, ClassApprovalCancelled, ClassApprovalNotConfigured,
	ClassAuthDenied, ClassResourceNotFound, ClassResourceReadError,
	ClassUnexpected,
}

// Classes lists every class: the bounded set the error_class label takes.
func Classes() []string { return slices.Clone(classes) }

func isClass(c string) bool { return slices.Contains(classes, c) }

var classOfCode = map[protocol.Code]string{
	protocol.ParseError:     ClassInvalidRequest,
	protocol.InvalidRequest: ClassInvalidRequest,
	// The legacy dialect answers an unknown tool_id as an unknown method.
	protocol.MethodNotFound:     ClassToolNotFound,
	protocol.InvalidParams:      ClassInvalidParams,
	protocol.InternalError:      ClassUnexpected,
	protocol.ToolExecutionError: ClassToolExecutionError,
	protocol.ResourceNotFound:   ClassResourceNotFound,
	protocol.ToolUnavailable:    ClassAdapterUnavailable,
	protocol.ResourceReadError:  ClassResourceReadError,
	protocol.ToolTimeout:        ClassToolTimeout,
	protocol.AuthDenied:         ClassAuthDenied,
}

// ClassOf is the class of a taxonomy code; a code outside the taxonomy is
// unexpected.
func ClassOf(code protocol.Code) string {
	if c, ok := classOfCode[code]; ok {
		return c
	}
	return ClassUnexpected
}

// ClassOfHold is the class of a held call that ended with outcome, or ""
// for one approved or never held ("" or "none"). An outcome nobody
// defined (a hold that ended pending) is unexpected.
func ClassOfHold(outcome string) string {
	switch outcome {
	case "", workflows.HoldNone, workflows.OutcomeApproved:
		return ""
	case workflows.OutcomeRejected:
		return ClassApprovalRefused
	case workflows.OutcomeTimedOut:
		return ClassApprovalExpired
	case workflows.OutcomeCancelled:
		return ClassApprovalCancelled
	case workflows.OutcomeNotConfigured:
		return ClassApprovalNotConfigured
	}
	return ClassUnexpected
}

// ClassOfFailure is the class of a call that failed with code, after a
// hold that ended with holdOutcome ("" when it was not held), for a tool
// that is registered or not: what a server that knows all three counts.
// The hold comes first, since a held call nobody approved is a
// TOOL_EXECUTION_ERROR on the wire and what matters is why it did not run;
// then an unregistered tool, which each dialect answers with its own code
// (-32602 in MCP, -32601 in the legacy one).
func ClassOfFailure(code protocol.Code, holdOutcome string, registered bool) string {
	if c := ClassOfHold(holdOutcome); c != "" {
		return c
	}
	if !registered {
		return ClassToolNotFound
	}
	return ClassOf(code)
}

// ClassOfError is the class of an error a handler answered with, or "" for
// nil. A held call nobody approved is a TOOL_EXECUTION_ERROR on the wire,
// so its class comes from the outcome the error's data names; an error
// with no taxonomy code is unexpected, as the client received it as an
// internal error.
func ClassOfError(err error) string {
	if err == nil {
		return ""
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		var data struct {
			ErrorType string `json:"error_type"`
			Outcome   string `json:"outcome"`
		}
		if len(rpcErr.Data) > 0 && json.Unmarshal(rpcErr.Data, &data) == nil && data.ErrorType == workflows.ApprovalRequired {
			if c := ClassOfHold(data.Outcome); c != "" {
				return c
			}
			return ClassUnexpected
		}
		return ClassOf(protocol.Code(rpcErr.Code))
	}
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return ClassOf(perr.Code)
	}
	return ClassUnexpected
}

// ClassOfCall is the class of a tools/call as its client saw it: err when
// the server answered with an error, res when it answered with a result
// (a success is ""). registered says whether the tool exists: MCP answers
// an unknown tool with -32602, as it does bad arguments, and only the
// registry can tell the two apart.
func ClassOfCall(res *mcp.CallToolResult, err error, registered bool) string {
	if err != nil {
		if !registered {
			return ClassToolNotFound
		}
		return ClassOfError(err)
	}
	if res == nil || !res.IsError {
		return ""
	}
	if code, ok := resultCode(res); ok {
		return ClassOf(code)
	}
	// An isError result says the tool ran and failed.
	return ClassToolExecutionError
}

// resultCode is the taxonomy code the server put in an isError result's
// _meta.error.code. It is an int in the server's own hands and a float64
// once the result has been through JSON.
func resultCode(res *mcp.CallToolResult) (protocol.Code, bool) {
	e, ok := res.Meta["error"].(map[string]any)
	if !ok {
		return 0, false
	}
	switch c := e["code"].(type) {
	case int:
		return protocol.Code(c), true
	case int64:
		return protocol.Code(c), true
	case float64:
		return protocol.Code(int(c)), true
	case json.Number:
		n, err := c.Int64()
		return protocol.Code(n), err == nil
	}
	return 0, false
}
