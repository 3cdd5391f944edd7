#!/usr/bin/env bash
# Installs what MetaForge's tests need beyond Go, when it is missing:
# bubblewrap, PostgreSQL, docker-compose, reportlab and the MCP Python SDK (PyPI), the solvers (deploy/install-solvers.sh:
# ngspice, CalculiX, gmsh, KiCad 6, FreeCAD 0.20, CadQuery 2.8) and KiCad's demos (Debian),
# Chromium (Debian; the e2e test of the Approvals page drives it
# headless with playwright-core), Node.js and npm (the TypeScript MCP SDK drives
# the server as an independent client), the e2e packages from npm at the
# versions e2e/package-lock pins, and Claude Code and Codex from npm at the
# versions deploy/agent-clients pins (their loaders check the plugins). Safe to run again: it installs nothing that is
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
# The solvers the adapters drive (ngspice, ccx, gmsh, KiCad's pcbnew,
# CadQuery), as make run installs them, and the KiCad demo projects the
# kicad adapter is tested on.
bash deploy/install-solvers.sh
[ -d /usr/share/kicad/demos ] || apt_install --no-install-recommends kicad-demos
# The sandbox runtime's bubblewrap (its tests run solvers inside it), Debian's
# PostgreSQL 15 for the ledger's tests (deploy/start-postgres.sh), and
# Debian's docker-compose, which validates deploy/compose.yaml (no engine is
# needed for that).
command -v bwrap >/dev/null 2>&1 || apt_install bubblewrap
# zsh and fish parse the completion scripts metaforge completion writes
# (cmd/metaforge/completion_test.go).
command -v zsh >/dev/null 2>&1 || apt_install zsh
command -v fish >/dev/null 2>&1 || apt_install fish
[ -x /usr/lib/postgresql/15/bin/initdb ] || apt_install postgresql
command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose
# The browser the Approvals page's e2e test drives (e2e/approvals_page.mjs).
# Debian's, since playwright-core downloads no browser of its own.
command -v chromium >/dev/null 2>&1 || apt_install chromium
# KiCad's own eeschema, driven on a virtual display, reads the schematics
# kicad.generate_schematic writes (its netlist and ERC, no headless path in
# KiCad 6); strace shows Freerouting reaches no network.
command -v Xvfb >/dev/null 2>&1 || apt_install xvfb xauth
command -v xdotool >/dev/null 2>&1 || apt_install xdotool
command -v strace >/dev/null 2>&1 || apt_install strace
# reportlab makes the PDF datasheets the knowledge tests ingest
# (knowledge/datasheettest), in the python3 the solvers' Python is.
# Pinned: 5.1.0 ships a wheel, so nothing is compiled here.
if ! python3 -c 'import reportlab' >/dev/null 2>&1; then
	python3 -m pip install --quiet --disable-pip-version-check reportlab==5.1.0 ||
		python3 -m pip install --quiet --disable-pip-version-check --break-system-packages reportlab==5.1.0
fi
# The MCP Python SDK is the second independent MCP client the e2e tests
# drive metaforge with (e2e/python_client.py). Pinned: 2.3.0 is what
# python_client.py is written against (streamable_http_client, mcp_types).
if ! python3 -c 'from mcp.client.streamable_http import streamable_http_client' >/dev/null 2>&1; then
	python3 -m pip install --quiet --disable-pip-version-check mcp==2.3.0 ||
		python3 -m pip install --quiet --disable-pip-version-check --break-system-packages mcp==2.3.0
fi

# Claude Code's and Codex's own loaders check the agent packages
# (plugins/claude_validate_test.go, codex_load_test.go), at the versions
# deploy/agent-clients pins; both ship their native binaries as npm
# packages, so nothing is fetched from elsewhere.
if [ ! -x deploy/agent-clients/node_modules/.bin/claude ] || [ ! -x deploy/agent-clients/node_modules/.bin/codex ]; then
	(cd deploy/agent-clients && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

if [ -f e2e/package.json ]; then
	if [ ! -f e2e/node_modules/@modelcontextprotocol/sdk/package.json ] ||
		[ ! -f e2e/node_modules/@modelcontextprotocol/conformance/package.json ] ||
		[ ! -f e2e/node_modules/playwright-core/package.json ]; then
		(cd e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
	fi
fi
