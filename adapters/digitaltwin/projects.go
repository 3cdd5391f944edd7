package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func projectTools() []tool {
	return []tool{
		{adapters.Manifest{ToolID: "project.create", Name: "Create a project", Capability: "project",
			Description: "Create a project (a design) and make it this session's scope. Names are unique ignoring case.",
			InputSchema: schema([]string{"name"}, `"name":{"type":"string","minLength":1,"maxLength":200},"description":{"type":"string","maxLength":4000}`),
			Idempotent:  true, TimeoutSeconds: 30}, createProject},
		{adapters.Manifest{ToolID: "project.list", Name: "List projects", Capability: "project",
			Description: "Every project, by name.", InputSchema: schema(nil, ``), Idempotent: true, TimeoutSeconds: 30}, listProjects},
		{adapters.Manifest{ToolID: "project.get", Name: "Get a project", Capability: "project",
			Description: "A project and what is recorded in it.", InputSchema: schema(nil, projectIDProp), Idempotent: true, TimeoutSeconds: 30}, getProject},
		{adapters.Manifest{ToolID: "project.update", Name: "Update a project", Capability: "project",
			Description: "Rename a project or change its description.",
			InputSchema: schema(nil, projectIDProp+`,"name":{"type":"string","minLength":1,"maxLength":200},"description":{"type":"string","maxLength":4000}`),
			Idempotent:  true, TimeoutSeconds: 30}, updateProject},
		{adapters.Manifest{ToolID: "project.delete", Name: "Delete a project", Capability: "project",
			Description: "Delete a project and everything recorded in it. It cannot be undone.",
			InputSchema: schema([]string{"project_id"}, `"project_id":{"type":"string","minLength":1}`), Idempotent: true, TimeoutSeconds: 30}, deleteProject},
		{adapters.Manifest{ToolID: "project.open", Name: "Open a project", Capability: "project",
			Description: "Pick the project this session works in, by id, exact name or a unique part of its name, and be briefed on it. " +
				"Several matches is an error naming them; nothing is guessed.",
			InputSchema: schema([]string{"ref"}, `"ref":{"type":"string","minLength":1,"description":"a project id, its name, or a unique part of its name"}`),
			Idempotent:  true, TimeoutSeconds: 30}, openProject},
	}
}

func sessionTools() []tool {
	return []tool{
		{adapters.Manifest{ToolID: "session.start", Name: "Start a session in a project", Capability: "project",
			Description: "Bind this session to a project: later calls that name no project get it. project_scope_bound says whether the binding " +
				"can stick (false: this connection has no session identity, keep passing project_id).",
			InputSchema: schema([]string{"project_id"}, `"project_id":{"type":"string","minLength":1}`), Idempotent: true, TimeoutSeconds: 30}, startSession},
	}
}

type projectOut struct {
	twin.Project
	ProjectScopeBound *bool `json:"project_scope_bound,omitempty"`
}

func createProject(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct{ Name, Description string }
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	p, err := b.Store.CreateProject(ctx, twin.Project{Name: strings.TrimSpace(a.Name), Description: a.Description}, callID(ctx))
	if err != nil {
		return nil, err
	}
	bound, err := bindSession(ctx, b, p.ID)
	if err != nil {
		return nil, err
	}
	return projectOut{Project: p, ProjectScopeBound: &bound}, nil
}

func listProjects(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	ps, err := b.Store.ListProjects(ctx)
	if err != nil {
		return nil, err
	}
	if ps == nil {
		ps = []twin.Project{}
	}
	return map[string]any{"projects": ps, "count": len(ps)}, nil
}

func getProject(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	p, err := scopedProject(ctx, b, raw)
	if err != nil {
		return nil, err
	}
	return brief(ctx, b, p)
}

