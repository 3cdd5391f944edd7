// Package dispatchfuzz fuzzes the MCP server's dispatcher from outside, over
// stdio, /mcp and /rpc. It is a package of its own so its test binary holds
// the server and not the embedded Temporal server the mcpserver tests link:
// fuzzing instruments every package in the binary, and that one made each
// input cost a tenth of a second of coverage bookkeeping.
package dispatchfuzz
