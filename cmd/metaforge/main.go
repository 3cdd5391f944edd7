// Command metaforge is MetaForge's one binary: `serve` (everything on one
// machine), `mcp` (stdio for local agents), `worker` (task queues on another
// machine), `adapter` (an adapter over the stdio adapter protocol), and the
// verbs that talk to a running serve (approvals, runs, ingest, sources,
// connect, doctor).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// version is MetaForge's version, reported by initialize and health.
const version = "0.1.0"

const usage = `metaforge: the control plane for hardware design

Usage:
  metaforge serve   [flags]   Temporal (embedded unless TEMPORAL_ADDRESS is set), workers, and MCP over HTTP
  metaforge mcp     [flags]   MCP over stdio, for Claude Code and other local clients
  metaforge worker  [flags]   workers only, against TEMPORAL_ADDRESS, for the queues in --queues
  metaforge adapter ID        serve one built-in adapter over the stdio adapter protocol
  metaforge adapter spice [--port 8104] [--addr 127.0.0.1] [--allowed-root DIR]...
                              serve spice over HTTP (POST /mcp, GET /health) for METAFORGE_ADAPTER_SPICE_URL
  metaforge approvals [flags] list the held calls waiting for a decision (--project, --tool)
  metaforge approve ID        approve a held call (--comment TEXT, --as NAME)
  metaforge reject ID         reject a held call (--comment TEXT, --as NAME)
                              approvals, approve, reject, run decide and change go through metaforge serve's REST API
                              as the local operator (the token serve writes to --data-dir) or with --token;
                              --url or $METAFORGE_URL names the serve, else it is found as connect finds it
  metaforge run start FLOW --project P --goal TEXT [--approve] [--wait]
                              propose a design flow (and, with --approve, approve it as the operator and start the run;
                              with --wait, wait with a progress bar until the run waits at a gate for a decision)
  metaforge run status ID     a run's phases, gates and criteria
  metaforge run decide ID --approve|--reject|--rework-to PHASE [--comment TEXT] [--as NAME]
  metaforge change list [--project P] [--status S] | change show ID
  metaforge change approve ID [--comment TEXT] [--as NAME] | change reject ID --comment TEXT [--as NAME]
                              engineering changes: list, read, and review one (not your own) through serve's REST API
  metaforge release create PROJECT [--reason TEXT]
                              record a release package (refused, naming each failing check, unless G8 passes)
  metaforge gates PROJECT     the maturity gates G3-G8 now: each check pass, fail or no_data, and what to record
  metaforge project create NAME [--description TEXT] | project list | project show ID
                              projects through serve's REST API (create runs project.create as you, the operator)
  metaforge twin show KEY[@n]|NODE_ID [--project P] | twin history KEY --project P
  metaforge twin find KEY=VALUE --project P [--type T] [--all-revisions]
                              the twin: a node and its neighbours, an item's revisions, nodes by a property
  metaforge calls [--tool T] [--project P] [--since 1h|RFC3339] [--limit N] | call ID [--wait]
                              tool calls from Temporal (newest first), and one call's arguments, outcome and result;
                              --wait follows a running or held call (an FEA solve, say) to its end, with a bar
  metaforge tools [--profile P]
                              the tools this binary serves, or one profile's (its tools/list); needs no serve
  metaforge completion bash|zsh|fish
                              a shell completion script for every command, verb and flag
  metaforge ingest FILE [--tag k=v]... [--title T] [--format F] [--json]
                              index a document (under serve's read roots) into the knowledge base, with a progress bar;
                              exits 2 when the knowledge base refuses it (outside the read roots, unknown format)
  metaforge sources [ID] [--tag k=v]... [--json]
                              the knowledge base's sources (or one, with its passages) through serve's REST API
  metaforge connect [--url URL]
                              find a MetaForge gateway and print its URL; exits 1 when none answers
  metaforge doctor  [--url URL] [--api-key KEY]
                              what is unreachable, the auth posture, protocol skew and profile of a gateway;
                              exits 0 healthy, 1 unreachable (or refused the key), 2 degraded
  metaforge install-agent claude|codex|cursor [--dry-run] [--scope user|project] [--remove]
                              write this binary (mcp --profile core) into the client's MCP config, or take it out;
                              prints the entry before and after, keeps FILE.metaforge-backup, and how to undo it

project, twin, calls, call, tools, sources and ingest print --json for scripts. A verb that talks to serve
exits 0 when it did what was asked, 1 when what it names is not there (or serve is unreachable), and 2 when
it was refused (a bad argument, a write the server does not allow) or used wrongly.

Run "metaforge COMMAND -h" for a command's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd, args := os.Args[1], os.Args[2:]
	if cmd == "-h" || cmd == "--help" || cmd == "help" {
		fmt.Print(usage)
		return
	}
	c, ok := lookupCommand(cmd)
	if !ok {
		fmt.Fprintf(os.Stderr, "metaforge: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	err := c.run(ctx, args)
	var status exitStatus
	switch {
	case err == nil:
	case errors.As(err, &status):
		os.Exit(int(status))
	case errors.Is(err, flag.ErrHelp):
		// The flags were printed: -h asked for them.
	default:
		fmt.Fprintf(os.Stderr, "metaforge: %v\n", err)
		os.Exit(statusOf(err))
	}
}

// exitStatus ends a command whose exit status is its answer (connect,
// doctor): the report is already on stdout, so main adds nothing to it.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// saidStatus ends a command with an exit status other than 1 and a
// sentence for stderr: ingest's refusals exit 2, as a usage error does,
// so a script tells "fix what you asked" from "try again".
type saidStatus struct {
	status int
	err    error
}

func (s *saidStatus) Error() string { return s.err.Error() }
func (s *saidStatus) Unwrap() error { return s.err }

// newLogger writes text logs to stderr: stdout is reserved for protocol
// messages under `metaforge mcp`.
func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}
