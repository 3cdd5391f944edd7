#!/usr/bin/env bash
# Copies the browser libraries the dashboard loads from the versions
# package-lock.json pins (npm ci) into ../assets/vendor, where they are
# committed and embedded in the binary: the dashboard fetches nothing at
# run time and needs no front-end build. Writes ../assets/vendor/VERSIONS
# (package, version, file, sha256), which dashboard's tests check the
# embedded files against. Run after changing package.json.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --silent --no-audit --no-fund
out=../assets/vendor
rm -rf "$out"
mkdir -p "$out"
# FILES: package, path in the package, path under assets/vendor.
FILES=(
	"three build/three.module.js three/three.module.js"
	"three build/three.core.js three/three.core.js"
	"three examples/jsm/controls/OrbitControls.js three/addons/controls/OrbitControls.js"
	"three examples/jsm/loaders/STLLoader.js three/addons/loaders/STLLoader.js"
	"three LICENSE three/LICENSE"
	"uplot dist/uPlot.esm.js uplot/uPlot.esm.js"
	"uplot dist/uPlot.min.css uplot/uPlot.min.css"
	"uplot LICENSE uplot/LICENSE"
)
{
	echo "# package version file sha256 (written by dashboard/vendor/update.sh)"
	for f in "${FILES[@]}"; do
		read -r pkg src dst <<<"$f"
		mkdir -p "$(dirname "$out/$dst")"
		cp "node_modules/$pkg/$src" "$out/$dst"
		version="$(node -p "require('./node_modules/$pkg/package.json').version")"
		echo "$pkg $version $dst $(sha256sum "$out/$dst" | cut -d' ' -f1)"
	done
} >"$out/VERSIONS"
echo "dashboard/assets/vendor updated:" >&2
cat "$out/VERSIONS" >&2
