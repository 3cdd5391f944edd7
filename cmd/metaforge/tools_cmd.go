package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
)

// runTools is `metaforge tools [--profile P]`: the tools this binary
// serves (a profile's, as its tools/list would be), read from the
// catalogue and mcpserver's profile definitions without a running serve:
// what an agent on that profile is offered, before it connects.
func runTools(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	profile := fs.String("profile", "", "only this profile's tools ("+strings.Join(profileNames(), ", ")+")")
	asJSON := fs.Bool("json", false, "print the tools as JSON")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return usageError("usage: metaforge tools [--profile P] [--json]")
	}
	if err := mcpserver.ValidateProfile(*profile); err != nil {
		return usageError(err.Error() + ": pass --profile with one of them, or none for every tool")
	}
	dir, err := os.MkdirTemp("", "metaforge-tools-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tw, err := openTwin(ctx, dir, false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	reg, _, err := catalog(ctx, &worker.Temporal{}, tw, workspaceFor(dir, fileRoots{}), &runs.Service{}, nil, nil)
	if err != nil {
		return err
	}
	var in func(string) bool
	for _, p := range mcpserver.Profiles() {
		if p.Name == *profile {
			in = p.Has
		}
	}
	type toolRow struct {
		ToolID      string `json:"tool_id"`
		Name        string `json:"name"`
		ReadOnly    bool   `json:"read_only"`
		Description string `json:"description"`
	}
	var rows []toolRow
	for _, m := range reg.Manifests() {
		if in != nil && !in(m.ToolID) {
			continue
		}
		a, _ := adapters.AnnotationsFor(m.ToolID)
		rows = append(rows, toolRow{ToolID: m.ToolID, Name: m.Name, ReadOnly: a.ReadOnly, Description: m.Description})
	}
	if *asJSON {
		b, _ := json.MarshalIndent(map[string]any{"profile": *profile, "tools": rows, "count": len(rows)}, "", "  ")
		_, err := fmt.Fprintf(out, "%s\n", b)
		return err
	}
	t := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(t, "TOOL\tREAD-ONLY\tNAME")
	for _, r := range rows {
		fmt.Fprintf(t, "%s\t%v\t%s\n", r.ToolID, r.ReadOnly, r.Name)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%d tools\n", len(rows))
	return err
}

// profileNames are the profiles a connection may choose, sorted.
func profileNames() []string {
	var names []string
	for _, p := range mcpserver.Profiles() {
		if p.Withheld() == "" {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}
