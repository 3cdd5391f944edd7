package twin_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResourcesAreProjectTemplates(t *testing.T) {
	s, _ := theStack(t)
	c := client{t, s.ConnectHTTP(t, nil)}
	ctx := context.Background()

	templates, err := c.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, rt := range templates.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	want := "metaforge://twin/brief/{project_id} metaforge://twin/decisions/{project_id} metaforge://twin/hierarchy/{project_id} metaforge://twin/requirements/{project_id} metaforge://twin/risks/{project_id}"
	slices.Sort(uris)
	if strings.Join(uris, " ") != want {
		t.Fatalf("templates = %v", uris)
	}
	concrete, err := c.cs.ListResources(ctx, nil)
	if err != nil || len(concrete.Resources) != 0 {
		t.Fatalf("resources/list = %v %v, want no concrete resources", concrete, err)
	}

	p := c.call("project.create", map[string]any{"name": "Resourceful"})
	pid := p["project_id"].(string)
	read := func(kind string) map[string]any {
		t.Helper()
		res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "metaforge://twin/" + kind + "/" + pid})
		if err != nil {
			t.Fatalf("read %s: %v", kind, err)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &out); err != nil {
			t.Fatalf("%s is not JSON: %v", kind, err)
		}
		return out
	}
	if b := read("brief"); b["summary"] != "nothing is recorded in this project yet" {
		t.Errorf("empty project's brief = %v", b)
	}
	if d := read("decisions"); d["note"] != "no decisions are recorded in this project yet" {
		t.Errorf("empty project's decisions = %v", d)
	}
	c.call("twin.commit_geometry", map[string]any{"project_id": pid, "name": "Frame", "step_base64": step("f"), "properties": map[string]any{"mass_kg": 1.25}})
	h := read("hierarchy")
	parts := h["parts"].([]any)
	if len(h["roots"].([]any)) != 0 || len(parts) != 1 || parts[0].(map[string]any)["item_ref"] != "CAD-FRAME@1" || parts[0].(map[string]any)["mass_kg"] != 1.25 ||
		!strings.Contains(h["note"].(string), "no product hierarchy is recorded") {
		t.Errorf("hierarchy without positions = %v", h)
	}
	if b := read("brief"); b["summary"] == "nothing is recorded in this project yet" {
		t.Errorf("brief after a commit = %v", b)
	}

	_, err = c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "metaforge://twin/brief/no-such-project"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 || !strings.Contains(rpcErr.Message, `no project "no-such-project"`) {
		t.Errorf("unknown project = %v, want -32002 naming it", err)
	}
}
