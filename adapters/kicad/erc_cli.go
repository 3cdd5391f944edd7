package kicad

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// kicadCLI is KiCad 7's command-line tool, which has KiCad's own ERC.
const kicadCLI = "kicad-cli"

// runKiCadCLIERC runs kicad-cli's ERC into the call's folder and maps its
// JSON report into the result.
func (a *Adapter) runKiCadCLIERC(ctx context.Context, sch string) (*ERCResult, error) {
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	report := filepath.Join(dir, "erc.json")
	res, err := solver.Run(ctx, solver.Command{
		Binary:  kicadCLI,
		Args:    []string{"sch", "erc", "--format", "json", "--severity-all", "--output", report, sch},
		Dir:     dir,
		Install: "install KiCad 7 or newer",
	})
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		return nil, protocol.Refusal("kicad-cli wrote no ERC report (exit status %d): %s", res.ExitCode, tail(res.Stderr+res.Stdout, 1500))
	}
	out, err := mapCLIReport(raw)
	if err != nil {
		return nil, protocol.Refusal("kicad-cli's ERC report %s could not be read: %v", report, err)
	}
	out.SchematicFile, out.ReportFile = sch, report
	return out, nil
}

// cliReport is kicad-cli's ERC report (schema https://schemas.kicad.org/erc.v1.json).
type cliReport struct {
	CoordinateUnits string `json:"coordinate_units"`
	Sheets          *[]struct {
		Path       string `json:"path"`
		Violations []struct {
			Type        string `json:"type"`
			Description string `json:"description"`
			Severity    string `json:"severity"`
			Excluded    bool   `json:"excluded"`
			Items       []struct {
				Description string `json:"description"`
				Pos         struct {
					X float64 `json:"x"`
					Y float64 `json:"y"`
				} `json:"pos"`
			} `json:"items"`
		} `json:"violations"`
	} `json:"sheets"`
}

// cliPinItem reads KiCad's description of a pin: "Symbol U1 Pin 3
// [VCC, Power input, Line]", or KiCad 6's "Symbol U1 [74HC04] Pin 3 [...]".
var cliPinItem = regexp.MustCompile(`^Symbol (\S+)(?: \[[^\]]*\])? Pin (\S+) \[([^,\]]*), ([^,\]]*)`)

// mapCLIReport maps kicad-cli's report into the result: one violation per
// marker with its sheet, the first item's position in mm, and its items
// (pins read into reference, number, name and type). An excluded marker
// is listed with severity "exclusion" and not counted.
func mapCLIReport(raw []byte) (*ERCResult, error) {
	var rep cliReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if rep.Sheets == nil {
		return nil, fmt.Errorf("it has no sheets list")
	}
	scale := 1.0
	switch rep.CoordinateUnits {
	case "", "mm":
	case "mils":
		scale = 0.0254
	case "in":
		scale = 25.4
	default:
		return nil, fmt.Errorf("coordinate_units %q is not mm, mils or in", rep.CoordinateUnits)
	}
	out := &ERCResult{Checker: CheckerCLI, Report: raw, Violations: []ERCViolation{}}
	for _, sh := range *rep.Sheets {
		for _, v := range sh.Violations {
			ev := ERCViolation{Rule: v.Type, Severity: v.Severity, Description: v.Description, Sheet: sh.Path, Items: []ERCItem{}}
			if v.Excluded {
				ev.Severity = "exclusion"
			}
			for i, it := range v.Items {
				item := ERCItem{Kind: "item", Description: it.Description, XMM: it.Pos.X * scale, YMM: it.Pos.Y * scale}
				if m := cliPinItem.FindStringSubmatch(it.Description); m != nil {
					item.Kind, item.Reference, item.Pin, item.PinName = "pin", m[1], m[2], visibleName(m[3])
					item.PinType = pinTypeTokenOfName(m[4])
				}
				if i == 0 {
					ev.Position = &Location{XMM: item.XMM, YMM: item.YMM}
				}
				ev.Items = append(ev.Items, item)
			}
			out.Violations = append(out.Violations, ev)
		}
	}
	out.count()
	return out, nil
}

// pinTypeTokenOfName turns KiCad's display name of a pin type ("Power
// input") into the file's token (power_in), or "" when unknown.
func pinTypeTokenOfName(name string) string {
	for i, n := range pinTypeNames {
		if n == name {
			return pinTypeTokens[i]
		}
	}
	return ""
}
