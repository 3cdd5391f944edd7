package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/workflows"
)

const callsUsage = "usage: metaforge calls [--tool T] [--project P] [--since 1h|RFC3339] [--limit N] [--json] | metaforge call ID [--json] [--wait]"

// runCalls is `metaforge calls`: the tool calls Temporal keeps (GET
// /v1/calls), newest first, by tool, project and start time.
func runCalls(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("calls", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	tool := fs.String("tool", "", "only calls of this tool")
	project := fs.String("project", "", "only calls in this project")
	since := fs.String("since", "", "only calls started since then: a duration back from now (90m, 24h) or an RFC3339 time")
	limit := fs.Int("limit", 50, "at most this many calls (1 to 1000)")
	asJSON := fs.Bool("json", false, "print the server's answer as JSON")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return usageError(callsUsage)
	}
	q := url.Values{"limit": {strconv.Itoa(*limit)}}
	if *tool != "" {
		q.Set("tool", *tool)
	}
	if *project != "" {
		q.Set("project", *project)
	}
	if *since != "" {
		t, err := sinceTime(*since, time.Now())
		if err != nil {
			return usageError(err.Error())
		}
		q.Set("since", t.UTC().Format(time.RFC3339))
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var list struct {
		Calls []runs.CallSummary `json:"calls"`
	}
	if printed, err := getOrPrint(ctx, c, "/v1/calls?"+q.Encode(), *asJSON, out, &list); printed || err != nil {
		return err
	}
	if len(list.Calls) == 0 {
		fmt.Fprintln(out, "no calls match")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CALL\tTOOL\tSTATE\tPROJECT\tCALLER\tSTARTED\tTOOK")
	for _, cl := range list.Calls {
		took := "-"
		if cl.ClosedAt != nil {
			took = cl.ClosedAt.Sub(cl.StartedAt).Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cl.CallID, cl.ToolID, cl.State, orDash(cl.ProjectID), orDash(strings.TrimSpace(cl.Caller+" "+cl.Client)),
			cl.StartedAt.Local().Format("2006-01-02 15:04:05"), took)
	}
	return tw.Flush()
}

// sinceTime reads --since: a duration back from now, or an RFC3339 time.
func sinceTime(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: give a duration back from now (90m, 24h) or an RFC3339 time (2026-01-02T15:04:05Z)", s)
}

// runCall is `metaforge call ID`: one call's arguments, outcome and
// result (GET /v1/calls/{id}).
func runCall(ctx context.Context, args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	asJSON := fs.Bool("json", false, "print the server's answer as JSON")
	wait := fs.Bool("wait", false, "wait for a running (or held) call to end, with a bar on a terminal, then show it")
	id, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if id == "" || fs.NArg() > 0 {
		return usageError(callsUsage)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	if *wait {
		if err := waitForCall(ctx, c, id, errOut); err != nil {
			return err
		}
	}
	var d runs.CallDetail
	if printed, err := getOrPrint(ctx, c, "/v1/calls/"+url.PathEscape(id), *asJSON, out, &d); printed || err != nil {
		return err
	}
	fmt.Fprintf(out, "call %s: %s %s\n", d.CallID, d.ToolID, d.State)
	fmt.Fprintf(out, "workflow %s, caller %s", d.WorkflowID, orDash(d.Caller))
	if d.Requester != "" {
		fmt.Fprintf(out, " (%s)", d.Requester)
	}
	fmt.Fprintln(out)
	if d.StartedAt != nil {
		fmt.Fprintf(out, "started %s", d.StartedAt.Local().Format(time.RFC3339))
		if d.ClosedAt != nil {
			fmt.Fprintf(out, ", took %s", d.ClosedAt.Sub(*d.StartedAt).Round(time.Millisecond))
		}
		fmt.Fprintln(out)
	}
	if d.ArgumentsHidden {
		fmt.Fprintf(out, "arguments: (hidden) %s\n", d.HowToSeeThem)
	} else {
		fmt.Fprintf(out, "arguments: %s\n", compactJSON(d.Arguments))
	}
	if d.Detail != "" {
		fmt.Fprintln(out, d.Detail)
	}
	if len(d.Result) == 0 {
		return nil
	}
	var res workflows.ToolCallResult
	if err := json.Unmarshal(d.Result, &res); err != nil {
		return err
	}
	fmt.Fprintf(out, "outcome: %s\n", res.Status)
	if res.Error != nil {
		fmt.Fprintf(out, "error %d: %s\n", res.Error.Code, res.Error.Details)
	}
	if len(res.Data) > 0 {
		fmt.Fprintf(out, "result: %s\n", compactJSON(res.Data))
	}
	return nil
}

// compactJSON is JSON on one line, or "-" for none.
func compactJSON(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "-"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
