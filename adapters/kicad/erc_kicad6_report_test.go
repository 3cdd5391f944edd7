package kicad

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// kicad6Report is an ERC report as KiCad 6's eeschema writes it from its
// ERC dialog ("Save..."): sheets, then for each marker a "[rule]: text"
// line, a "; Severity: s" line and one "@(x mm, y mm): item" line per
// item, then the totals.
type kicad6Report struct {
	markers          []kicad6Marker
	errors, warnings int
}

type kicad6Marker struct {
	rule, severity, sheet string
	x, y                  float64
	items                 []string
}

var (
	rptSheet    = regexp.MustCompile(`^\*\*\*\*\* Sheet (.*)$`)
	rptMarker   = regexp.MustCompile(`^\[([a-z_]+)\]: `)
	rptSeverity = regexp.MustCompile(`; Severity: (\w+)\s*$`)
	rptItem     = regexp.MustCompile(`^\s+@\((-?[0-9.]+) mm, (-?[0-9.]+) mm\): (.*)$`)
	rptTotals   = regexp.MustCompile(`^ \*\* ERC messages: (\d+)\s+Errors (\d+)\s+Warnings (\d+)`)
)

// readKiCad6Report reads a recorded report, checking its totals against
// its markers.
func readKiCad6Report(t *testing.T, path string) kicad6Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		rep    kicad6Report
		sheet  string
		total  = -1
		cur    *kicad6Marker
		placed bool
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case rptSheet.MatchString(line):
			sheet = rptSheet.FindStringSubmatch(line)[1]
		case rptMarker.MatchString(line):
			rep.markers = append(rep.markers, kicad6Marker{rule: rptMarker.FindStringSubmatch(line)[1], sheet: sheet})
			cur, placed = &rep.markers[len(rep.markers)-1], false
		case cur != nil && rptSeverity.MatchString(line):
			cur.severity = rptSeverity.FindStringSubmatch(line)[1]
		case cur != nil && rptItem.MatchString(line):
			m := rptItem.FindStringSubmatch(line)
			if !placed {
				cur.x, _ = strconv.ParseFloat(m[1], 64)
				cur.y, _ = strconv.ParseFloat(m[2], 64)
				placed = true
			}
			cur.items = append(cur.items, m[3])
		case rptTotals.MatchString(line):
			m := rptTotals.FindStringSubmatch(line)
			total, _ = strconv.Atoi(m[1])
			rep.errors, _ = strconv.Atoi(m[2])
			rep.warnings, _ = strconv.Atoi(m[3])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if total != len(rep.markers) {
		t.Fatalf("%s: totals say %d markers, %d read", path, total, len(rep.markers))
	}
	return rep
}

// notChecked are KiCad 6 rules this checker does not run; their markers
// in KiCad's reports are left out of the comparison. lib_symbol_issues
// compares each symbol with the libraries of the machine that ran KiCad,
// so its count is that machine's, not the design's.
var notChecked = map[string]bool{"lib_symbol_issues": true}

// markerKey is what a marker is compared by: its rule, severity, sheet,
// position (to 0.01 mm, the report's precision) and items as described.
func markerKey(rule, severity, sheet string, x, y float64, items []string) string {
	items = append([]string(nil), items...)
	sort.Strings(items)
	return fmt.Sprintf("%s %s %s (%.2f, %.2f) %s", rule, severity, sheet, x, y, strings.Join(items, " | "))
}

// placeFree are rules whose marker KiCad puts on one of several pins by
// the order of its own lists, which this checker does not reproduce;
// they are compared by rule, severity and sheet only (their pins are
// checked by the rule tests).
var placeFree = map[string]bool{rulePowerPinNotDriven: true, rulePinNotDriven: true, rulePinToPin: true}

// compareWithKiCad6 checks a result against KiCad 6's own report of the
// same schematic: the same markers (rule, severity, sheet, place) and the
// same error and warning counts, leaving out the rules not checked.
func compareWithKiCad6(t *testing.T, got ERCResult, rep kicad6Report) {
	t.Helper()
	key := func(rule, severity, sheet string, x, y float64, items []string) string {
		if placeFree[rule] {
			return markerKey(rule, severity, sheet, 0, 0, nil)
		}
		return markerKey(rule, severity, sheet, x, y, items)
	}
	var want, have []string
	errs, warns := 0, 0
	for _, m := range rep.markers {
		if notChecked[m.rule] {
			continue
		}
		want = append(want, key(m.rule, m.severity, m.sheet, m.x, m.y, m.items))
		switch m.severity {
		case sevError:
			errs++
		case sevWarning:
			warns++
		}
	}
	for _, v := range got.Violations {
		var items []string
		for _, it := range v.Items {
			items = append(items, it.Description)
		}
		have = append(have, key(v.Rule, v.Severity, v.Sheet, v.Position.XMM, v.Position.YMM, items))
	}
	sort.Strings(want)
	sort.Strings(have)
	if strings.Join(want, "\n") != strings.Join(have, "\n") {
		t.Errorf("markers differ from KiCad 6's\n got:\n  %s\n KiCad 6:\n  %s", strings.Join(have, "\n  "), strings.Join(want, "\n  "))
	}
	if got.ErrorCount != errs || got.WarningCount != warns || got.Passed != (errs == 0) {
		t.Errorf("%d errors, %d warnings, passed %v; KiCad 6: %d errors, %d warnings", got.ErrorCount, got.WarningCount, got.Passed, errs, warns)
	}
}
