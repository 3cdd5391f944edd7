#!/usr/bin/env bash
# Starts a real Temporal cluster, without Docker: the Temporal server at the
# version go.mod pins, built from the Go module proxy (cached by version),
# on PostgreSQL (deploy/start-postgres.sh's server), its schema created and
# migrated by Temporal's own SQL tool (the commands deploy/compose.yaml's
# admin-tools run), and the namespace registered. Prints on stdout, for
#     eval "$(deploy/start-temporal.sh [PORT])"
# the lines
#     export TEMPORAL_ADDRESS=127.0.0.1:PORT
#     export TEMPORAL_NAMESPACE=default
# Everything else goes to stderr. `deploy/start-temporal.sh --build` only
# builds the binaries (CI runs it beside its other installs).
#
# The cluster runs as two processes with deploy/temporal/config.yaml: the
# frontend (PORT; HTTP API on PORT+10) and the core (history PORT+1,
# matching PORT+2, worker PORT+6). Two processes so that a test can restart
# the frontend alone: run this script again after killing either and it
# starts only what is missing. Its databases are temporal_PORT and
# temporal_visibility_PORT, so clusters on other ports do not meet.
#
# Environment:
#   TEMPORAL_PG_PORT        PostgreSQL port (default 5433; started if needed)
#   TEMPORAL_NAMESPACE      namespace to register (default "default")
#   TEMPORAL_SHARDS         history shards, fixed at the first start (default 4)
#   TEMPORAL_TLS_DIR        mTLS: a folder with ca.crt, server.crt (SAN
#                           127.0.0.1 and localhost, serverAuth+clientAuth)
#                           and server.key; the script then talks to the
#                           cluster with client.crt/client.key from it
#   TEMPORAL_JWKS           JWT authorization with the keys of this JWKS
#                           file; the script registers the namespace with
#                           TEMPORAL_API_KEY (a token with admin rights)
#   TEMPORAL_BIN_DIR        where the binaries are cached (default
#                           ${XDG_CACHE_HOME:-~/.cache}/metaforge/temporal-VERSION)
#   TEMPORAL_START_TIMEOUT  seconds to wait for readiness (default 120)
#   TEMPORAL_LOG_LEVEL      server log level (default warn)
#   TEMPORAL_PPROF          when 1: each process serves Go's /debug/pprof on
#                           127.0.0.1, the frontend on PORT+20 and the core
#                           on PORT+21 (bench/cluster_bench_test.go profiles
#                           them); takes effect on processes this run starts
#
# State (config copy, logs, PID files) lives in ${TMPDIR:-/tmp}/metaforge-temporal-PORT/;
# deploy/stop-temporal.sh [PORT] stops the cluster.
set -euo pipefail

# Only the export lines go to the real stdout (fd 3).
exec 3>&1 1>&2

BUILD_ONLY=
if [ "${1:-}" = --build ]; then
	BUILD_ONLY=1
	shift
fi
PORT="${1:-7233}"
case "$PORT" in
'' | *[!0-9]*)
	echo "start-temporal: bad port '$PORT'" >&2
	exit 2
	;;
esac
DEPLOY="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$DEPLOY")"
PG_PORT="${TEMPORAL_PG_PORT:-5433}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
TIMEOUT="${TEMPORAL_START_TIMEOUT:-120}"
STATE="${TMPDIR:-/tmp}/metaforge-temporal-$PORT"
HTTP_PORT=$((PORT + 10))

say() { echo "start-temporal: $*" >&2; }

# The server version is the one go.mod pins, so the cluster and the
# embedded dev server are the same Temporal.
VERSION="$(awk '$1 == "go.temporal.io/server" { print $2 }' "$ROOT/go.mod")"
[ -n "$VERSION" ] || {
	say "go.mod does not require go.temporal.io/server"
	exit 1
}
BIN_DIR="${TEMPORAL_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/metaforge/temporal-$VERSION}"

