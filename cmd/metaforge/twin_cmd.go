package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
)

const twinUsage = "usage: metaforge twin show KEY[@n]|NODE_ID [--project P] | twin history KEY --project P | twin find KEY=VALUE --project P [--type T] [--all-revisions]   (each takes --json)"

// runTwin is `metaforge twin show|history|find`: the twin read through
// serve's REST API (GET /v1/twin/node, /v1/projects/{id}/items/{key}/history,
// /v1/twin/find), for people and, with --json, for scripts.
func runTwin(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return usageError(twinUsage)
	}
	switch args[0] {
	case "show":
		return runTwinShow(ctx, args[1:], out)
	case "history":
		return runTwinHistory(ctx, args[1:], out)
	case "find":
		return runTwinFind(ctx, args[1:], out)
	}
	return usageError(fmt.Sprintf("metaforge twin %s: say show, history or find; %s", args[0], twinUsage))
}

// twinFlags are a twin verb's flags: the serve, --project and --json.
type twinFlags struct {
	conn    serveFlags
	project *string
	asJSON  *bool
}

func newTwinFlags(fs *flag.FlagSet) twinFlags {
	return twinFlags{conn: registerServeFlags(fs), project: fs.String("project", "", "the project's id"),
		asJSON: fs.Bool("json", false, "print the server's answer as JSON")}
}

func runTwinShow(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("twin show", flag.ContinueOnError)
	f := newTwinFlags(fs)
	ref, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if ref == "" || fs.NArg() > 0 {
		return usageError(twinUsage)
	}
	c, err := f.conn.open(ctx)
	if err != nil {
		return err
	}
	q := url.Values{"ref": {ref}}
	if *f.project != "" {
		q.Set("project", *f.project)
	}
	var n runs.TwinNode
	if printed, err := getOrPrint(ctx, c, "/v1/twin/node?"+q.Encode(), *f.asJSON, out, &n); printed || err != nil {
		return err
	}
	fmt.Fprintf(out, "%s %s %s (%s), project %s\n", n.Node.ID, orDash(n.ItemRef), n.Node.Name, n.Node.Type, n.Node.ProjectID)
	if n.IsHead != nil && !*n.IsHead {
		fmt.Fprintf(out, "not the current revision: the head is %s\n", n.HeadRef)
	}
	keys := make([]string, 0, len(n.Node.Properties))
	for k := range n.Node.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(tw, "  %s\t%v\n", k, n.Node.Properties[k])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(n.Related) == 0 {
		return nil
	}
	tw = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EDGE\tDIRECTION\tNODE\tREF\tTYPE\tNAME")
	for _, r := range n.Related {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Edge, r.Direction, r.NodeID, orDash(r.ItemRef), r.NodeType, r.Name)
	}
	return tw.Flush()
}

func runTwinHistory(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("twin history", flag.ContinueOnError)
	f := newTwinFlags(fs)
	key, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if key == "" || *f.project == "" || fs.NArg() > 0 {
		return usageError(twinUsage)
	}
	c, err := f.conn.open(ctx)
	if err != nil {
		return err
	}
	var h twin.ItemHistory
	path := "/v1/projects/" + url.PathEscape(*f.project) + "/items/" + url.PathEscape(key) + "/history"
	if printed, err := getOrPrint(ctx, c, path, *f.asJSON, out, &h); printed || err != nil {
		return err
	}
	fmt.Fprintf(out, "%s %s (%s), head %s\n", h.Item.Key, h.Item.Name, h.Item.ItemType, h.HeadRef)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tNODE\tHEAD\tAUTHOR\tCREATED\tEVIDENCE\tREASON")
	for _, r := range h.Revisions {
		head := ""
		if r.IsHead {
			head = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Ref, r.NodeID, head, orDash(r.Author), ingestedAt(r.CreatedAt),
			evidenceBrief(r.Evidence), orDash(r.ChangeReason))
	}
	return tw.Flush()
}

// evidenceBrief is a revision's evidence as name (freshness), or "-".
func evidenceBrief(evs []twin.EvidenceRecord) string {
	var parts []string
	for _, e := range evs {
		parts = append(parts, e.Name+" ("+e.Freshness+")")
	}
	return orDash(strings.Join(parts, ", "))
}

func runTwinFind(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("twin find", flag.ContinueOnError)
	f := newTwinFlags(fs)
	nodeType := fs.String("type", "", "only nodes of this type (cad_model, evidence, decision...)")
	all := fs.Bool("all-revisions", false, "also search earlier revisions of items")
	match, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	key, value, ok := strings.Cut(match, "=")
	if !ok || strings.TrimSpace(key) == "" || *f.project == "" || fs.NArg() > 0 {
		return usageError(twinUsage)
	}
	c, err := f.conn.open(ctx)
	if err != nil {
		return err
	}
	q := url.Values{"project": {*f.project}, "key": {key}, "value": {value}}
	if *nodeType != "" {
		q.Set("node_type", *nodeType)
	}
	if *all {
		q.Set("all_revisions", "true")
	}
	var res struct {
		Nodes     []runs.TwinFound `json:"nodes"`
		Truncated bool             `json:"truncated"`
		Searched  []string         `json:"searched"`
	}
	if printed, err := getOrPrint(ctx, c, "/v1/twin/find?"+q.Encode(), *f.asJSON, out, &res); printed || err != nil {
		return err
	}
	if len(res.Nodes) == 0 {
		fmt.Fprintf(out, "no node has %s = %s (searched %s)\n", key, value, strings.Join(res.Searched, ", "))
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tREF\tTYPE\tNAME\tVALUE")
	for _, n := range res.Nodes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\n", n.NodeID, orDash(n.ItemRef), n.NodeType, n.Name, n.Value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if res.Truncated {
		fmt.Fprintln(out, "more nodes match: narrow it with --type")
	}
	return nil
}
