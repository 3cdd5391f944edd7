#!/usr/bin/env bash
# Installs Freerouting, the autorouter kicad.auto_route runs, when missing:
# the pinned version's jar and its runtime dependencies from Maven Central
# (app.freerouting:freerouting, fetched with mvn), and checks that a Java
# new enough to run it is on this machine, installing one from Debian when
# Debian has one. Safe to run again: it fetches nothing already there.
#
#   bash deploy/install-freerouting.sh [DEST]          installs into DEST, default
#                                                      /usr/local/share/metaforge/freerouting/VERSION
#                                                      as root (or when it is there already), else
#                                                      ~/.cache/metaforge/freerouting/VERSION
#   bash deploy/install-freerouting.sh --check [DEST]  installs nothing: exits 0 when both are
#                                                      there, else 1 naming what is missing
#
# The adapter looks in both default folders (root's first), or where
# METAFORGE_FREEROUTING_JAR names the jar; it runs the Java this script
# records in DEST/java (a link), or METAFORGE_FREEROUTING_JAVA.
#
# Why these pins: Freerouting 2.2.3 is the newest release whose runtime
# dependencies all resolve from Maven Central as this project reaches it
# (2.3.0 to 2.4.1 name jetty-ee10-websocket-jakarta-server 12.1.12 and
# google-api-client-appengine 2.9.1, which it did not serve in December
# 2026; 2.4.1's main class needs the first). Every 2.x release is compiled for
# Java 25 (class file version 69), so it needs Java 25 or newer; Debian
# bookworm's newest is OpenJDK 17, so on bookworm a Java 25 must come from
# elsewhere (the machine's Temurin 25 in /usr/lib/jvm, say).
set -euo pipefail

FREEROUTING_VERSION=2.2.3
FREEROUTING_JAVA_MAJOR=25