# build: temporal-server and temporal-sql-tool from the module proxy, at
# VERSION, with the server's own go.mod (as upstream's releases are built).
build() {
	if [ -x "$BIN_DIR/temporal-server" ] && [ -x "$BIN_DIR/temporal-sql-tool" ]; then
		return 0
	fi
	mkdir -p "$BIN_DIR"
	# One build at a time: test packages start their clusters in parallel.
	exec 8>"$BIN_DIR/.build.lock"
	flock -w 900 8 || {
		say "could not lock $BIN_DIR/.build.lock"
		return 1
	}
	if [ -x "$BIN_DIR/temporal-server" ] && [ -x "$BIN_DIR/temporal-sql-tool" ]; then
		exec 8>&-
		return 0
	fi
	say "building the Temporal server $VERSION into $BIN_DIR (once per version; a few minutes cold)"
	local tmp
	tmp="$(mktemp -d "$BIN_DIR/build.XXXXXX")"
	(cd "$tmp" && GOBIN="$tmp" CGO_ENABLED=0 GOFLAGS=-mod=mod go install -tags disable_grpc_modules \
		"go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION")
	mv -f "$tmp/sql" "$BIN_DIR/temporal-sql-tool"
	mv -f "$tmp/server" "$BIN_DIR/temporal-server"
	rm -rf "$tmp"
	exec 8>&-
}

# schema: databases created and migrated; every step is a no-op when done.
schema() {
	local sql=("$BIN_DIR/temporal-sql-tool" --ep 127.0.0.1 -p "$PG_PORT" -u metaforge --pl postgres12)
	local db dir
	for db in temporal visibility; do
		if [ "$db" = temporal ]; then
			dir=postgresql/v12/temporal
			db="temporal_$PORT"
		else
			dir=postgresql/v12/visibility
			db="temporal_visibility_$PORT"
		fi
		"${sql[@]}" --db "$db" create >>"$STATE/schema.log" 2>&1 &&
			"${sql[@]}" --db "$db" setup-schema -v 0.0 >>"$STATE/schema.log" 2>&1 &&
			"${sql[@]}" --db "$db" update-schema --schema-name "$dir" >>"$STATE/schema.log" 2>&1 || {
			say "the schema of $db did not migrate; last lines of $STATE/schema.log:"
			tail -n 20 "$STATE/schema.log" >&2
			return 1
		}
	done
}

# curl_api ARGS...: the cluster's HTTP API, with the client certificate
# and the token when the cluster asks for them.
curl_api() {
	local args=(-sS --max-time 5)
	if [ -n "${TEMPORAL_TLS_DIR:-}" ]; then
		args+=(--cacert "$TEMPORAL_TLS_DIR/ca.crt" --cert "$TEMPORAL_TLS_DIR/client.crt" --key "$TEMPORAL_TLS_DIR/client.key")
	fi
	if [ -n "${TEMPORAL_API_KEY:-}" ]; then
		args+=(-H "Authorization: Bearer $TEMPORAL_API_KEY")
	fi
	curl "${args[@]}" "$@"
}

api_url() {
	local scheme=http
	[ -n "${TEMPORAL_TLS_DIR:-}" ] && scheme=https
	echo "$scheme://localhost:$HTTP_PORT/api/v1$1"
}

# running NAME: the process of that PID file is alive.
running() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

# launch NAME SERVICE...: starts one server process in the background.
launch() {
	local name="$1"
	shift
	if running "$name"; then
		return 0
	fi
	local flags=() pprof=""
	for s in "$@"; do flags+=(--service "$s"); done
	if [ "${TEMPORAL_PPROF:-}" = 1 ]; then
		case "$name" in
		frontend) pprof=$((PORT + 20)) ;;
		*) pprof=$((PORT + 21)) ;;
		esac
	fi
	[ -f "$STATE/$name.log" ] && mv -f "$STATE/$name.log" "$STATE/$name.log.prev"
	T_PORT="$PORT" T_PG_PORT="$PG_PORT" T_STATE="$STATE" T_TLS_DIR="${TEMPORAL_TLS_DIR:-}" \
		T_JWKS="${TEMPORAL_JWKS:-}" T_SHARDS="${TEMPORAL_SHARDS:-4}" T_LOG_LEVEL="${TEMPORAL_LOG_LEVEL:-warn}" T_PPROF_PORT="$pprof" \
		setsid "$BIN_DIR/temporal-server" --config-file "$STATE/config.yaml" --allow-no-auth start "${flags[@]}" \
		</dev/null >"$STATE/$name.log" 2>&1 3>&- 9>&- &
	echo $! >"$STATE/$name.pid"
	say "started $name (PID $!; log $STATE/$name.log)"
}

