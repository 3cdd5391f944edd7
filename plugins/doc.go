// Package plugins is the directory of the agent packages (the Claude Code
// plugins metaforge and metaforge-local, the Codex plugin in the latter),
// which Claude Code and Codex read as data. Its tests keep them true: the
// command and skill files match the MCP prompts they are generated from,
// every manifest has the fields its client documents, and every
// marketplace entry resolves to a package.
package plugins