func updateProject(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID   string  `json:"project_id"`
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if a.Name == nil && a.Description == nil {
		return nil, protocol.Refusal("nothing to update: pass name or description")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	return b.Store.UpdateProject(ctx, p.ID, twin.ProjectUpdate{Name: a.Name, Description: a.Description})
}

// deleteProject deletes by id, keyed by the callId: a retried delete whose
// first attempt already deleted the project succeeds rather than report a
// project it just removed as unknown.
func deleteProject(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID string `json:"project_id"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	out := map[string]any{"deleted": true, "project_id": a.ProjectID}
	if p, err := b.Store.GetProject(ctx, a.ProjectID); err == nil {
		out["name"] = p.Name
	}
	if err := b.Store.DeleteProject(ctx, a.ProjectID, callID(ctx)); err != nil {
		return nil, err
	}
	return out, nil
}

// openProject resolves what the user said to one project: an id, an exact
// name (ignoring case), or a unique substring of a name. Several matches is
// an error naming them, never a guess.
func openProject(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct{ Ref string }
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	ref := strings.TrimSpace(a.Ref)
	ps, err := b.Store.ListProjects(ctx)
	if err != nil {
		return nil, err
	}
	var exact, partial []twin.Project
	for _, p := range ps {
		switch {
		case p.ID == ref || strings.EqualFold(p.Name, ref):
			exact = append(exact, p)
		case strings.Contains(strings.ToLower(p.Name), strings.ToLower(ref)):
			partial = append(partial, p)
		}
	}
	matches := exact
	if len(matches) == 0 {
		matches = partial
	}
	switch len(matches) {
	case 0:
		return nil, protocol.Refusal("project.open: no project matches %q; project.list shows them, project.create makes one", ref)
	case 1:
	default:
		var names []string
		for _, p := range matches {
			names = append(names, fmt.Sprintf("%s (%s)", p.Name, shortID(p.ID)))
		}
		return nil, protocol.Refusal("project.open: %q matches %d projects: %s — be more specific or use the id", ref, len(matches), strings.Join(names, ", "))
	}
	p := matches[0]
	bound, err := bindSession(ctx, b, p.ID)
	if err != nil {
		return nil, err
	}
	br, err := brief(ctx, b, p)
	if err != nil {
		return nil, err
	}
	return map[string]any{"project": p, "project_scope_bound": bound, "brief": br}, nil
}

func startSession(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	p, err := namedProject(ctx, b, raw)
	if err != nil {
		return nil, err
	}
	bound, err := bindSession(ctx, b, p.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, "name": p.Name, "project_scope_bound": bound}
	if !bound {
		out["detail"] = "this connection presented no session identity, so the binding could never be matched again: keep passing project_id on every call"
	}
	return out, nil
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// brief is what a project is and what has been built in it, newest work
// first: what an agent needs at the start of a session. An empty project
// says so; it is not an error.
func brief(ctx context.Context, b *Backend, p twin.Project) (map[string]any, error) {
	items, err := b.Store.Items(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].UpdatedAt.After(items[j].UpdatedAt) })
	counts := map[string]int{}
	var recent []map[string]any
	for _, it := range items {
		counts[it.ItemType]++
		if len(recent) < 10 {
			recent = append(recent, map[string]any{"item_ref": it.HeadRef(), "item_type": it.ItemType, "name": it.Name, "updated_at": it.UpdatedAt})
		}
	}
	evidence, err := b.Store.NodesByType(ctx, p.ID, "evidence")
	if err != nil {
		return nil, err
	}
	out := map[string]any{
		"project_id": p.ID, "name": p.Name, "description": p.Description,
		"item_counts": counts, "evidence_count": len(evidence), "recent_work": recent,
	}
	if len(items) == 0 && len(evidence) == 0 {
		out["summary"] = "nothing is recorded in this project yet"
		out["recent_work"] = []any{}
	} else {
		out["summary"] = fmt.Sprintf("%d items and %d pieces of evidence recorded", len(items), len(evidence))
	}
	withSessions(ctx, b, p.ID, out)
	return out, nil
}