# wait_ready: the frontend answers and the core serves it (system info
# comes from the frontend alone, so also ask for a namespace, which the
# history service's shards must be up to answer reliably).
wait_ready() {
	local deadline=$((SECONDS + TIMEOUT))
	until curl_api -f -o /dev/null "$(api_url /system-info)" 2>/dev/null; do
		for name in frontend core; do
			running "$name" || {
				say "the $name process exited; last lines of $STATE/$name.log:"
				tail -n 30 "$STATE/$name.log" >&2
				return 1
			}
		done
		[ $SECONDS -lt $deadline ] || {
			say "not ready after ${TIMEOUT}s; see $STATE/frontend.log and $STATE/core.log"
			return 1
		}
		sleep 0.5
	done
}

# wait_core: the core's history service accepts connections on its gRPC
# port. On a fresh database the first server process writes the cluster
# metadata record; two processes starting at once race for it and the
# loser exits ("Failed to apply cluster metadata"), so the frontend is
# started only once the core is up.
wait_core() {
	local deadline=$((SECONDS + TIMEOUT))
	until (: </dev/tcp/127.0.0.1/$((PORT + 1))) 2>/dev/null; do
		running core || {
			say "the core process exited; last lines of $STATE/core.log:"
			tail -n 30 "$STATE/core.log" >&2
			return 1
		}
		[ $SECONDS -lt $deadline ] || {
			say "the core is not listening on $((PORT + 1)) after ${TIMEOUT}s; see $STATE/core.log"
			return 1
		}
		sleep 0.2
	done
}

# both_running: the frontend answers system info and namespaces without
# the core, so readiness is also both processes still alive.
both_running() {
	for name in frontend core; do
		running "$name" || {
			say "the $name process exited; last lines of $STATE/$name.log:"
			tail -n 30 "$STATE/$name.log" >&2
			return 1
		}
	done
}

# namespace: registered unless it exists (retention: 3 days).
namespace() {
	local deadline=$((SECONDS + TIMEOUT)) out
	until curl_api -f -o /dev/null "$(api_url "/namespaces/$NAMESPACE")" 2>/dev/null; do
		out="$(curl_api -X POST "$(api_url /namespaces)" \
			-d "{\"namespace\":\"$NAMESPACE\",\"workflowExecutionRetentionPeriod\":\"259200s\"}" 2>&1)" || true
		case "$out" in
		*PermissionDenied* | *unauthorized* | *Unauthorized*)
			say "cannot register namespace $NAMESPACE: $out (set TEMPORAL_API_KEY to an admin token)"
			return 1
			;;
		esac
		[ $SECONDS -lt $deadline ] || {
			say "namespace $NAMESPACE not registered after ${TIMEOUT}s: $out"
			return 1
		}
		sleep 1
	done
}

if [ -n "$BUILD_ONLY" ]; then
	build
	exit 0
fi
command -v curl >/dev/null || {
	say "curl is needed (apt-get install curl)"
	exit 1
}
mkdir -p "$STATE"
(
	flock -w 900 9 || {
		say "could not lock $STATE/start.lock"
		exit 1
	}
	t0=$(date +%s%N)
	build
	eval "$(bash "$DEPLOY/start-postgres.sh" "$PG_PORT")"
	cp -f "$DEPLOY/temporal/config.yaml" "$STATE/config.yaml"
	[ -f "$STATE/dynamicconfig.yaml" ] || cp -f "$DEPLOY/temporal/dynamicconfig.yaml" "$STATE/dynamicconfig.yaml"
	if ! running frontend || ! running core; then
		schema
	fi
	# The core first: the frontend's membership ring needs history.
	launch core history matching worker
	wait_core
	if [ -n "${TEMPORAL_JWKS:-}" ]; then
		launch frontend frontend internal-frontend
	else
		launch frontend frontend
	fi
	wait_ready
	namespace
	both_running
	say "ready on 127.0.0.1:$PORT after $((($(date +%s%N) - t0) / 1000000)) ms (HTTP API on $HTTP_PORT)"
) 9>"$STATE/start.lock"
printf 'export TEMPORAL_ADDRESS=127.0.0.1:%s\nexport TEMPORAL_NAMESPACE=%s\n' "$PORT" "$NAMESPACE" >&3
