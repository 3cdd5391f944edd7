#!/usr/bin/env bash
# Builds metaforge-sdfcheck, the libsdformat checker gazebo.validate_world runs
# (Debian has libsdformat12 but no `gz sdf` command), from sdfcheck.cc beside
# this script. It builds only when the program is missing or older than its
# source (or this script), so the installer and CI can call it every time.
#
#   bash deploy/sdfcheck/build.sh [DEST]
#
# DEST is the program's path; default /usr/local/bin/metaforge-sdfcheck as
# root, else ~/.cache/metaforge/bin/metaforge-sdfcheck (where the gazebo
# adapter also looks). Needs g++, pkg-config and libsdformat-dev
# (apt-get install g++ pkg-config libsdformat-dev).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/sdfcheck.cc"

if [ $# -gt 1 ]; then
  echo "usage: bash $0 [DEST]" >&2
  exit 2
fi
if [ $# -eq 1 ]; then
  dest="$1"
elif [ "$(id -u)" -eq 0 ]; then
  dest=/usr/local/bin/metaforge-sdfcheck
else
  dest="${HOME:?HOME is not set; pass DEST}/.cache/metaforge/bin/metaforge-sdfcheck"
fi

if [ -x "$dest" ] && [ "$dest" -nt "$src" ] && [ "$dest" -nt "$here/build.sh" ]; then
  echo "metaforge-sdfcheck is up to date: $dest"
  exit 0
fi

for tool in pkg-config "${CXX:-g++}"; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool not found: apt-get install g++ pkg-config libsdformat-dev" >&2
    exit 1
  fi
done
if ! flags="$(pkg-config --cflags --libs sdformat12 2>&1)"; then
  echo "pkg-config cannot find sdformat12 ($flags): apt-get install libsdformat-dev" >&2
  exit 1
fi

mkdir -p "$(dirname "$dest")"
tmp="$(mktemp "$(dirname "$dest")/.metaforge-sdfcheck.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
# shellcheck disable=SC2086 # pkg-config's flags are meant to split
"${CXX:-g++}" -O2 -Wall -Wextra -o "$tmp" "$src" $flags
chmod 0755 "$tmp"
mv -f "$tmp" "$dest"
trap - EXIT
echo "built metaforge-sdfcheck (libsdformat $(pkg-config --modversion sdformat12)): $dest"
