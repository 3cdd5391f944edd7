#!/usr/bin/env bash
# Stops the Temporal cluster that deploy/start-temporal.sh [PORT] started
# (default port 7233), by its PID files. Its databases stay, so the next
# start finds its runs again; with --wipe they are dropped too (the next
# start migrates a fresh schema). Safe to run again.
set -euo pipefail

PORT="${1:-7233}"
case "$PORT" in
'' | *[!0-9]*)
	echo "stop-temporal: bad port '$PORT'" >&2
	exit 2
	;;
esac
WIPE="${2:-}"
STATE="${TMPDIR:-/tmp}/metaforge-temporal-$PORT"
PG_PORT="${TEMPORAL_PG_PORT:-5433}"

say() { echo "stop-temporal: $*" >&2; }

# stop NAME: TERM, then KILL after 30 s, for the process of that PID file
# if it is still our temporal-server.
stop() {
	local pidfile="$STATE/$1.pid" pid
	[ -f "$pidfile" ] || return 0
	pid="$(cat "$pidfile" 2>/dev/null || true)"
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'temporal-server'; then
		kill -TERM "$pid"
		for _ in $(seq 1 300); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			say "$1 ($pid) still running after 30 s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		say "stopped $1 ($pid)"
	fi
	rm -f "$pidfile"
}

stop frontend
stop core
if [ "$WIPE" = --wipe ]; then
	for db in "temporal_$PORT" "temporal_visibility_$PORT"; do
		psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U metaforge -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 ||
			say "could not drop $db (is PostgreSQL on $PG_PORT running?)"
	done
	rm -f "$STATE/dynamicconfig.yaml"
	say "dropped the databases of the cluster on $PORT"
fi
