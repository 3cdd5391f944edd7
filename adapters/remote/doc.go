// Package remote serves an adapter over HTTP and reaches one served so, for
// an adapter that runs on another machine than the main server (the host
// that has the solver installed).
//
// POST /mcp takes one JSON-RPC 2.0 request of the stdio adapter protocol
// (tool/list, tool/call, health/check) and answers with its envelopes;
// GET /health answers health/check as plain HTTP, for probes and load
// balancers. Client is the other end: an adapters.Adapter whose errors are
// those the adapter returned in process, so the ToolCall workflow's retry
// policy cannot tell the two forms apart.
package remote
