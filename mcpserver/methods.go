package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	segjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
)

// mcpMethod is what the screen knows of one method an MCP client sends:
// the SDK checks the same before dispatching, but answers over HTTP with
// plain text and, for bad params or a call before initialize, with code
// 0. The screen answers each with its JSON-RPC code instead.
type mcpMethod struct {
	notification   bool
	paramsRequired bool
	// params is the SDK's type for the params, decoded as the SDK will.
	params func() any
}

// initializeParams is InitializeParams with capabilities left to the SDK,
// which reads them in two shapes.
type initializeParams struct {
	mcp.InitializeParams
	Capabilities json.RawMessage `json:"capabilities"`
}

// mcpMethods are the client-to-server methods of the MCP revisions served,
// as the SDK's own table has them.
var mcpMethods = map[string]mcpMethod{
	"initialize":               {paramsRequired: true, params: func() any { return new(initializeParams) }},
	"ping":                     {params: func() any { return new(mcp.PingParams) }},
	"tools/list":               {params: func() any { return new(mcp.ListToolsParams) }},
	"tools/call":               {paramsRequired: true, params: func() any { return new(mcp.CallToolParamsRaw) }},
	"prompts/list":             {params: func() any { return new(mcp.ListPromptsParams) }},
	"prompts/get":              {paramsRequired: true, params: func() any { return new(mcp.GetPromptParams) }},
	"resources/list":           {params: func() any { return new(mcp.ListResourcesParams) }},
	"resources/templates/list": {params: func() any { return new(mcp.ListResourceTemplatesParams) }},
	"resources/read":           {paramsRequired: true, params: func() any { return new(mcp.ReadResourceParams) }},
	"resources/subscribe":      {paramsRequired: true, params: func() any { return new(mcp.SubscribeParams) }},
	"resources/unsubscribe":    {paramsRequired: true, params: func() any { return new(mcp.UnsubscribeParams) }},
	//lint:ignore SA1019 clients still send it during the deprecation window, and the SDK still answers it
	"logging/setLevel":          {paramsRequired: true, params: func() any { return new(mcp.SetLoggingLevelParams) }},
	"completion/complete":       {paramsRequired: true, params: func() any { return new(mcp.CompleteParams) }},
	"server/discover":           {params: func() any { return new(mcp.DiscoverParams) }},
	"subscriptions/listen":      {paramsRequired: true, params: func() any { return new(mcp.SubscriptionsListenParams) }},
	"notifications/cancelled":   {notification: true, params: func() any { return new(mcp.CancelledParams) }},
	"notifications/initialized": {notification: true, params: func() any { return new(mcp.InitializedParams) }},
	//lint:ignore SA1019 clients still send it during the deprecation window, and the SDK still takes it
	"notifications/roots/list_changed": {notification: true, params: func() any { return new(mcp.RootsListChangedParams) }},
	"notifications/progress":           {notification: true, paramsRequired: true, params: func() any { return new(mcp.ProgressNotificationParams) }},
	// Tasks (2025-11-25), which the SDK does not have: served by this
	// server's own handlers (tasks.go).
	"tasks/get":    {paramsRequired: true, params: func() any { return new(taskIDParams) }},
	"tasks/result": {paramsRequired: true, params: func() any { return new(taskIDParams) }},
	"tasks/cancel": {paramsRequired: true, params: func() any { return new(taskIDParams) }},
	"tasks/list":   {params: func() any { return new(taskListParams) }},
}

// beforeInitialize are the requests the SDK answers before initialize.
var beforeInitialize = map[string]bool{"initialize": true, "ping": true}

