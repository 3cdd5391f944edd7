package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
)

const projectUsage = "usage: metaforge project create NAME [--description TEXT] | project list | project show ID   (each takes --json)"

// runProject is `metaforge project create|list|show` through serve's
// REST API: GET /v1/projects and /v1/projects/{id} read, POST
// /v1/projects runs project.create decided by the person asking.
func runProject(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return usageError(projectUsage)
	}
	switch args[0] {
	case "create":
		return runProjectCreate(ctx, args[1:], out)
	case "list":
		return runProjectList(ctx, args[1:], out)
	case "show":
		return runProjectShow(ctx, args[1:], out)
	}
	return usageError(fmt.Sprintf("metaforge project %s: say create, list or show; %s", args[0], projectUsage))
}

func runProjectCreate(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("project create", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	description := fs.String("description", "", "what the design is")
	asJSON := fs.Bool("json", false, "print the server's answer as JSON")
	name, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if strings.TrimSpace(name) == "" || fs.NArg() > 0 {
		return usageError(projectUsage)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, "/v1/projects", runs.ProjectCreateRequest{Name: name, Description: *description}, &raw); err != nil {
		return err
	}
	if *asJSON {
		return printRawJSON(out, raw)
	}
	var res struct {
		CallID string       `json:"call_id"`
		Result twin.Project `json:"result"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "created project %s (%s), call %s\n", res.Result.ID, res.Result.Name, res.CallID)
	return err
}

func runProjectList(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("project list", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	asJSON := fs.Bool("json", false, "print the server's answer as JSON")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return usageError(projectUsage)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var list struct {
		Projects []runs.ProjectGlance `json:"projects"`
		Notes    []string             `json:"notes"`
	}
	if printed, err := getOrPrint(ctx, c, "/v1/projects", *asJSON, out, &list); printed || err != nil {
		return err
	}
	if len(list.Projects) == 0 {
		fmt.Fprintln(out, "no projects (metaforge project create NAME makes one)")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tNAME\tITEMS\tOPEN RUNS\tPENDING APPROVALS\tUNVERIFIED REQS\tUPDATED")
	for _, p := range list.Projects {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%s\n", p.ID, p.Name, p.Items, countOrDash(p.OpenRuns), countOrDash(p.PendingApprovals),
			p.Unverified, ingestedAt(p.UpdatedAt))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range list.Notes {
		fmt.Fprintln(out, "note:", n)
	}
	return nil
}

func runProjectShow(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("project show", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	asJSON := fs.Bool("json", false, "print the server's answer as JSON")
	id, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if id == "" || fs.NArg() > 0 {
		return usageError(projectUsage)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var d runs.ProjectDetail
	if printed, err := getOrPrint(ctx, c, "/v1/projects/"+url.PathEscape(id), *asJSON, out, &d); printed || err != nil {
		return err
	}
	fmt.Fprintf(out, "project %s: %s\n", d.ID, d.Name)
	if d.Description != "" {
		fmt.Fprintln(out, d.Description)
	}
	fmt.Fprintf(out, "%d items, %s open runs, %s pending approvals, %d of %d requirements unverified, evidence %d fresh %d stale\n",
		d.Items, countOrDash(d.OpenRuns), countOrDash(d.PendingApprovals), d.Unverified, d.Requirements.Requirements, d.Fresh, d.Stale)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tREF\tNAME\tUPDATED")
	for _, b := range d.Tree {
		for _, it := range b.Items {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", it.ItemType, it.Ref, it.Name, ingestedAt(it.UpdatedAt))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range d.Notes {
		fmt.Fprintln(out, "note:", n)
	}
	return nil
}

// countOrDash is a count the server could give, or "-" when it could not.
func countOrDash(n *int) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}
