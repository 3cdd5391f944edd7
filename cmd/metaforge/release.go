package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/metaforge/metaforge/twin"
)

// runRelease is `metaforge release create PROJECT [--reason TEXT]`: a
// release package through serve's REST API (POST /v1/releases), recorded
// only when the G8 release gate passes; a refusal names every failing
// check, in the server's words.
func runRelease(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return usageError("usage: metaforge release create PROJECT [--reason TEXT]")
	}
	fs := flag.NewFlagSet("release create", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	reason := fs.String("reason", "", "what this release is for")
	project, rest := splitID(args[1:])
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if project == "" {
		return usageError("usage: metaforge release create PROJECT [--reason TEXT]")
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var res struct {
		WorkflowID string `json:"workflow_id"`
		TemporalUI string `json:"temporal_ui"`
		Result     struct {
			ID       string             `json:"release_package_id"`
			Version  int                `json:"version"`
			Baseline string             `json:"baseline_id"`
			Counts   twin.ReleaseCounts `json:"counts"`
			Delta    twin.ReleaseCounts `json:"delta"`
		} `json:"result"`
	}
	body := map[string]any{"project_id": project}
	if r := strings.TrimSpace(*reason); r != "" {
		body["reason"] = r
	}
	if err := c.do(ctx, http.MethodPost, "/v1/releases", body, &res); err != nil {
		return err
	}
	r := res.Result
	fmt.Fprintf(out, "Release package %d of %s recorded: %s (baseline %s)\n", r.Version, project, r.ID, r.Baseline)
	fmt.Fprintf(out, "  parts %d (%+d), components %d (%+d), evidence %d (%+d), decisions %d (%+d), items %d (%+d)\n",
		r.Counts.Hierarchy, r.Delta.Hierarchy, r.Counts.BOM, r.Delta.BOM, r.Counts.Evidence, r.Delta.Evidence,
		r.Counts.Decisions, r.Delta.Decisions, r.Counts.Items, r.Delta.Items)
	fmt.Fprintf(out, "  call %s %s\n", res.WorkflowID, res.TemporalUI)
	return nil
}

// runGates is `metaforge gates PROJECT`: the maturity gates G3..G8 now
// (GET /v1/promotion), one row per check, with what fails and what to
// record.
func runGates(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("gates", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	project, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if project == "" {
		return usageError("usage: metaforge gates PROJECT")
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var view struct {
		Gates []twin.Gate `json:"gates"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/promotion?project="+url.QueryEscape(project), nil, &view); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GATE\tSTATUS\tCHECK\tCHECK STATUS\tDETAIL")
	for _, g := range view.Gates {
		for i, ck := range g.Checks {
			gate, status := "", ""
			if i == 0 {
				gate, status = g.ID+" "+g.Name, g.Status
			}
			detail := ck.Detail
			if len(ck.Failing) > 0 {
				detail += "; failing: " + strings.Join(ck.Failing, "; ")
			}
			if len(ck.Missing) > 0 {
				detail += "; record: " + strings.Join(ck.Missing, "; ")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", gate, status, ck.Name, ck.Status, detail)
		}
	}
	return tw.Flush()
}
