#!/bin/sh
# How the recorded KiCad 6 ERC reports (*.kicad6.rpt) beside this script
# were made: KiCad 6 has ERC only in the eeschema GUI, so this drives that
# GUI on a virtual X display (Xvfb, xdotool) and saves its report. It is
# not run by the tests; it documents and repeats how their expected
# results were obtained (Debian bookworm's KiCad 6.0.11).
#
# usage: kicad6_gui_erc.sh SCHEMATIC.kicad_sch REPORT.rpt
# needs: Xvfb, xdotool, eeschema. HOME is a scratch folder whose KiCad
# settings were made by answering eeschema's first-run dialogs once
# (defaults: "Start with default settings", "Copy default global symbol
# library table"). Clicks are at positions of KiCad 6.0.11's default
# window layout on a 1600x1000 screen.
set -eu
sch=$(readlink -f "$1")
rpt=$(readlink -f "$(dirname "$2")")/$(basename "$2")
export DISPLAY="${ERC_DISPLAY:-:77}"
export HOME="${ERC_HOME:-/tmp/ercgui/home}"
if ! xdotool getdisplaygeometry >/dev/null 2>&1; then
	Xvfb "$DISPLAY" -screen 0 1600x1000x24 >/dev/null 2>&1 &
	sleep 2
fi
rm -f "$rpt"
# window NAME: the id of the first window with NAME in its title, waiting
# up to a minute (xdotool's own --sync dies on windows that come and go).
window() {
	for _ in $(seq "${2:-60}"); do
		w=$(xdotool search --name "$1" 2>/dev/null | head -1) || true
		if [ -n "$w" ]; then
			echo "$w"
			return 0
		fi
		sleep 1
	done
	echo "no window named $1" >&2
	return 1
}
eeschema "$sch" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
window "Schematic Editor" >/dev/null
# Toolbar button "Perform electrical rules check", until its dialog opens.
dlg=
for _ in 1 2 3 4 5; do
	sleep 3
	xdotool mousemove 1006 41 click 1
	dlg=$(window "Electrical Rules Checker" 10) && break
done
[ -n "$dlg" ]
eval "$(xdotool getwindowgeometry --shell "$dlg")"
# "Run ERC", then "Save..." and the report's path. The buttons keep their
# place from the dialog's bottom (an annotation warning can push it down).
xdotool mousemove $((X + 686)) $((Y + HEIGHT - 23)) click 1
sleep 8
xdotool mousemove $((X + 686)) $((Y + HEIGHT - 77)) click 1
window "Save Report to File" >/dev/null
sleep 1
xdotool key ctrl+a
xdotool type --delay 20 "$rpt"
xdotool key Return
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -s "$rpt" ] && break
	sleep 1
done
test -s "$rpt"
echo "$rpt"
