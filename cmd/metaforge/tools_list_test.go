package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
)

// updateToolsList rewrites the golden tools/list from the code as it is:
// `go test ./cmd/metaforge -run TestToolsListIsUnchanged -update`.
var updateToolsList = flag.Bool("update", false, "rewrite testdata/tools_list.golden.json from the served catalogue")

const toolsListGolden = "testdata/tools_list.golden.json"

// The tools/list every client sees is a contract: a change to how schemas
// are written must not change a tool's name, annotations or the shape of
// its arguments. Only descriptions may be added.
func TestToolsListIsUnchanged(t *testing.T) {
	listed := servedToolsList(t)
	if *updateToolsList {
		out, err := json.MarshalIndent(listed, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(toolsListGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(toolsListGolden, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(toolsListGolden)
	if err != nil {
		t.Fatalf("%v; write it with -update from code whose tools/list is right", err)
	}
	var golden []map[string]any
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	for _, d := range compareToolsLists(golden, listed) {
		t.Error(d)
	}
}

// The comparison finds what it must: a changed bound, a dropped enum value,
// a required argument gone, an argument added, a tool gone; and lets an
// added description through.
func TestCompareToolsListsCatchesChanges(t *testing.T) {
	golden := []map[string]any{{"name": "a.t", "description": "d", "inputSchema": map[string]any{
		"type": "object", "required": []any{"x", "y"}, "additionalProperties": false,
		"properties": map[string]any{
			"x": map[string]any{"type": "number", "minimum": 0.0},
			"y": map[string]any{"type": "string", "enum": []any{"p", "q"}},
		}}}}
	edit := func(change func(schema map[string]any)) []map[string]any {
		var c []map[string]any
		b, _ := json.Marshal(golden)
		_ = json.Unmarshal(b, &c)
		change(c[0]["inputSchema"].(map[string]any))
		return c
	}
	prop := func(s map[string]any, name string) map[string]any {
		return s["properties"].(map[string]any)[name].(map[string]any)
	}
	for name, c := range map[string]struct {
		listed []map[string]any
		want   string
	}{
		"bound":      {edit(func(s map[string]any) { prop(s, "x")["minimum"] = 1.0 }), "a.t: inputSchema.properties.x.minimum: golden 0, now 1"},
		"enum":       {edit(func(s map[string]any) { prop(s, "y")["enum"] = []any{"p"} }), "a.t: inputSchema.properties.y.enum: golden [\"p\",\"q\"], now [\"p\"]"},
		"required":   {edit(func(s map[string]any) { s["required"] = []any{"x"} }), "a.t: inputSchema.required: golden [\"x\",\"y\"], now [\"x\"]"},
		"added":      {edit(func(s map[string]any) { s["properties"].(map[string]any)["z"] = map[string]any{} }), "a.t: inputSchema.properties.z: golden absent, now {}"},
		"additional": {edit(func(s map[string]any) { delete(s, "additionalProperties") }), "a.t: inputSchema.additionalProperties: golden false, now absent"},
		"tool gone":  {nil, "a.t: golden lists it, now absent"},
	} {
		diffs := compareToolsLists(golden, c.listed)
		if !slices.Contains(diffs, c.want) {
			t.Errorf("%s: differences %q, want %q among them", name, diffs, c.want)
		}
	}
	described := edit(func(s map[string]any) { prop(s, "x")["description"] = "how far" })
	if diffs := compareToolsLists(golden, described); len(diffs) != 0 {
		t.Errorf("an added description is allowed, got %q", diffs)
	}
	noneRequired := []map[string]any{{"name": "a.t", "inputSchema": map[string]any{"type": "object", "required": []any{}}}}
	if diffs := compareToolsLists(noneRequired, []map[string]any{{"name": "a.t", "inputSchema": map[string]any{"type": "object"}}}); len(diffs) != 0 {
		t.Errorf(`"required": [] is no required argument, as no "required" is, got %q`, diffs)
	}
	reordered := edit(func(s map[string]any) { s["required"] = []any{"y", "x"} })
	if diffs := compareToolsLists(golden, reordered); len(diffs) != 0 {
		t.Errorf("required is a set, got %q", diffs)
	}
}

// servedToolsList is every tool as an MCP client lists it from the full
// catalogue this binary serves, sorted by name, each as its JSON.
func servedToolsList(t *testing.T) []map[string]any {
	t.Helper()
	ctx := context.Background()
	tw, err := openTwin(ctx, t.TempDir(), false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	reg, checker, err := catalog(ctx, &worker.Temporal{}, tw, workspaceFor(t.TempDir(), fileRoots{}), &runs.Service{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(mcpserver.Options{Registry: reg, Health: checker, Caller: mcpserver.CallerLocal, Version: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "golden", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var listed []map[string]any
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		listed = append(listed, m)
	}
	sort.Slice(listed, func(i, j int) bool { return listed[i]["name"].(string) < listed[j]["name"].(string) })
	if len(listed) < 25 {
		t.Fatalf("tools/list has %d tools; the catalogue is incomplete", len(listed))
	}
	return listed
}

// compareToolsLists lists every difference between the golden tools/list
// and today's, as "tool: path: golden X, now Y". A "description" that is
// new is not a difference; "required" is compared as a set.
func compareToolsLists(golden, listed []map[string]any) []string {
	byName := func(tools []map[string]any) map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, tool := range tools {
			m[tool["name"].(string)] = tool
		}
		return m
	}
	was, now := byName(golden), byName(listed)
	var diffs []string
	for _, name := range sortedKeys(was) {
		tool, ok := now[name]
		if !ok {
			diffs = append(diffs, name+": golden lists it, now absent")
			continue
		}
		for _, d := range compareJSON(was[name], tool, "") {
			diffs = append(diffs, name+": "+d)
		}
	}
	for _, name := range sortedKeys(now) {
		if _, ok := was[name]; !ok {
			diffs = append(diffs, name+": listed now, absent from the golden")
		}
	}
	return diffs
}

func compareJSON(was, now any, path string) []string {
	differ := func() []string {
		return []string{fmt.Sprintf("%s: golden %s, now %s", path, jsonText(was), jsonText(now))}
	}
	switch w := was.(type) {
	case map[string]any:
		n, ok := now.(map[string]any)
		if !ok {
			return differ()
		}
		var diffs []string
		keys := sortedKeys(w)
		for _, k := range sortedKeys(n) {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			sub := strings.TrimPrefix(path+"."+k, ".")
			wv, inWas := w[k]
			nv, inNow := n[k]
			switch {
			case !inWas && k == "description":
				// An added description is the one change allowed.
			case k == "required" && sameSet(orEmpty(wv), orEmpty(nv)):
				// "required": [] says what leaving it out says.
			case !inWas || !inNow:
				diffs = append(diffs, fmt.Sprintf("%s: golden %s, now %s", sub, presentText(wv, inWas), presentText(nv, inNow)))
			case k == "required":
				if !sameSet(wv, nv) {
					diffs = append(diffs, fmt.Sprintf("%s: golden %s, now %s", sub, jsonText(wv), jsonText(nv)))
				}
			default:
				diffs = append(diffs, compareJSON(wv, nv, sub)...)
			}
		}
		return diffs
	case []any:
		n, ok := now.([]any)
		if !ok || len(n) != len(w) {
			return differ()
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, compareJSON(w[i], n[i], fmt.Sprintf("%s.%d", path, i))...)
		}
		return diffs
	default:
		if jsonText(was) != jsonText(now) {
			return differ()
		}
		return nil
	}
}

func orEmpty(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}

func sameSet(a, b any) bool {
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if !aok || !bok || len(as) != len(bs) {
		return false
	}
	set := map[string]int{}
	for _, v := range as {
		set[jsonText(v)]++
	}
	for _, v := range bs {
		set[jsonText(v)]--
	}
	for _, c := range set {
		if c != 0 {
			return false
		}
	}
	return true
}

func presentText(v any, present bool) string {
	if !present {
		return "absent"
	}
	return jsonText(v)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
