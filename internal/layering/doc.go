// Package layering holds the tests that keep MetaForge's package rules:
// adapters know nothing of Temporal or the MCP server, the twin nothing of
// MCP or Temporal, and no activity starts a workflow or waits on one. It
// has no code of its own.
package layering
