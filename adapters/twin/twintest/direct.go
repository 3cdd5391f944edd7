// Package twintest calls the twin's adapters (project, session, twin,
// constraint) in tests as the worker's InvokeTool does: in process, with
// the call's info in the context, without Temporal.
package twintest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/protocol"
)

// Direct reaches the four adapters over one backend.
type Direct struct {
	t  testing.TB
	by map[string]adapters.Adapter // adapter id -> adapter
}

// New serves the twin's adapters over b.
func New(t testing.TB, b *twinadapter.Backend) Direct {
	d := Direct{t: t, by: map[string]adapters.Adapter{}}
	for _, a := range twinadapter.New(b) {
		d.by[a.ID()] = a
	}
	return d
}

// Try runs one call as ci and decodes its answer.
func (d Direct) Try(ci adapters.CallInfo, toolID string, args map[string]any) (map[string]any, error) {
	d.t.Helper()
	raw, _ := json.Marshal(args)
	family, _, _ := strings.Cut(toolID, ".")
	res, err := d.by[family].Call(adapters.WithCallInfo(context.Background(), ci), toolID, raw)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		d.t.Fatal(err)
	}
	return out, nil
}

// Call runs a call that must succeed.
func (d Direct) Call(ci adapters.CallInfo, toolID string, args map[string]any) map[string]any {
	d.t.Helper()
	out, err := d.Try(ci, toolID, args)
	if err != nil {
		d.t.Fatalf("%s: %v", toolID, err)
	}
	return out
}

// Refusal runs a call that must be refused and returns what it says.
func (d Direct) Refusal(ci adapters.CallInfo, toolID string, args map[string]any) string {
	d.t.Helper()
	_, err := d.Try(ci, toolID, args)
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.ToolExecutionError {
		d.t.Fatalf("%s: want a refusal, got %v", toolID, err)
	}
	return perr.Details
}

// RowsBy indexes a list of result rows by one of their fields.
func RowsBy(t testing.TB, list any, field string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	items, ok := list.([]any)
	if !ok {
		t.Fatalf("want a list, got %T %v", list, list)
	}
	for _, it := range items {
		row := it.(map[string]any)
		out[row[field].(string)] = row
	}
	return out
}
