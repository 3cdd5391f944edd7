package kicad

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Checkers kicad.run_erc reports as its result's checker.
const (
	CheckerKiCad6 = "metaforge-erc-kicad6"
	CheckerCLI    = "kicad-cli"
)

// Severity filters of kicad.run_erc.
const (
	SeverityAll     = "all"
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// ERCRequest is the input of kicad.run_erc.
type ERCRequest struct {
	SchematicFile string `json:"schematic_file"`
	Severity      string `json:"severity,omitempty" jsonschema:"Which violations to list: error, warning or all (default). The counts and passed always cover all."`
}

// ERCResult is what kicad.run_erc returns, whichever checker ran.
type ERCResult struct {
	SchematicFile string `json:"schematic_file"`
	// Checker is CheckerKiCad6 (this adapter's own check of the parsed
	// schematic, where KiCad has no headless ERC) or CheckerCLI.
	Checker string `json:"checker"`
	// ReportFile is the ERC report in the call's folder: kicad-cli's JSON
	// report, or this checker's result as JSON.
	ReportFile string `json:"report_file"`
	// Passed is no error-severity violation; warnings do not fail it.
	Passed       bool `json:"passed"`
	ErrorCount   int  `json:"error_count"`
	WarningCount int  `json:"warning_count"`
	// Severity is the filter applied to Violations (not to the counts).
	Severity   string         `json:"severity"`
	Violations []ERCViolation `json:"violations"`
	// Settings say which ERC settings the own checker used; nil for
	// kicad-cli, which reads the project itself.
	Settings *ERCSettingsUsed `json:"settings,omitempty"`
	// Checks are the rule keys the own checker runs; NotChecked are
	// KiCad 6 checks it does not make.
	Checks     []string `json:"checks,omitempty"`
	NotChecked []string `json:"not_checked,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	// Report is kicad-cli's JSON report as it wrote it.
	Report json.RawMessage `json:"report,omitempty"`
}

// ERCViolation is one ERC marker.
type ERCViolation struct {
	// Rule is KiCad's key for the check (pin_to_pin, pin_not_connected).
	Rule        string `json:"rule"`
	Severity    string `json:"severity"`
	Description string `json:"description"`
	// Sheet is the sheet path the marker is on ("/", "/pic_sockets/").
	Sheet    string    `json:"sheet"`
	Position *Location `json:"position,omitempty"`
	Items    []ERCItem `json:"items"`
}

// ERCItem is one schematic item a violation names.
type ERCItem struct {
	// Kind is pin, label, global_label, hierarchical_label, sheet_pin,
	// sheet, symbol, no_connect, wire, or item (kicad-cli's, unparsed).
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Reference   string `json:"reference,omitempty"`
	Pin         string `json:"pin,omitempty"`
	PinName     string `json:"pin_name,omitempty"`
	// PinType is the pin's electrical type as the file writes it
	// (input, power_in, ...).
	PinType string  `json:"pin_type,omitempty"`
	Text    string  `json:"text,omitempty"`
	XMM     float64 `json:"x_mm"`
	YMM     float64 `json:"y_mm"`
}

// runERC runs KiCad's own ERC through kicad-cli where KiCad 7 or newer
// provides it, and otherwise this adapter's check of the parsed schematic
// with KiCad 6's rules (KiCad 6 has ERC only in the eeschema GUI).
func (a *Adapter) runERC(ctx context.Context, args json.RawMessage) (*ERCResult, error) {
	var req ERCRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	switch req.Severity {
	case "":
		req.Severity = SeverityAll
	case SeverityAll, SeverityError, SeverityWarning:
	default:
		return nil, protocol.Invalid("severity %q is not %q, %q or %q", req.Severity, SeverityError, SeverityWarning, SeverityAll)
	}
	sch, err := a.resolveDesign("schematic_file", req.SchematicFile, schematicKind)
	if err != nil {
		return nil, err
	}
	// The design's companions (project, library tables, sheets) must stay
	// inside the allowed roots, whichever checker reads them.
	if err := a.screenDesign(sch, true); err != nil {
		return nil, err
	}
	var out *ERCResult
	if _, lookErr := exec.LookPath(kicadCLI); lookErr == nil {
		out, err = a.runKiCadCLIERC(ctx, sch)
	} else {
		out, err = a.runOwnERC(ctx, sch)
	}
	if err != nil {
		return nil, err
	}
	out.Severity = req.Severity
	out.Violations = filterSeverity(out.Violations, req.Severity)
	return out, nil
}

// runOwnERC checks the schematic with KiCad 6's rules and writes the
// result as the call's report.
func (a *Adapter) runOwnERC(ctx context.Context, sch string) (*ERCResult, error) {
	d, err := a.loadDesign(sch)
	if err != nil {
		return nil, err
	}
	if err := d.refuseCrossSheetBuses(); err != nil {
		return nil, err
	}
	settings, warnings, err := a.loadERCSettings(sch)
	if err != nil {
		return nil, err
	}
	violations, readerWarnings := checkERC(d, settings)
	out := &ERCResult{
		SchematicFile: sch, Checker: CheckerKiCad6, Violations: violations,
		Settings: &settings.used, NotChecked: ercRulesNotRun, Warnings: append(warnings, readerWarnings...),
	}
	for _, r := range ercRules {
		if settings.enabled(r.key) {
			out.Checks = append(out.Checks, r.key)
		}
	}
	out.count()
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	out.ReportFile = filepath.Join(dir, "erc.json")
	raw, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, protocol.Refusal("could not encode the ERC report: %v", err)
	}
	if err := os.WriteFile(out.ReportFile, raw, 0o644); err != nil {
		return nil, protocol.Transient("could not write the ERC report %s: %v", out.ReportFile, err)
	}
	return out, nil
}

// count sets the counts and passed from all violations.
func (r *ERCResult) count() {
	r.ErrorCount, r.WarningCount = 0, 0
	for _, v := range r.Violations {
		switch v.Severity {
		case sevError:
			r.ErrorCount++
		case sevWarning:
			r.WarningCount++
		}
	}
	r.Passed = r.ErrorCount == 0
}

// filterSeverity keeps the violations the filter asks for.
func filterSeverity(vs []ERCViolation, severity string) []ERCViolation {
	out := []ERCViolation{}
	for _, v := range vs {
		if severity == SeverityAll || v.Severity == severity {
			out = append(out, v)
		}
	}
	return out
}
