package main

import (
	"context"
	"io"
	"os"
)

// command is one of metaforge's commands as the dispatch runs it and the
// shell completion offers it: one table, so a command cannot be runnable
// without being completed, or completed without being runnable.
type command struct {
	name    string
	summary string
	// verbs are the words that may follow it (project create, ...), each
	// with its own flags; a command without verbs has flags of its own.
	verbs []verb
	flags []string
	run   func(ctx context.Context, args []string) error
}

// verb is a command's second word and its flags.
type verb struct {
	name  string
	flags []string
}

// serveConn are the flags of every verb that talks to serve's REST API.
var serveConn = []string{"data-dir", "url", "token"}

func withConn(flags ...string) []string { return append(append([]string{}, serveConn...), flags...) }

// installAgentFlags are install-agent's flags, the same for every client.
var installAgentFlags = []string{"dry-run", "remove", "scope"}

// runtimeFlags are serve's and mcp's flags (worker's are a subset of
// them with its own --queues and --temporal-address).
var runtimeFlags = []string{"adapter-runtime", "allow-twin-mutations", "approval-queue", "data-dir", "docker-image", "health-interval",
	"hold-local-writes", "limits-local", "limits-remote", "limits-untrusted", "log-level", "max-running-calls", "no-worker", "profile",
	"read-root", "runtime", "temporal-port", "ui-port", "write-root"}

// commands is every command, in the order usage lists them. A function,
// not a variable: completion reads the table it is in.
func commands() []command {
	return []command{
		{name: "serve", summary: "Temporal, workers, and MCP over HTTP", flags: append([]string{"http-addr"}, runtimeFlags...),
			run: runServe},
		{name: "mcp", summary: "MCP over stdio, for local clients", flags: runtimeFlags, run: runMCP},
		{name: "worker", summary: "workers only, against TEMPORAL_ADDRESS", flags: []string{"adapter-runtime", "allow-twin-mutations", "data-dir",
			"docker-image", "health-interval", "log-level", "queues", "read-root", "runtime", "temporal-address", "write-root"}, run: runWorker},
		{name: "adapter", summary: "serve one built-in adapter", verbs: []verb{{name: "power"}, {name: "spice", flags: []string{"addr", "allowed-root", "port"}}},
			run: runAdapter},
		{name: "approvals", summary: "the held calls waiting for a decision", flags: withConn("project", "tool"), run: stdout(runApprovals)},
		{name: "approve", summary: "approve a held call", flags: withConn("as", "comment"), run: decide("approve")},
		{name: "reject", summary: "reject a held call", flags: withConn("as", "comment"), run: decide("reject")},
		{name: "run", summary: "design-flow runs", verbs: []verb{
			{name: "start", flags: withConn("approve", "as", "goal", "loads", "manufacturing", "maturity", "project", "temporal-port", "version", "wait")},
			{name: "status", flags: []string{"temporal-port"}},
			{name: "decide", flags: withConn("approve", "as", "comment", "reject", "rework-to")}}, run: stdout(runRun)},
		{name: "change", summary: "engineering changes", verbs: []verb{{name: "list", flags: withConn("project", "status")},
			{name: "show", flags: serveConn}, {name: "approve", flags: withConn("as", "comment")}, {name: "reject", flags: withConn("as", "comment")}},
			run: stdout(runChange)},
		{name: "release", summary: "record a release package", verbs: []verb{{name: "create", flags: withConn("reason")}}, run: stdout(runRelease)},
		{name: "gates", summary: "the maturity gates G3-G8 of a project", flags: serveConn, run: stdout(runGates)},
		{name: "project", summary: "projects: create, list, show", verbs: []verb{{name: "create", flags: withConn("description", "json")},
			{name: "list", flags: withConn("json")}, {name: "show", flags: withConn("json")}}, run: stdout(runProject)},
		{name: "twin", summary: "the digital twin: a node, an item's history, a property search", verbs: []verb{
			{name: "show", flags: withConn("json", "project")}, {name: "history", flags: withConn("json", "project")},
			{name: "find", flags: withConn("all-revisions", "json", "project", "type")}}, run: stdout(runTwin)},
		{name: "calls", summary: "tool calls from Temporal, newest first", flags: withConn("json", "limit", "project", "since", "tool"),
			run: stdout(runCalls)},
		{name: "call", summary: "one call's arguments, outcome and result", flags: withConn("json", "wait"),
			run: func(ctx context.Context, args []string) error { return runCall(ctx, args, os.Stdout, os.Stderr) }},
		{name: "tools", summary: "the tools served, or a profile's", flags: []string{"json", "profile"}, run: stdout(runTools)},
		{name: "ingest", summary: "index a document into the knowledge base", flags: []string{"format", "json", "tag", "temporal-port", "title"},
			run: func(ctx context.Context, args []string) error { return runIngest(ctx, args, os.Stdout, os.Stderr) }},
		{name: "sources", summary: "the knowledge base's sources", flags: withConn("json", "tag"), run: stdout(runSources)},
		{name: "connect", summary: "find a MetaForge gateway", flags: []string{"url"}, run: stdout(runConnect)},
		{name: "doctor", summary: "what is wrong with a gateway", flags: []string{"api-key", "url"}, run: stdout(runDoctor)},
		{name: "install-agent", summary: "put this binary in Claude Code's, Codex's or Cursor's MCP config", verbs: []verb{
			{name: "claude", flags: installAgentFlags}, {name: "codex", flags: installAgentFlags}, {name: "cursor", flags: installAgentFlags}},
			run: stdout(runInstallAgent)},
		{name: "completion", summary: "a shell completion script", verbs: []verb{{name: "bash"}, {name: "zsh"}, {name: "fish"}},
			run: stdout(runCompletion)},
	}
}

// lookupCommand is the command called name.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// stdout adapts a command that prints to a writer.
func stdout(f func(context.Context, []string, io.Writer) error) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error { return f(ctx, args, os.Stdout) }
}

func decide(verb string) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error { return runDecide(ctx, verb, args, os.Stdout) }
}
