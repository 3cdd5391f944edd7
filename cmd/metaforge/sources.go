package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/metaforge/metaforge/knowledge"
)

// runSources is `metaforge sources [ID]`: the knowledge base's sources,
// read through the serve's REST API (GET /v1/knowledge/sources, filtered
// by --tag; GET /v1/knowledge/sources/{id} for one, with its passages),
// as a table for people or, with --json, the server's answer for scripts.
func runSources(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sources", flag.ContinueOnError)
	conn := registerServeFlags(fs)
	var tags tagFlags
	fs.Var(&tags, "tag", "only sources with this label key=value; repeat it (all must match)")
	asJSON := fs.Bool("json", false, "print the server's answer as JSON")
	id, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 || (id != "" && len(tags) > 0) {
		return usageError("usage: metaforge sources [--tag k=v]... [--json] | metaforge sources ID [--json]")
	}
	c, err := conn.open(ctx)
	if err != nil {
		return err
	}
	path := "/v1/knowledge/sources"
	if id != "" {
		path += "/" + url.PathEscape(id)
	} else if len(tags) > 0 {
		q := url.Values{}
		for _, t := range tags {
			q.Add("tag", t)
		}
		path += "?" + q.Encode()
	}
	if *asJSON {
		var raw json.RawMessage
		if err := c.do(ctx, http.MethodGet, path, nil, &raw); err != nil {
			return err
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		b, _ := json.MarshalIndent(v, "", "  ")
		_, err := fmt.Fprintf(out, "%s\n", b)
		return err
	}
	if id != "" {
		var one struct {
			Source knowledge.Source  `json:"source"`
			Chunks []knowledge.Chunk `json:"chunks"`
		}
		if err := c.do(ctx, http.MethodGet, path, nil, &one); err != nil {
			return err
		}
		return printSource(out, one.Source, one.Chunks)
	}
	var list struct {
		Sources []knowledge.Source `json:"sources"`
		Search  string             `json:"search"`
	}
	if err := c.do(ctx, http.MethodGet, path, nil, &list); err != nil {
		return err
	}
	if len(list.Sources) == 0 {
		fmt.Fprintln(out, "no sources (metaforge ingest FILE adds one)")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tFORMAT\tPAGES\tPASSAGES\tSTATE\tINGESTED\tTAGS")
	for _, s := range list.Sources {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", s.ID, s.Title, s.Format, s.Pages, s.Chunks, s.State,
			ingestedAt(s.IngestedAt), orDash(tagList(s.Tags)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "search: %s\n", list.Search)
	return nil
}

// printSource writes one source and its passages, each cut to a line.
func printSource(out io.Writer, s knowledge.Source, chunks []knowledge.Chunk) error {
	fmt.Fprintf(out, "%s · %s · %s · %s\n", s.ID, s.Title, s.Format, s.State)
	fmt.Fprintf(out, "origin: %s\nsha256: %s\n", s.Origin, s.SHA256)
	fmt.Fprintf(out, "%d pages, %d passages, %d bytes, ingested %s\n", s.Pages, s.Chunks, s.Bytes, ingestedAt(s.IngestedAt))
	fmt.Fprintf(out, "tags: %s\n", orDash(tagList(s.Tags)))
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PAGE\tSEQ\tPASSAGE")
	for _, c := range chunks {
		fmt.Fprintf(tw, "%d\t%d\t%s\n", c.Page, c.Seq, oneLine(c.Text, 100))
	}
	return tw.Flush()
}

// tagList is tags as key=value, sorted by key.
func tagList(tags map[string]string) string {
	parts := make([]string, 0, len(tags))
	for k, v := range tags {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// ingestedAt is an ingest time in the local zone, or "-" before it ends.
func ingestedAt(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// oneLine is text with its whitespace collapsed, cut to n runes.
func oneLine(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
