package kicad

import (
	"context"
	"encoding/json"
	"github.com/metaforge/metaforge/adapters"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// ERCRequest is the input of kicad.run_erc.
type ERCRequest struct {
	SchematicFile string `json:"schematic_file"`
}

// ERCResult is what kicad.run_erc returns when kicad-cli is there: its
// JSON report as written, and the counts read from it.
type ERCResult struct {
	SchematicFile string          `json:"schematic_file"`
	ReportFile    string          `json:"report_file"`
	Passed        bool            `json:"passed"`
	ErrorCount    int             `json:"error_count"`
	WarningCount  int             `json:"warning_count"`
	Report        json.RawMessage `json:"report"`
}

// kicadCLI is KiCad 7's command-line tool, the only headless ERC.
const kicadCLI = "kicad-cli"

// runERC runs KiCad's own ERC through kicad-cli. KiCad 6 has none outside
// the eeschema GUI, and a home-made check would be a different check under
// KiCad's name, so without kicad-cli the tool is unavailable.
func (a *Adapter) runERC(ctx context.Context, args json.RawMessage) (*ERCResult, error) {
	var req ERCRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	sch, err := a.resolveDesign("schematic_file", req.SchematicFile, schematicKind)
	if err != nil {
		return nil, err
	}
	if err := a.screenDesign(sch, true); err != nil {
		return nil, err
	}
	if _, err := exec.LookPath(kicadCLI); err != nil {
		return nil, protocol.Unavailable("kicad-cli (KiCad 7 or newer) not found on PATH; KiCad 6's ERC runs only in the eeschema GUI")
	}
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
	var parsed struct {
		Sheets []struct {
			Violations []struct {
				Severity string `json:"severity"`
			} `json:"violations"`
		} `json:"sheets"`
	}
	if err := json.Unmarshal(raw, &parsed); err != nil {
		return nil, protocol.Refusal("kicad-cli's ERC report %s is not JSON: %v", report, err)
	}
	out := &ERCResult{SchematicFile: sch, ReportFile: report, Report: raw}
	for _, s := range parsed.Sheets {
		for _, v := range s.Violations {
			switch v.Severity {
			case "error":
				out.ErrorCount++
			case "warning":
				out.WarningCount++
			}
		}
	}
	out.Passed = out.ErrorCount == 0
	return out, nil
}
