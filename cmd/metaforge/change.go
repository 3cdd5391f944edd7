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

	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/workflows"
)

const changeUsage = "usage: metaforge change list [--project P] [--status S] | change show ID | change approve ID [--comment TEXT] [--as NAME] | change reject ID --comment TEXT [--as NAME]"

// runChange lists, shows and reviews engineering changes through serve's
// REST API, as a verified person (the operator token or --token): the
// same rules as the /changes page, so a change's creator cannot review it.
func runChange(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return usageError(changeUsage)
	}
	switch args[0] {
	case "list":
		return runChangeList(ctx, args[1:], out)
	case "show":
		return runChangeShow(ctx, args[1:], out)
	case "approve", "reject":
		return runChangeReview(ctx, args[0], args[1:], out)
	}
	return usageError(changeUsage)
}

func runChangeList(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("change list", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	project := fs.String("project", "", "only this project's changes")
	status := fs.String("status", "", "only changes in this state (PROPOSED, READY_FOR_REVIEW, APPROVED, COMMITTED, ...)")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	q := url.Values{}
	if *project != "" {
		q.Set("project", *project)
	}
	if *status != "" {
		q.Set("status", strings.ToUpper(*status))
	}
	var res struct {
		Changes []runs.ChangeSummary `json:"changes"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/changes?"+q.Encode(), nil, &res); err != nil {
		return err
	}
	if len(res.Changes) == 0 {
		fmt.Fprintln(out, "no engineering changes")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANGE\tSTATUS\tPROJECT\tBY\tTITLE")
	for _, ch := range res.Changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ch.ChangeID, ch.Status, ch.ProjectID, ch.CreatedBy, ch.Title)
	}
	return tw.Flush()
}

func runChangeShow(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("change show", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	id, args := splitID(args)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if id == "" {
		return usageError(changeUsage)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var st workflows.ChangeState
	if err := c.do(ctx, http.MethodGet, "/v1/changes/"+url.PathEscape(id), nil, &st); err != nil {
		return err
	}
	printChange(out, st)
	return nil
}

// printChange writes a change for a person: its state, patch, analysis,
// review, commit and history.
func printChange(out io.Writer, st workflows.ChangeState) {
	fmt.Fprintf(out, "change %s: %s\nproject %s, proposed by %s\n%s: %s\n", st.ChangeID, st.Status, st.ProjectID, st.CreatedBy, st.Title, st.Reason)
	for _, op := range st.Patch {
		fmt.Fprintf(out, "  patch %s: set %v\n", op.Ref, op.Set)
	}
	if a := st.Analysis; a != nil {
		fmt.Fprintf(out, "approval level: %s (%s)\n", a.ApprovalLevel, a.ApprovalReason)
		for _, e := range a.Replay {
			fmt.Fprintf(out, "  stale, replayable: %s (%s) by %s\n", e.Name, e.EvidenceID, e.ToolID)
		}
		for _, e := range a.ManualReviewNeeded {
			fmt.Fprintf(out, "  manual review needed: %s (%s): %s\n", e.Name, e.EvidenceID, e.Reason)
		}
	}
	if r := st.Review; r != nil {
		verb := "rejected"
		if r.Approve {
			verb = "approved"
		}
		fmt.Fprintf(out, "%s by %s %s\n", verb, r.By, r.Comment)
	}
	if rv := st.Revalidation; rv != nil {
		fmt.Fprintf(out, "revalidation %s\n", rv.Status)
		for _, e := range rv.Replayed {
			fmt.Fprintf(out, "  %s %s: %s %s\n", e.Name, e.EvidenceID, e.Status, e.FreshEvidenceID+e.Detail)
		}
	}
	for _, e := range st.History {
		fmt.Fprintf(out, "%d. %s · %s: %s\n", e.Seq, e.State, e.Actor, e.Note)
	}
}

func runChangeReview(ctx context.Context, verb string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("change "+verb, flag.ContinueOnError)
	conn := registerServeFlags(fs)
	comment := fs.String("comment", "", "why, recorded with the review (required to reject)")
	as := fs.String("as", currentUser(), "your name, recorded as operator:NAME when you decide with the operator token")
	id, args := splitID(args)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if id == "" || (verb == "reject" && strings.TrimSpace(*comment) == "") {
		return usageError(changeUsage)
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	var st workflows.ChangeState
	body := runs.ChangeDecisionRequest{Decision: verb, Comment: *comment, Approver: strings.TrimSpace(*as)}
	if err := c.do(ctx, http.MethodPost, "/v1/changes/"+url.PathEscape(id)+"/decision", body, &st); err != nil {
		return err
	}
	fmt.Fprintf(out, "change %s: %s by %s\n", id, st.Status, st.Review.By)
	return nil
}