check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
if [ $# -gt 1 ]; then
	echo "usage: bash $0 [--check] [DEST]" >&2
	exit 2
fi
system_dest=/usr/local/share/metaforge/freerouting/$FREEROUTING_VERSION
if [ $# -eq 1 ]; then
	dest=$1
elif [ "$(id -u)" -eq 0 ]; then
	dest=$system_dest
else
	dest="${HOME:?HOME is not set; pass DEST}/.cache/metaforge/freerouting/$FREEROUTING_VERSION"
	# Installed for everyone already: that one serves (the adapter looks
	# there first).
	if [ -f "$system_dest/freerouting-$FREEROUTING_VERSION.jar" ]; then
		dest=$system_dest
	fi
fi
jar="$dest/freerouting-$FREEROUTING_VERSION.jar"

# java_major prints the major version of the Java at $1 (from its release
# file, else from -version), or nothing when it is not a Java.
java_major() {
	local bin=$1 home v
	[ -x "$bin" ] || return 0
	home=$(dirname "$(dirname "$(readlink -f "$bin")")")
	if [ -r "$home/release" ]; then
		v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release")
	else
		v=$("$bin" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n 1)
	fi
	v=${v#1.} # 1.8 -> 8
	echo "${v%%[.+-]*}"
}

# find_java prints a Java of FREEROUTING_JAVA_MAJOR or newer: the one named
# by METAFORGE_FREEROUTING_JAVA, the one recorded in DEST, the newest under
# /usr/lib/jvm, or java on PATH.
find_java() {
	local c m best= bestm=0
	if [ -n "${METAFORGE_FREEROUTING_JAVA:-}" ]; then
		m=$(java_major "$METAFORGE_FREEROUTING_JAVA")
		if [ -n "$m" ] && [ "$m" -ge "$FREEROUTING_JAVA_MAJOR" ]; then
			echo "$METAFORGE_FREEROUTING_JAVA"
		fi
		return 0 # named: no other is looked for
	fi
	for c in "$dest/java" /usr/lib/jvm/*/bin/java "$(command -v java || true)"; do
		[ -n "$c" ] || continue
		m=$(java_major "$c")
		if [ -n "$m" ] && [ "$m" -ge "$FREEROUTING_JAVA_MAJOR" ] && [ "$m" -gt "$bestm" ]; then
			best=$(readlink -f "$c") bestm=$m
		fi
	done
	echo "$best"
}

no_java() {
	if [ -n "${METAFORGE_FREEROUTING_JAVA:-}" ]; then
		echo "install-freerouting: METAFORGE_FREEROUTING_JAVA=$METAFORGE_FREEROUTING_JAVA is not a Java $FREEROUTING_JAVA_MAJOR or newer (${seen_java:-not a Java at all})." >&2
	fi
	echo "install-freerouting: no Java $FREEROUTING_JAVA_MAJOR or newer found (Freerouting $FREEROUTING_VERSION is compiled for it)." >&2
	echo "    Debian bookworm has none (its newest is openjdk-17). Install a Java $FREEROUTING_JAVA_MAJOR runtime, e.g. Eclipse Temurin $FREEROUTING_JAVA_MAJOR" >&2
	echo "    (temurin-$FREEROUTING_JAVA_MAJOR-jre) or Debian trixie's openjdk-$FREEROUTING_JAVA_MAJOR-jre-headless, then run this again," >&2
	echo "    or set METAFORGE_FREEROUTING_JAVA to its bin/java." >&2
}

java_bin=$(find_java)
if [ -n "$check" ]; then
	missing=()
	[ -f "$jar" ] || missing+=("freerouting $FREEROUTING_VERSION (no $jar)")
	[ -n "$java_bin" ] || missing+=("java $FREEROUTING_JAVA_MAJOR+")
	if [ ${#missing[@]} -gt 0 ]; then
		echo "install-freerouting: missing ${missing[*]}; install with: bash deploy/install-freerouting.sh" >&2
		exit 1
	fi
	echo "freerouting $FREEROUTING_VERSION: $jar, java: $java_bin"
	exit 0
fi

if [ -z "$java_bin" ] && [ -z "${METAFORGE_FREEROUTING_JAVA:-}" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	# Debian releases after bookworm carry it; bookworm does not.
	apt-get update -qq
	pkg=openjdk-$FREEROUTING_JAVA_MAJOR-jre-headless
	if apt-cache show "$pkg" >/dev/null 2>&1; then
		echo "install-freerouting: installing $pkg" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
		java_bin=$(find_java)
	fi
fi
if [ -z "$java_bin" ]; then
	if [ -n "${METAFORGE_FREEROUTING_JAVA:-}" ]; then
		seen_java=$(java_major "$METAFORGE_FREEROUTING_JAVA")
		seen_java=${seen_java:+it is Java $seen_java}
	fi
	no_java
	exit 1
fi

if [ ! -f "$jar" ]; then
	if ! command -v mvn >/dev/null 2>&1; then
		if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
			echo "install-freerouting: installing maven" >&2
			apt-get update -qq
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven >/dev/null
		else
			echo "install-freerouting: mvn (Maven) is needed to fetch Freerouting: apt-get install maven" >&2
			exit 1
		fi
	fi
	echo "install-freerouting: fetching app.freerouting:freerouting:$FREEROUTING_VERSION and its runtime dependencies into $dest" >&2
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.metaforge</groupId>
  <artifactId>freerouting-install</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>app.freerouting</groupId>
      <artifactId>freerouting</artifactId>
      <version>$FREEROUTING_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
	# -C fails on a checksum that does not match the repository's.
	mvn -B -q -C -f "$work/pom.xml" dependency:copy-dependencies \
		-DincludeScope=runtime -DoutputDirectory="$work/lib" >&2
	if [ ! -f "$work/lib/freerouting-$FREEROUTING_VERSION.jar" ]; then
		echo "install-freerouting: mvn did not fetch freerouting-$FREEROUTING_VERSION.jar" >&2
		exit 1
	fi
	mkdir -p "$(dirname "$dest")"
	rm -rf "$dest.tmp"
	mv "$work/lib" "$dest.tmp"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
fi

# Record the Java found, for the adapter (DEST/java).
if [ "$(readlink -f "$dest/java" 2>/dev/null || true)" != "$java_bin" ] && [ -w "$dest" ]; then
	ln -sfn "$java_bin" "$dest/java"
fi
echo "freerouting $FREEROUTING_VERSION: $jar ($(find "$dest" -name '*.jar' | wc -l) jars), java $(java_major "$java_bin"): $java_bin"
