#!/usr/bin/env bash
# Starts a test-only Neo4j 5 server (embedded, from Maven Central's
# neo4j-harness; see deploy/neo4j/) with Bolt on 127.0.0.1:PORT and
# authentication disabled, and prints on stdout, for
#     eval "$(deploy/start-neo4j.sh [PORT])"
# the lines
#     export NEO4J_URI=bolt://127.0.0.1:PORT
#     export NEO4J_USER=neo4j
#     export NEO4J_PASSWORD=metaforge-test
# (the server accepts any credentials, and neo4j.NoAuth() too). Everything
# else goes to stderr.
#
# Idempotent: if a Bolt server already answers on PORT it is reused. Else it
# builds deploy/neo4j (once; needs java, javac and mvn, installed with
# apt-get when missing and run as root), records a class-data-sharing archive
# (once; makes later start-ups several times faster), starts the server in
# the background and waits until Bolt answers.
#
# State (log, PID file, store) lives in ${TMPDIR:-/tmp}/metaforge-neo4j-PORT/;
# deploy/stop-neo4j.sh [PORT] stops the server.
#
# Environment:
#   NEO4J_START_TIMEOUT  seconds to wait for readiness (default 120)
#   NEO4J_JAVA_OPTS      extra JVM options, after the defaults (e.g. -Xmx2g)
#   NEO4J_CDS=0          skip the class-data-sharing archive
set -euo pipefail

# Only the export lines go to the real stdout (fd 3).
exec 3>&1 1>&2

PORT="${1:-7687}"
case "$PORT" in
'' | *[!0-9]*)
	echo "start-neo4j: bad port '$PORT'" >&2
	exit 2
	;;
esac
TIMEOUT="${NEO4J_START_TIMEOUT:-120}"

DEPLOY="$(cd "$(dirname "$0")" && pwd)"
PROJ="$DEPLOY/neo4j"
JAR="$PROJ/target/neo4j-launcher.jar"
JSA="$PROJ/target/neo4j-launcher.jsa"
STATE="${TMPDIR:-/tmp}/metaforge-neo4j-$PORT"
LOG="$STATE/neo4j.log"
PIDFILE="$STATE/neo4j.pid"
DATA="$STATE/data"

# Heap bounded, serial GC and C1 only: quick to start, light on 2 shared
# cores. The Add-Opens Neo4j needs are in the jar's manifest.
JAVA_OPTS=(
	-Xms64m -Xmx1g
	-XX:+UseSerialGC
	-XX:TieredStopAtLevel=1
	-XX:+ExitOnOutOfMemoryError
	-XX:-OmitStackTraceInFastThrow
	-Dlog4j2.disable.jmx=true
	-Dio.netty.tryReflectionSetAccessible=true
	-Djdk.nio.maxCachedBufferSize=1024
	-Xlog:disable -Xlog:all=error:stderr
)
# shellcheck disable=SC2206 # word splitting of the user's options is meant
JAVA_OPTS+=(${NEO4J_JAVA_OPTS:-})

say() { echo "start-neo4j: $*" >&2; }

print_env() {
	printf 'export NEO4J_URI=bolt://127.0.0.1:%s\n' "$PORT" >&3
	printf 'export NEO4J_USER=neo4j\n' >&3
	printf 'export NEO4J_PASSWORD=metaforge-test\n' >&3
}

# bolt_ping PORT: succeeds when a Bolt server on 127.0.0.1:PORT answers the
# Bolt handshake with a protocol version.
bolt_ping() {
	local out
	out="$(timeout 3 bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf "\x60\x60\xb0\x17\x00\x08\x08\x05\x00\x00\x04\x04\x00\x00\x00\x00\x00\x00\x00\x00" >&3
		head -c 4 <&3 | od -An -tx1
	' _ "$1" 2>/dev/null)" || return 1
	# A Bolt server answers 00 00 MINOR MAJOR (00 00 00 00: no common version).
	[[ "$(echo $out)" =~ ^00\ 00\ [0-9a-f]{2}\ 0[1-9a-f]$ ]]
}

# port_open PORT: something accepts TCP connections there.
port_open() {
	timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null
}

# ours PID: PID is alive and runs our launcher.
ours() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q 'neo4j-launcher\.jar'
}