// screenMCP is screen for an MCP connection (stdio, /mcp): a frame that
// passes the limits must also be an MCP message this server can answer,
// or it is answered here with its JSON-RPC code. initialized says the
// connection has sent initialize; until then only initialize and ping are
// served.
func screenMCP(frame []byte, batches, initialized bool) verdict {
	v := screen(frame, batches)
	if v.reply != nil || v.legacy != nil || v.ignore {
		return v
	}
	trimmed := bytes.TrimLeft(frame, " \t\r\n")
	if trimmed[0] != '[' {
		v := checkMCPMessage(trimmed, initialized)
		if v.reply == nil && !v.ignore {
			return carryTaskParam(trimmed)
		}
		return v
	}
	var batch []json.RawMessage
	_ = json.Unmarshal(trimmed, &batch) // screen has decoded it
	for i, m := range batch {
		if mv := checkMCPMessage(m, initialized); mv.reply != nil || mv.ignore {
			// One JSON-RPC answer goes to a POST: the batch is refused
			// whole, naming the message at fault.
			code, msg := replyError(mv.reply)
			if mv.ignore {
				code, msg = protocol.MethodNotFound, "a notification of a method this server does not have"
			}
			return errorVerdict(nil, code, fmt.Sprintf("batch message %d: %s", i, msg), 400)
		}
		if req := requestOf(m); req != nil && req.Method == "initialize" {
			initialized = true
		}
	}
	return verdict{}
}

// checkMCPMessage checks one decoded message against mcpMethods.
func checkMCPMessage(msg []byte, initialized bool) verdict {
	req := requestOf(msg)
	if req == nil {
		return verdict{} // a response to the server's own request
	}
	id := idOf(msg)
	call := req.ID.IsValid()
	m, known := mcpMethods[req.Method]
	switch {
	case !known && !call:
		// A notification is never answered, and nothing handles this one.
		return verdict{ignore: true}
	case !known:
		return errorVerdict(id, protocol.MethodNotFound, fmt.Sprintf("method %q not found: this MCP server has %s", req.Method, "initialize, ping, tools/*, prompts/*, resources/*, tasks/*, logging/setLevel and completion/complete"), 200)
	case m.notification && call:
		return errorVerdict(id, protocol.InvalidRequest, fmt.Sprintf("invalid request: %s is a notification, which carries no id", req.Method), 400)
	case !m.notification && !call:
		return errorVerdict(nil, protocol.InvalidRequest, fmt.Sprintf("invalid request: %s is a request and needs an id (a string or an integer)", req.Method), 400)
	case call && initialized && req.Method == "initialize":
		return errorVerdict(id, protocol.InvalidRequest, "invalid request: this session is already initialized; to start over, open a new session (over HTTP, POST initialize without Mcp-Session-Id)", 200)
	case call && !initialized && !beforeInitialize[req.Method]:
		return errorVerdict(id, protocol.InvalidRequest, fmt.Sprintf("invalid request: %s before initialize; send initialize first (and notifications/initialized after its answer)", req.Method), 200)
	}
	params := bytes.TrimSpace(req.Params)
	if len(params) == 0 || string(params) == "null" {
		if m.paramsRequired {
			return errorVerdict(id, protocol.InvalidParams, fmt.Sprintf("invalid params: %s needs params", req.Method), 200)
		}
		return verdict{}
	}
	dec := segjson.NewDecoder(bytes.NewReader(params))
	dec.DontMatchCaseInsensitiveStructFields()
	if err := dec.Decode(m.params()); err != nil {
		if m.notification {
			return verdict{ignore: true} // not answered, and the SDK could not read it
		}
		return errorVerdict(id, protocol.InvalidParams, fmt.Sprintf("invalid params of %s: %v", req.Method, err), 200)
	}
	return verdict{}
}

// requestOf is msg as a request, or nil for a response.
func requestOf(msg []byte) *jsonrpc.Request {
	decoded, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		return nil
	}
	req, _ := decoded.(*jsonrpc.Request)
	return req
}

// replyError is the code and message of an error reply.
func replyError(reply []byte) (protocol.Code, string) {
	var r struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(reply, &r)
	return protocol.Code(r.Error.Code), r.Error.Message
}
