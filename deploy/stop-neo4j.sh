#!/usr/bin/env bash
# Stops the test Neo4j server that deploy/start-neo4j.sh [PORT] started, by
# its PID file, and removes its store. A server it did not start (no PID
# file) is left alone. Safe to run again.
set -euo pipefail

PORT="${1:-7687}"
STATE="${TMPDIR:-/tmp}/metaforge-neo4j-$PORT"
PIDFILE="$STATE/neo4j.pid"

say() { echo "stop-neo4j: $*" >&2; }

if [ ! -f "$PIDFILE" ]; then
	say "no PID file at $PIDFILE; nothing to stop"
	exit 0
fi
pid="$(cat "$PIDFILE" 2>/dev/null || true)"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'neo4j-launcher\.jar'; then
	kill -TERM "$pid"
	for _ in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "server $pid still running after 30 s; killing it"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	say "stopped server $pid"
else
	say "server ${pid:-?} is not running"
fi
rm -f "$PIDFILE"
rm -rf "$STATE/data"
