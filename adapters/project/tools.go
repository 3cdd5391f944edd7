// Package project serves the project tools (project.*): create, list, get,
// update, delete and open a project, the design every twin record belongs
// to. Opening or creating one makes it the session's scope, so later calls
// that name no project work in it. The adapter runs over the twin's
// backend (adapters/twin.New serves it); the rules live in package twin.
package project

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// Service is what the project tools work on.
type Service struct {
	Store    twin.Store
	Sessions twin.SessionBindings
	// Activity reads who worked in a project (the ledger); nil when no
	// ledger is configured.
	Activity Activity
}

// Scope is the optional project_id of every tool that works in a project:
// left out, the call works in its session's (twin.ProjectFor).
type Scope struct {
	ProjectID string `json:"project_id,omitempty" jsonschema:"the project; defaults to the session's (session.start or project.open)"`
}

// Tools are the project adapter's tools.
func Tools() []adapters.Declared[*Service] {
	name := adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200))
	description := adapters.At("description", adapters.MaxLength(4000))
	return []adapters.Declared[*Service]{
		adapters.Declare(adapters.Manifest{ToolID: "project.create", Name: "Create a project", Capability: "project",
			Description: "Create a project (a design) and make it this session's scope. Names are unique ignoring case.",
			Idempotent:  true, Short: true, TimeoutSeconds: 30}, createProject, name, description),
		adapters.Declare(adapters.Manifest{ToolID: "project.list", Name: "List projects", Capability: "project",
			Description: "Every project, by name.", Idempotent: true, Short: true, TimeoutSeconds: 30}, listProjects),
		adapters.Declare(adapters.Manifest{ToolID: "project.get", Name: "Get a project", Capability: "project",
			Description: "A project and what is recorded in it.", Idempotent: true, Short: true, TimeoutSeconds: 30}, getProject),
		adapters.Declare(adapters.Manifest{ToolID: "project.update", Name: "Update a project", Capability: "project",
			Description: "Rename a project or change its description.",
			Idempotent:  true, Short: true, TimeoutSeconds: 30}, updateProject, name, description),
		adapters.Declare(adapters.Manifest{ToolID: "project.delete", Name: "Delete a project", Capability: "project",
			Description: "Delete a project and everything recorded in it. It cannot be undone.",
			Idempotent:  true, Short: true, TimeoutSeconds: 30}, deleteProject, adapters.At("project_id", adapters.MinLength(1))),
		adapters.Declare(adapters.Manifest{ToolID: "project.open", Name: "Open a project", Capability: "project",
			Description: "Pick the project this session works in, by id, exact name or a unique part of its name, and be briefed on it. " +
				"Several matches is an error naming them; nothing is guessed.",
			Idempotent: true, Short: true, TimeoutSeconds: 30}, openProject, adapters.At("ref", adapters.MinLength(1))),
	}
}

type createArgs struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type updateArgs struct {
	Scope
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

type deleteArgs struct {
	ProjectID string `json:"project_id"`
}

type openArgs struct {
	Ref string `json:"ref" jsonschema:"a project id, its name, or a unique part of its name"`
}

type projectOut struct {
	twin.Project
	ProjectScopeBound *bool `json:"project_scope_bound,omitempty"`
}

func createProject(ctx context.Context, s *Service, a createArgs) (any, error) {
	ci := adapters.CallInfoFrom(ctx)
	p, err := s.Store.CreateProject(ctx, twin.Project{Name: strings.TrimSpace(a.Name), Description: a.Description}, ci.CallID)
	if err != nil {
		return nil, err
	}
	bound, err := twin.BindToSession(ctx, s.Sessions, ci.SessionID, p.ID)
	if err != nil {
		return nil, err
	}
	return projectOut{Project: p, ProjectScopeBound: &bound}, nil
}

func listProjects(ctx context.Context, s *Service, _ struct{}) (any, error) {
	ps, err := s.Store.ListProjects(ctx)
	if err != nil {
		return nil, err
	}
	if ps == nil {
		ps = []twin.Project{}
	}
	return map[string]any{"projects": ps, "count": len(ps)}, nil
}

func getProject(ctx context.Context, s *Service, a Scope) (any, error) {
	p, err := s.projectFor(ctx, a.ProjectID)
	if err != nil {
		return nil, err
	}
	return Brief(ctx, s, p)
}

func updateProject(ctx context.Context, s *Service, a updateArgs) (any, error) {
	if a.Name == nil && a.Description == nil {
		return nil, protocol.Refusal("nothing to update: pass name or description")
	}
	p, err := s.projectFor(ctx, a.ProjectID)
	if err != nil {
		return nil, err
	}
	return s.Store.UpdateProject(ctx, p.ID, twin.ProjectUpdate{Name: a.Name, Description: a.Description})
}

// deleteProject deletes by id, keyed by the callId: a retried delete whose
// first attempt already deleted the project succeeds rather than report a
// project it just removed as unknown.
func deleteProject(ctx context.Context, s *Service, a deleteArgs) (any, error) {
	out := map[string]any{"deleted": true, "project_id": a.ProjectID}
	if p, err := s.Store.GetProject(ctx, a.ProjectID); err == nil {
		out["name"] = p.Name
	}
	if err := s.Store.DeleteProject(ctx, a.ProjectID, adapters.CallInfoFrom(ctx).CallID); err != nil {
		return nil, err
	}
	return out, nil
}

// openProject resolves what the user said to one project: an id, an exact
// name (ignoring case), or a unique substring of a name. Several matches is
// an error naming them, never a guess.
func openProject(ctx context.Context, s *Service, a openArgs) (any, error) {
	ref := strings.TrimSpace(a.Ref)
	ps, err := s.Store.ListProjects(ctx)
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
	bound, err := twin.BindToSession(ctx, s.Sessions, adapters.CallInfoFrom(ctx).SessionID, p.ID)
	if err != nil {
		return nil, err
	}
	br, err := Brief(ctx, s, p)
	if err != nil {
		return nil, err
	}
	return map[string]any{"project": p, "project_scope_bound": bound, "brief": br}, nil
}

// projectFor is the project a call names, else its session's.
func (s *Service) projectFor(ctx context.Context, named string) (twin.Project, error) {
	return twin.ProjectFor(ctx, s.Store, s.Sessions, adapters.CallInfoFrom(ctx).SessionID, named)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
