#!/usr/bin/env bash
# Starts a test-only PostgreSQL server (Debian's postgresql 15) on
# 127.0.0.1:PORT (default 5433) with trust authentication on loopback,
# creates the role and database metaforge, and prints on stdout, for
#     eval "$(deploy/start-postgres.sh [PORT])"
# the line
#     export DATABASE_URL=postgres://metaforge@127.0.0.1:PORT/metaforge?sslmode=disable
# Everything else goes to stderr. The role metaforge may create databases,
# so tests can make one each (ledger/pgtest).
#
# Idempotent: a server already answering on PORT is reused. Else it installs
# postgresql with apt-get when missing (as root), creates the cluster (once)
# and starts it in the background. initdb refuses to run as root, so when
# run by root the cluster belongs to, and runs as, the user postgres.
#
# State (cluster, log, socket) lives in ${TMPDIR:-/tmp}/metaforge-pg-PORT/.
# deploy/stop-postgres.sh [PORT] stops the server and keeps the cluster, so
# the next start finds the data again. The server trades durability for
# speed (fsync off): it survives its own restart, not the machine's crash.
#
# Environment:
#   PG_BIN            directory of initdb and pg_ctl (default:
#                     /usr/lib/postgresql/15/bin, else the newest installed)
#   PG_START_TIMEOUT  seconds to wait for readiness (default 60)
set -euo pipefail

# Only the export line goes to the real stdout (fd 3).
exec 3>&1 1>&2

PORT="${1:-5433}"
case "$PORT" in
'' | *[!0-9]*)
	echo "start-postgres: bad port '$PORT'" >&2
	exit 2
	;;
esac
TIMEOUT="${PG_START_TIMEOUT:-60}"
STATE="${TMPDIR:-/tmp}/metaforge-pg-$PORT"
DATA="$STATE/data"
LOG="$STATE/postgres.log"
URL="postgres://metaforge@127.0.0.1:$PORT/metaforge?sslmode=disable"

say() { echo "start-postgres: $*" >&2; }

# find_bin: version 15's, else the newest installed, else nothing.
find_bin() {
	if [ -x /usr/lib/postgresql/15/bin/initdb ]; then
		echo /usr/lib/postgresql/15/bin
		return
	fi
	local dir
	dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
		echo "$dir"
	fi
}

install_postgres() {
	if [ "$(id -u)" -ne 0 ]; then
		say "PostgreSQL is not installed; install it (apt-get install postgresql) or run as root"
		exit 1
	fi
	say "installing postgresql with apt-get"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

# as_owner CMD...: runs CMD as the cluster's owner (postgres when we are root).
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# ready: a PostgreSQL server accepts connections on 127.0.0.1:PORT.
ready() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -t 2; }

# port_open: something accepts TCP connections there.
port_open() { timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$PORT" 2>/dev/null; }

# init_cluster: creates the cluster unless one of this major version is
# there already (a left-over of another version is replaced).
init_cluster() {
	local major
	major="$("$BIN/postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')"
	if [ -f "$DATA/PG_VERSION" ] && [ "$(cat "$DATA/PG_VERSION")" = "$major" ]; then
		return 0
	fi
	rm -rf "$DATA"
	as_owner mkdir -m 700 "$DATA"
	say "creating the cluster in $DATA (PostgreSQL $major)"
	as_owner "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$STATE/initdb.log" 2>&1 || {
		say "initdb failed:"
		cat "$STATE/initdb.log" >&2
		return 1
	}
	as_owner tee -a "$DATA/postgresql.conf" >/dev/null <<EOF

# deploy/start-postgres.sh: a test server, on loopback only.
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$STATE'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
	as_owner tee "$DATA/pg_hba.conf" >/dev/null <<EOF
# deploy/start-postgres.sh: trust on loopback; the server listens nowhere else.
local all all trust
host  all all 127.0.0.1/32 trust
EOF
}

# ensure_database: the role and database metaforge exist.
ensure_database() {
	if "$BIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U metaforge -d metaforge -c 'SELECT 1' >/dev/null 2>&1; then
		return 0
	fi
	"$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d postgres >/dev/null <<'SQL'
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'metaforge') THEN
		CREATE ROLE metaforge LOGIN CREATEDB;
	END IF;
END
$$;
SELECT 'CREATE DATABASE metaforge OWNER metaforge'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'metaforge') \gexec
SQL
}

start() {
	if ready; then
		say "reusing the PostgreSQL server already on 127.0.0.1:$PORT"
		return 0
	fi
	if port_open; then
		say "127.0.0.1:$PORT is taken by something that is not a PostgreSQL server ready for connections"
		return 1
	fi
	if [ "$(id -u)" -eq 0 ]; then
		id postgres >/dev/null 2>&1 ||
			useradd --system --no-create-home --shell /usr/sbin/nologin postgres
		chown postgres: "$STATE"
		as_owner test -w "$STATE" || {
			say "the user postgres cannot write to $STATE; set TMPDIR to a directory it can reach"
			return 1
		}
	fi
	init_cluster
	[ -f "$LOG" ] && as_owner mv -f "$LOG" "$LOG.prev"
	local t0
	t0=$(date +%s%N)
	# The server must not hold our stdout or the lock.
	if ! as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t "$TIMEOUT" start >/dev/null 3>&- 9>&-; then
		say "the server did not start; last lines of $LOG:"
		tail -n 40 "$LOG" >&2 || true
		return 1
	fi
	say "ready on 127.0.0.1:$PORT after $((($(date +%s%N) - t0) / 1000000)) ms"
}

if [ -n "${PG_BIN:-}" ]; then
	[ -x "$PG_BIN/initdb" ] || {
		say "PG_BIN=$PG_BIN has no initdb"
		exit 1
	}
	BIN="$PG_BIN"
else
	BIN="$(find_bin)"
	if [ -z "$BIN" ]; then
		install_postgres
		BIN="$(find_bin)"
		[ -n "$BIN" ] || {
			say "no initdb under /usr/lib/postgresql/*/bin after installing postgresql; set PG_BIN"
			exit 1
		}
	fi
fi

mkdir -p "$STATE"
# Hold the lock while starting, so concurrent callers start one server.
# The working directory must be one the user postgres can enter.
cd "$STATE"
(
	flock -w 300 9 || {
		say "could not lock $STATE/start.lock"
		exit 1
	}
	start
	ensure_database
) 9>"$STATE/start.lock"
printf 'export DATABASE_URL=%s\n' "$URL" >&3
