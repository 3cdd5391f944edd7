package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/mcpserver"
)

// metaforge tools --profile P lists exactly the profile's tools (its
// tools/list), as a table and as JSON; an unknown profile is a usage
// error naming the profiles.
func TestToolsCommandListsAProfile(t *testing.T) {
	var core mcpserver.Profile
	for _, p := range mcpserver.Profiles() {
		if p.Name == "core" {
			core = p
		}
	}
	ctx := context.Background()
	var out bytes.Buffer
	if err := runTools(ctx, []string{"--profile", "core"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "TOOL") || !strings.HasSuffix(out.String(), fmt.Sprintf("\n%d tools\n", len(core.Tools))) ||
		!strings.Contains(out.String(), "twin.find_by_property") || strings.Contains(out.String(), "cadquery.") {
		t.Fatalf("tools --profile core:\n%s", out.String())
	}
	out.Reset()
	if err := runTools(ctx, []string{"--profile", "core", "--json"}, &out); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Tools []struct {
			ToolID   string `json:"tool_id"`
			ReadOnly bool   `json:"read_only"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Tools) != len(core.Tools) {
		t.Fatalf("tools --profile core --json printed %d tools (%v), want %d", len(res.Tools), err, len(core.Tools))
	}
	for _, tl := range res.Tools {
		if !core.Has(tl.ToolID) {
			t.Errorf("tools --profile core lists %s, which core does not serve", tl.ToolID)
		}
		if tl.ToolID == "project.create" && tl.ReadOnly {
			t.Error("project.create is listed read-only")
		}
	}
	out.Reset()
	if err := runTools(ctx, nil, &out); err != nil || !strings.Contains(out.String(), "cadquery.create_parametric") {
		t.Fatalf("tools without a profile (every tool): %v\n%s", err, out.String())
	}
	err := runTools(ctx, []string{"--profile", "nope"}, &out)
	if err == nil || statusOf(err) != 2 || !strings.Contains(err.Error(), "core") {
		t.Fatalf("tools --profile nope: %v, want exit 2 naming the profiles", err)
	}
}
