#!/usr/bin/env bash
# Stops the test PostgreSQL server that deploy/start-postgres.sh [PORT]
# started (default port 5433). The cluster stays, so the next start finds
# the data again; with --wipe it is deleted too. A server it did not start
# (no cluster in its state directory) is left alone. Safe to run again.
set -euo pipefail

PORT="${1:-5433}"
case "$PORT" in
'' | *[!0-9]*)
	echo "stop-postgres: bad port '$PORT'" >&2
	exit 2
	;;
esac
WIPE="${2:-}"
STATE="${TMPDIR:-/tmp}/metaforge-pg-$PORT"
DATA="$STATE/data"

say() { echo "stop-postgres: $*" >&2; }

as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
if [ -f "$DATA/PG_VERSION" ]; then
	BIN="${PG_BIN:-/usr/lib/postgresql/$(cat "$DATA/PG_VERSION")/bin}"
fi

if [ ! -f "$DATA/PG_VERSION" ]; then
	say "no cluster in $DATA; nothing to stop"
elif [ ! -f "$DATA/postmaster.pid" ]; then
	say "the server of $DATA is not running"
else
	cd "$STATE"
	# pg_ctl status: 0 running, 3 not running (a stale PID file).
	if as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
		as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null
		say "stopped the server on 127.0.0.1:$PORT"
	else
		say "the server of $DATA is not running"
	fi
fi

if [ "$WIPE" = --wipe ]; then
	rm -rf "$STATE"
	say "removed $STATE"
fi
