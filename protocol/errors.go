// Package protocol holds what every part of MetaForge must agree on about the
// wire: the error taxonomy (JSON-RPC's own codes and MetaForge's -32001 to
// -32007). It is the one table of codes; nothing else defines a code.
package protocol

import "fmt"

// Code is a JSON-RPC error code from the MetaForge taxonomy.
type Code int

// The taxonomy. -32600..-32602 are JSON-RPC's own; the rest are MetaForge's.
// -32002 is RESOURCE_NOT_FOUND because the MCP spec assigns it so; TOOL_TIMEOUT
// and AUTH_DENIED sit on free codes so no client confuses them with it.
const (
	ParseError         Code = -32700
	InvalidRequest     Code = -32600
	MethodNotFound     Code = -32601
	InvalidParams      Code = -32602
	InternalError      Code = -32603
	ToolExecutionError Code = -32001
	ResourceNotFound   Code = -32002
	ToolUnavailable    Code = -32003
	ResourceReadError  Code = -32005
	ToolTimeout        Code = -32006
	AuthDenied         Code = -32007
)

var codeNames = map[Code]string{
	ParseError:         "PARSE_ERROR",
	InvalidRequest:     "INVALID_REQUEST",
	MethodNotFound:     "METHOD_NOT_FOUND",
	InvalidParams:      "INVALID_PARAMS",
	InternalError:      "INTERNAL_ERROR",
	ToolExecutionError: "TOOL_EXECUTION_ERROR",
	ResourceNotFound:   "RESOURCE_NOT_FOUND",
	ToolUnavailable:    "TOOL_UNAVAILABLE",
	ResourceReadError:  "RESOURCE_READ_ERROR",
	ToolTimeout:        "TOOL_TIMEOUT",
	AuthDenied:         "AUTH_DENIED",
}

// codeMessages are the constant JSON-RPC message of each code;
// what went wrong goes in data.details.
var codeMessages = map[Code]string{
	ParseError:         "Parse error",
	InvalidRequest:     "Invalid request",
	MethodNotFound:     "Method not found",
	InvalidParams:      "Invalid params",
	InternalError:      "Internal error",
	ToolExecutionError: "Tool execution failed",
	ResourceNotFound:   "Resource not found",
	ToolUnavailable:    "Tool adapter is unavailable",
	ResourceReadError:  "Resource could not be read",
	ToolTimeout:        "Tool exceeded its timeout",
	AuthDenied:         "Credential rejected",
}

// Message is the code's constant JSON-RPC message, such as "Tool execution
// failed" for TOOL_EXECUTION_ERROR.
func (c Code) Message() string {
	if m, ok := codeMessages[c]; ok {
		return m
	}
	return c.Name()
}

// Name is the taxonomy name of the code, such as "TOOL_TIMEOUT".
func (c Code) Name() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("CODE_%d", int(c))
}

var codesByName = func() map[string]Code {
	m := make(map[string]Code, len(codeNames))
	for c, n := range codeNames {
		m[n] = c
	}
	return m
}()

// CodeByName returns the code with the given taxonomy name. Workflows call
// it, so it is a lookup, never an iteration over a map.
func CodeByName(name string) (Code, bool) {
	c, ok := codesByName[name]
	return c, ok
}

// Error is a MetaForge error with its taxonomy code. Adapters return it to say
// how a call failed; Retryable marks a transient failure (a crashed solver
// process, a lost connection) that an idempotent tool may try again. A refusal
// (bad input, a check that cannot pass) is never retryable: it would fail the
// same way again.
type Error struct {
	Code      Code   `json:"code"`
	ToolID    string `json:"tool_id,omitempty"`
	Details   string `json:"details"`
	Retryable bool   `json:"retryable,omitempty"`
}

func (e *Error) Error() string {
	if e.ToolID != "" {
		return fmt.Sprintf("%s: %s: %s", e.Code.Name(), e.ToolID, e.Details)
	}
	return fmt.Sprintf("%s: %s", e.Code.Name(), e.Details)
}

// Refusal is a non-retryable TOOL_EXECUTION_ERROR: the tool ran and said no.
func Refusal(format string, args ...any) *Error {
	return &Error{Code: ToolExecutionError, Details: fmt.Sprintf(format, args...)}
}

// Invalid is a non-retryable INVALID_PARAMS error naming what to fix.
func Invalid(format string, args ...any) *Error {
	return &Error{Code: InvalidParams, Details: fmt.Sprintf(format, args...)}
}

// Transient is a retryable TOOL_EXECUTION_ERROR: the tool could not run this
// time (its process died, its connection broke) and may succeed if tried again.
func Transient(format string, args ...any) *Error {
	return &Error{Code: ToolExecutionError, Details: fmt.Sprintf(format, args...), Retryable: true}
}

// Unavailable is a TOOL_UNAVAILABLE error: the adapter is not there to ask.
func Unavailable(format string, args ...any) *Error {
	return &Error{Code: ToolUnavailable, Details: fmt.Sprintf(format, args...)}
}
