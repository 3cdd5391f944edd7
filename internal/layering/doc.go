// Package layering holds the tests that keep MetaForge's package rules:
// adapters know nothing of Temporal or the MCP server, the twin nothing of
// MCP or Temporal, lower packages import no higher ones (activities no
// adapter, workflows no adapter, runs and the ledger no MCP server), and no
// activity starts a workflow or waits on one. It has no code of its own.
package layering