apt_install() {
	if [ "$(id -u)" -ne 0 ]; then
		say "missing $*; install them (apt-get install $*) or run as root"
		exit 1
	fi
	if [ -z "${APT_UPDATED:-}" ]; then
		apt-get update -qq
		APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# with_lock FILE CMD...: runs CMD holding an exclusive lock on FILE when
# flock(1) exists, so concurrent callers build and start only once.
with_lock() {
	local file="$1"
	shift
	if command -v flock >/dev/null 2>&1; then
		(
			flock -w 900 9 || {
				say "could not lock $file"
				exit 1
			}
			"$@"
		) 9>"$file"
	else
		"$@"
	fi
}

needs_build() {
	[ -f "$JAR" ] && [ -d "$PROJ/target/lib" ] || return 0
	[ -n "$(find "$PROJ/pom.xml" "$PROJ/src" -newer "$JAR" -print -quit)" ]
}

build() {
	needs_build || return 0
	command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 ||
		apt_install openjdk-17-jdk-headless
	command -v mvn >/dev/null 2>&1 || apt_install maven
	say "building $PROJ (first time: downloads neo4j-harness from Maven Central)"
	local t0=$SECONDS
	rm -f "$JSA"
	mvn -q -B -f "$PROJ/pom.xml" package >&2
	say "built in $((SECONDS - t0)) s"
}

# Records the class-data-sharing archive: one run of the launcher that
# starts, runs a small workload and stops, with -XX:ArchiveClassesAtExit.
# The archive is tied to this JDK and to the jars; the JVM ignores it
# silently if either changed, and the next build records a new one.
record_cds() {
	[ "${NEO4J_CDS:-1}" != 0 ] || return 0
	[ -f "$JSA" ] && [ "$JSA" -nt "$JAR" ] && return 0
	say "recording class-data-sharing archive (once, ~30 s)"
	local t0=$SECONDS tmp
	tmp="$(mktemp -d "${TMPDIR:-/tmp}/metaforge-neo4j-cds.XXXXXX")"
	rm -f "$JSA.tmp"
	if timeout 600 java "${JAVA_OPTS[@]}" -XX:ArchiveClassesAtExit="$JSA.tmp" \
		-jar "$JAR" "$tmp" 0 --warmup-and-exit >"$tmp.log" 2>&1 </dev/null 3>&- 9>&- &&
		[ -s "$JSA.tmp" ]; then
		mv -f "$JSA.tmp" "$JSA"
		say "archive recorded in $((SECONDS - t0)) s"
	else
		rm -f "$JSA.tmp"
		say "could not record the archive (starting without it); log:"
		tail -n 20 "$tmp.log" >&2 || true
	fi
	rm -rf "$tmp" "$tmp.log"
}

# wait_ready PID: until Bolt answers on PORT; fails if PID dies or on timeout.
wait_ready() {
	local pid="$1" deadline=$((SECONDS + TIMEOUT))
	while [ $SECONDS -lt $deadline ]; do
		if grep -q '^READY ' "$LOG" 2>/dev/null && bolt_ping "$PORT"; then
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			say "server exited during start-up; last lines of $LOG:"
			tail -n 40 "$LOG" >&2 || true
			return 1
		fi
		sleep 0.2
	done
	say "not ready after ${TIMEOUT} s; stopping it. Last lines of $LOG:"
	tail -n 40 "$LOG" >&2 || true
	kill "$pid" 2>/dev/null || true
	return 1
}

start() {
	if bolt_ping "$PORT"; then
		say "reusing the Bolt server already on 127.0.0.1:$PORT"
		return 0
	fi
	local pid=""
	[ -f "$PIDFILE" ] && pid="$(cat "$PIDFILE" 2>/dev/null || true)"
	if ours "$pid"; then
		say "server $pid is still starting; waiting"
		wait_ready "$pid" && return 0
		kill -9 "$pid" 2>/dev/null || true
	fi
	if port_open "$PORT"; then
		say "127.0.0.1:$PORT is taken by something that does not speak Bolt"
		return 1
	fi

	with_lock "${TMPDIR:-/tmp}/metaforge-neo4j-build.lock" build
	with_lock "${TMPDIR:-/tmp}/metaforge-neo4j-build.lock" record_cds

	local cds=()
	[ "${NEO4J_CDS:-1}" != 0 ] && [ -f "$JSA" ] && cds=(-XX:SharedArchiveFile="$JSA")

	rm -rf "$DATA"
	mkdir -p "$DATA"
	[ -f "$LOG" ] && mv -f "$LOG" "$LOG.prev"
	local t0
	t0=$(date +%s%N)
	local setsid=()
	command -v setsid >/dev/null 2>&1 && setsid=(setsid)
	"${setsid[@]}" java "${JAVA_OPTS[@]}" "${cds[@]}" -jar "$JAR" "$DATA" "$PORT" \
		</dev/null >"$LOG" 2>&1 3>&- 9>&- &
	pid=$!
	echo "$pid" >"$PIDFILE"
	say "started server $pid (log: $LOG)"
	wait_ready "$pid" || {
		rm -f "$PIDFILE"
		return 1
	}
	say "ready on bolt://127.0.0.1:$PORT after $((($(date +%s%N) - t0) / 1000000)) ms"
}

mkdir -p "$STATE"
with_lock "$STATE/start.lock" start
print_env
