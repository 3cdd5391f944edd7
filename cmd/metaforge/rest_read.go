package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// getOrPrint GETs path; with asJSON it prints the server's answer,
// indented, for scripts, and reports printed; else it decodes the answer
// into into for a table.
func getOrPrint(ctx context.Context, c *serveClient, path string, asJSON bool, out io.Writer, into any) (printed bool, err error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodGet, path, nil, &raw); err != nil {
		return false, err
	}
	if asJSON {
		return true, printRawJSON(out, raw)
	}
	return false, json.Unmarshal(raw, into)
}

// printRawJSON prints a JSON answer indented, with a final newline.
func printRawJSON(out io.Writer, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	_, err := fmt.Fprintf(out, "%s\n", b)
	return err
}
