package kicad

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/metaforge/metaforge/adapters"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// DRCRequest is the input of kicad.run_drc.
type DRCRequest struct {
	BoardFile string `json:"board_file"`
}

// DRCResult is what kicad.run_drc returns.
type DRCResult struct {
	BoardFile       string      `json:"board_file"`
	ReportFile      string      `json:"report_file"`
	Passed          bool        `json:"passed"`
	ViolationCount  int         `json:"violation_count"`
	ErrorCount      int         `json:"error_count"`
	WarningCount    int         `json:"warning_count"`
	Violations      []Violation `json:"violations"`
	Unconnected     ItemList    `json:"unconnected_items"`
	FootprintErrors ItemList    `json:"footprint_errors"`
}

// ItemList is a counted list of report entries.
type ItemList struct {
	Count int         `json:"count"`
	Items []Violation `json:"items"`
}

// Violation is one entry of pcbnew's DRC report.
type Violation struct {
	// Rule is KiCad's key for the check ("clearance", "silk_over_copper").
	Rule        string `json:"rule"`
	Description string `json:"description"`
	// Constraint says which rule set it ("board setup constraints silk").
	Constraint string    `json:"constraint,omitempty"`
	Severity   string    `json:"severity"`
	Location   *Location `json:"location,omitempty"`
	Items      []Item    `json:"items"`
}

// Location is a point on the board, millimetres, KiCad's axes (Y down).
type Location struct {
	XMM float64 `json:"x_mm"`
	YMM float64 `json:"y_mm"`
}

// Item is one board item a violation names, where pcbnew placed it.
type Item struct {
	Description string  `json:"description"`
	XMM         float64 `json:"x_mm"`
	YMM         float64 `json:"y_mm"`
}

func (a *Adapter) runDRC(ctx context.Context, args json.RawMessage) (*DRCResult, error) {
	var req DRCRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	board, err := a.resolveDesign("board_file", req.BoardFile, boardKind)
	if err != nil {
		return nil, err
	}
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	return a.checkBoard(ctx, board, dir)
}

// checkBoard runs pcbnew's DRC on a board already checked by
// resolveDesign, writing its report into dir, and reads the report.
func (a *Adapter) checkBoard(ctx context.Context, board, dir string) (*DRCResult, error) {
	var out struct {
		OK         bool   `json:"ok"`
		ReportFile string `json:"report_file"`
	}
	if err := a.runBoard(ctx, "drc", board, dir, &out); err != nil {
		return nil, err
	}
	if !out.OK {
		return nil, protocol.Refusal("pcbnew could not write the DRC report for %s", board)
	}
	text, err := os.ReadFile(out.ReportFile)
	if err != nil {
		return nil, protocol.Transient("the DRC report %s cannot be read: %v", out.ReportFile, err)
	}
	res, err := parseDRCReport(string(text))
	if err != nil {
		return nil, protocol.Refusal("the DRC report %s could not be read: %v", out.ReportFile, err)
	}
	res.BoardFile, res.ReportFile = board, out.ReportFile
	return res, nil
}

var (
	sectionLine   = regexp.MustCompile(`^\*\* Found (\d+) (DRC violations|unconnected pads|Footprint errors) \*\*$`)
	headLine      = regexp.MustCompile(`^\[([^\]]+)\]: (.*)$`)
	severityLine  = regexp.MustCompile(`^\s+(.*?);?\s*Severity: (\w+)\s*$`)
	itemPlaceLine = regexp.MustCompile(`^\s+@\(\s*(-?[0-9.]+) mm,\s*(-?[0-9.]+) mm\): (.*)$`)
)

// parseDRCReport reads the text report pcbnew.WriteDRCReport writes in
// millimetres: three sections, each "** Found N ... **" then entries of a
// "[key]: description" line, a "rule; Severity: s" line and "@(x mm, y mm):
// item" lines. Each section's count is checked against its entries.
func parseDRCReport(text string) (*DRCResult, error) {
	res := &DRCResult{Violations: []Violation{}, Unconnected: ItemList{Items: []Violation{}}, FootprintErrors: ItemList{Items: []Violation{}}}
	var (
		section *[]Violation
		counts  = map[string]int{}
		cur     *Violation
		name    string
	)
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := sectionLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			name, counts[m[2]] = m[2], n
			switch m[2] {
			case "DRC violations":
				section = &res.Violations
			case "unconnected pads":
				section = &res.Unconnected.Items
			default:
				section = &res.FootprintErrors.Items
			}
			cur = nil
			continue
		}
		if section == nil {
			continue
		}
		if m := headLine.FindStringSubmatch(line); m != nil {
			*section = append(*section, Violation{Rule: m[1], Description: m[2], Items: []Item{}})
			cur = &(*section)[len(*section)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := itemPlaceLine.FindStringSubmatch(line); m != nil {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			cur.Items = append(cur.Items, Item{Description: m[3], XMM: x, YMM: y})
			if cur.Location == nil {
				cur.Location = &Location{XMM: x, YMM: y}
			}
			continue
		}
		if m := severityLine.FindStringSubmatch(line); m != nil {
			cur.Constraint = strings.TrimSpace(strings.TrimPrefix(m[1], "Rule:"))
			cur.Severity = strings.ToLower(m[2])
		}
	}
	if len(counts) != 3 {
		return nil, fmt.Errorf("expected the three sections (DRC violations, unconnected pads, Footprint errors), found %d", len(counts))
	}
	for sec, list := range map[string][]Violation{"DRC violations": res.Violations, "unconnected pads": res.Unconnected.Items, "Footprint errors": res.FootprintErrors.Items} {
		if counts[sec] != len(list) {
			return nil, fmt.Errorf("the report says %d %s but lists %d (last section read: %s)", counts[sec], sec, len(list), name)
		}
	}
	res.ViolationCount = len(res.Violations)
	res.Unconnected.Count = len(res.Unconnected.Items)
	res.FootprintErrors.Count = len(res.FootprintErrors.Items)
	for _, v := range res.Violations {
		switch v.Severity {
		case "error":
			res.ErrorCount++
		case "warning":
			res.WarningCount++
		}
	}
	res.Passed = res.ErrorCount == 0 && res.Unconnected.Count == 0
	return res, nil
}
