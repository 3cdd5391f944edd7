#!/usr/bin/env bash
# Installs what MetaForge's tests need beyond Go, when it is missing:
# bubblewrap, PostgreSQL, docker-compose, ngspice, CalculiX (ccx), gmsh and KiCad 6 with its demos (Debian), CadQuery 2.8 (PyPI, for python3), Chromium (Debian; the e2e test of the Approvals page drives it
# headless with playwright-core), Node.js and npm (the TypeScript MCP SDK drives
# the server as an independent client), and the e2e packages from npm at the
# versions e2e/package-lock pins. Safe to run again: it installs nothing that is
# already there.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "test-deps: missing $*; install them (apt-get install $*) or run as root" >&2
		exit 1
	fi
	if [ -z "${APT_UPDATED:-}" ]; then
		apt-get update -qq
		APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v node >/dev/null 2>&1 || apt_install nodejs
command -v npm >/dev/null 2>&1 || apt_install npm
# The solvers the adapters drive.
command -v ngspice >/dev/null 2>&1 || apt_install ngspice
command -v ccx >/dev/null 2>&1 || apt_install calculix-ccx
command -v gmsh >/dev/null 2>&1 || apt_install gmsh
# KiCad 6 (its pcbnew Python module, for Debian's /usr/bin/python3) and the
# demo projects the kicad adapter is tested on.
if ! /usr/bin/python3 -c 'import pcbnew' >/dev/null 2>&1 || [ ! -d /usr/share/kicad/demos ]; then
	apt_install --no-install-recommends kicad kicad-demos
fi
# CadQuery for the cadquery adapter's Python side (METAFORGE_CADQUERY_PYTHON,
# default python3). Pinned: the adapter is written against 2.8.
python=${METAFORGE_CADQUERY_PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || apt_install python3 python3-pip
if ! "$python" -c 'import cadquery' >/dev/null 2>&1; then
	"$python" -m pip install --quiet --disable-pip-version-check cadquery==2.8.0 ||
		"$python" -m pip install --quiet --disable-pip-version-check --break-system-packages cadquery==2.8.0
fi
# The sandbox runtime's bubblewrap (its tests run solvers inside it), Debian's
# PostgreSQL 15 for the ledger's tests (deploy/start-postgres.sh), and
# Debian's docker-compose, which validates deploy/compose.yaml (no engine is
# needed for that).
command -v bwrap >/dev/null 2>&1 || apt_install bubblewrap
[ -x /usr/lib/postgresql/15/bin/initdb ] || apt_install postgresql
command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose
# The browser the Approvals page's e2e test drives (e2e/approvals_page.mjs).
# Debian's, since playwright-core downloads no browser of its own.
command -v chromium >/dev/null 2>&1 || apt_install chromium

if [ -f e2e/package.json ]; then
	if [ ! -f e2e/node_modules/@modelcontextprotocol/sdk/package.json ] ||
		[ ! -f e2e/node_modules/@modelcontextprotocol/conformance/package.json ] ||
		[ ! -f e2e/node_modules/playwright-core/package.json ]; then
		(cd e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
	fi
fi
