#!/usr/bin/env bash
# Installs the solvers MetaForge's adapters drive, when missing: ngspice,
# CalculiX (ccx), gmsh, KiCad 6 with its pcbnew Python module, FreeCAD
# 0.20 headless with VTK for its mesher, check_urdf and libsdformat 12,
# KiCad's symbol libraries (Debian), CadQuery 2.8, PyBullet and usd-core
# (PyPI) for the cadquery, physics and omniverse_usd adapters' Python,
# Freerouting 2.2.3 (Maven Central) for kicad.auto_route, and poppler's
# pdftotext (Debian) that knowledge.ingest reads PDFs with. Without them
# metaforge serve starts, but health reports those adapters unreachable.
# Safe to run again: it installs nothing that is already there.
#
#   bash deploy/install-solvers.sh              as root: installs what is missing;
#                                               otherwise fails, naming it
#   bash deploy/install-solvers.sh --or-advise  (make run) as root the same; when it
#                                               cannot install, prints the command
#                                               that does and succeeds anyway
set -euo pipefail

advise=
if [ "${1:-}" = --or-advise ]; then
	advise=1
fi

# The Pythons the adapters use: KiCad's pcbnew is Debian's /usr/bin/python3
# (METAFORGE_KICAD_PYTHON), so is FreeCAD's compiled module
# (METAFORGE_FREECAD_PYTHON), CadQuery is python3's (METAFORGE_CADQUERY_PYTHON).
kicad_python=${METAFORGE_KICAD_PYTHON:-/usr/bin/python3}
freecad_python=${METAFORGE_FREECAD_PYTHON:-/usr/bin/python3}
cadquery_python=${METAFORGE_CADQUERY_PYTHON:-python3}

# has_module says whether python can find module, without the seconds that
# importing CadQuery or pcbnew takes.
has_module() {
	"$1" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)' "$2" >/dev/null 2>&1
}

missing_solvers() {
	command -v ngspice >/dev/null 2>&1 || echo ngspice
	command -v ccx >/dev/null 2>&1 || echo ccx
	command -v gmsh >/dev/null 2>&1 || echo gmsh
	has_module "$kicad_python" pcbnew || echo kicad
	has_module "$cadquery_python" cadquery || echo cadquery
	# FreeCAD's module is not on Python's path: its lib folder is
	# (adapters/freecad/install.go names the same folders).
	PYTHONPATH=/usr/lib/freecad/lib has_module "$freecad_python" FreeCAD || echo freecad
	# Robotics: PyBullet simulates URDFs (physics adapter), usd-core reads
	# USD stages (omniverse_usd), check_urdf and libsdformat check what the
	# exporters write (the gazebo adapter's checker is built against it).
	has_module "$cadquery_python" pybullet || echo pybullet
	has_module "$cadquery_python" pxr || echo usd-core
	command -v check_urdf >/dev/null 2>&1 || echo urdfdom
	pkg-config --exists sdformat12 2>/dev/null || echo sdformat
	# KiCad authoring: the symbol libraries kicad.generate_schematic copies
	# symbols from, and Freerouting (with a Java 25) for kicad.auto_route.
	[ -d /usr/share/kicad/symbols ] || echo kicad-symbols
	bash "$(dirname "${BASH_SOURCE[0]}")/install-freerouting.sh" --check >/dev/null 2>&1 || echo freerouting
	# Knowledge: PDFs are read as text with pdftotext -layout (pdfinfo
	# counts their pages).
	command -v pdftotext >/dev/null 2>&1 || echo poppler-utils
}

# build_sdfcheck builds metaforge-sdfcheck, the libsdformat checker
# gazebo.validate_world runs, when it is missing or older than its source
# (into /usr/local/bin as root, else ~/.cache/metaforge/bin).
build_sdfcheck() {
	bash "$(dirname "${BASH_SOURCE[0]}")/sdfcheck/build.sh" >&2
}

mapfile -t missing < <(missing_solvers)
if [ ${#missing[@]} -eq 0 ]; then
	build_sdfcheck
	exit 0
fi

if [ -n "$advise" ]; then
	if [ "$(id -u)" -eq 0 ] && bash "$0"; then
		exit 0
	fi
	echo "install-solvers: missing ${missing[*]}, so health will report the adapters that drive them unreachable; install them with:" >&2
	echo "    sudo bash deploy/install-solvers.sh" >&2
	echo "install-solvers: starting anyway" >&2
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-solvers: missing ${missing[*]}; install them with: sudo bash deploy/install-solvers.sh" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-solvers: missing ${missing[*]}, and this script installs with apt-get (Debian, Ubuntu); install them with your system's packages" >&2
	exit 1
fi

apt_updated=
apt_install() {
	if [ -z "$apt_updated" ]; then
		apt-get update -qq
		apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

for solver in "${missing[@]}"; do
	echo "install-solvers: installing $solver" >&2
	case $solver in
	ngspice) apt_install ngspice ;;
	ccx) apt_install calculix-ccx ;;
	gmsh) apt_install gmsh ;;
	kicad) apt_install --no-install-recommends kicad ;;
	freecad) apt_install --no-install-recommends freecad-python3 libvtk9.1 ;;
	urdfdom) apt_install --no-install-recommends liburdfdom-tools ;;
	kicad-symbols) apt_install --no-install-recommends kicad-symbols ;;
	poppler-utils) apt_install --no-install-recommends poppler-utils ;;
	freerouting) bash "$(dirname "${BASH_SOURCE[0]}")/install-freerouting.sh" ;;
	sdformat) apt_install --no-install-recommends libsdformat-dev pkg-config g++ ;;
	pybullet | usd-core)
		# Pinned: pybullet 3.2.7 and usd-core 26.11 ship manylinux wheels for
		# CPython 3.11, so nothing is compiled here.
		pin=pybullet==3.2.7
		[ "$solver" = usd-core ] && pin=usd-core==26.11
		"$cadquery_python" -m pip install --quiet --disable-pip-version-check "$pin" ||
			"$cadquery_python" -m pip install --quiet --disable-pip-version-check --break-system-packages "$pin"
		;;
	cadquery)
		# Pinned: the adapter is written against 2.8.
		if ! command -v "$cadquery_python" >/dev/null 2>&1 || ! "$cadquery_python" -m pip --version >/dev/null 2>&1; then
			apt_install python3 python3-pip
		fi
		"$cadquery_python" -m pip install --quiet --disable-pip-version-check cadquery==2.8.0 ||
			"$cadquery_python" -m pip install --quiet --disable-pip-version-check --break-system-packages cadquery==2.8.0
		;;
	esac
done

mapfile -t still < <(missing_solvers)
if [ ${#still[@]} -gt 0 ]; then
	echo "install-solvers: still missing ${still[*]} after installing; see the output above" >&2
	exit 1
fi
build_sdfcheck
