package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// projectResources are the twin's MCP resources: every one is per project,
// so all are templates. Each renders what the tools already record; none
// computes a second opinion of its own.
var projectResources = []struct {
	kind, title, description string
	render                   func(ctx context.Context, b *Backend, p twin.Project) (any, error)
}{
	{"brief", "Project brief", "What this project is and what has been built in it, newest work first.", renderBrief},
	{"hierarchy", "Product hierarchy", "Each root product's tree of positions with mass, cost and power rolled up (a figure nothing gives is no_data, named, never zero); with no hierarchy, the committed parts and their masses; and each budget held against the roll-up.", renderHierarchy},
	{"requirements", "Requirements and their evidence", "Every requirement against the evidence that verifies it, with its live status; no_data is not a pass.", renderRequirements},
	{"decisions", "Decisions", "Recorded decisions, their rationale and the alternatives considered.", renderDecisions},
	{"risks", "Risks", "Recorded risk entities.", renderRisks},
}

// ResourceTemplates implements adapters.ResourceProvider: only the twin
// family serves resources.
func (f *family) ResourceTemplates() []adapters.ResourceTemplate {
	if f.id != "twin" {
		return nil
	}
	var out []adapters.ResourceTemplate
	for _, r := range projectResources {
		out = append(out, adapters.ResourceTemplate{
			URITemplate: "metaforge://twin/" + r.kind + "/{project_id}",
			Name:        "twin-" + r.kind, Title: r.title, Description: r.description, MIMEType: "application/json",
		})
	}
	return out
}

// ReadResource implements adapters.ResourceProvider. An unknown project is
// an error; a project with nothing recorded is a resource saying so.
func (f *family) ReadResource(ctx context.Context, uri string) (adapters.ResourceContent, error) {
	u, err := url.Parse(uri)
	if err != nil || f.id != "twin" {
		return adapters.ResourceContent{}, &protocol.Error{Code: protocol.ResourceNotFound, Details: fmt.Sprintf("no resource %s", uri)}
	}
	kind, projectID, _ := strings.Cut(strings.Trim(u.Path, "/"), "/")
	for _, r := range projectResources {
		if r.kind != kind {
			continue
		}
		p, err := f.backend.Store.GetProject(ctx, projectID)
		if errors.Is(err, twin.ErrNotFound) {
			return adapters.ResourceContent{}, &protocol.Error{Code: protocol.ResourceNotFound,
				Details: fmt.Sprintf("no project %q: project.list shows the projects that exist", projectID)}
		}
		if err != nil {
			return adapters.ResourceContent{}, err
		}
		body, err := r.render(ctx, f.backend, p)
		if err != nil {
			return adapters.ResourceContent{}, err
		}
		text, err := json.Marshal(body)
		if err != nil {
			return adapters.ResourceContent{}, err
		}
		return adapters.ResourceContent{URI: uri, MIMEType: "application/json", Text: string(text)}, nil
	}
	return adapters.ResourceContent{}, &protocol.Error{Code: protocol.ResourceNotFound,
		Details: fmt.Sprintf("no resource %s; resources/templates/list shows the kinds: brief, hierarchy, requirements, decisions, risks", uri)}
}

func renderBrief(ctx context.Context, b *Backend, p twin.Project) (any, error) {
	return project.Brief(ctx, b.projectService(), p)
}

// renderHierarchy is twin.ReadProductStructure: the rolled-up tree of each
// root product (mass, cost, power; an unknown named as no_data, never
// counted as zero), or with no hierarchy the committed parts and their
// masses, listed and not rolled up.
func renderHierarchy(ctx context.Context, b *Backend, p twin.Project) (any, error) {
	ps, err := twin.ReadProductStructure(ctx, b.Store, p.ID)
	if err != nil {
		return nil, err
	}
	roots := make([]twin.RollupNode, len(ps.Roots))
	for i, r := range ps.Roots {
		roots[i] = r.Root
	}
	budgets, err := twin.HoldBudgets(ctx, b.Store, p.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, "roots": roots, "budgets": nonNilBudgets(budgets)}
	switch {
	case len(roots) > 0:
	case len(ps.Parts) > 0:
		out["parts"] = ps.Parts
		out["note"] = "no product hierarchy is recorded, so nothing is rolled up: the committed parts are listed with their masses; " +
			"twin.record_hierarchy_node nests positions and realises them by these parts"
	default:
		out["note"] = "nothing is recorded in this project yet"
	}
	return out, nil
}

// renderDecisions lists the decision items' heads with what they recorded.
func renderDecisions(ctx context.Context, b *Backend, p twin.Project) (any, error) {
	return headsOfType(ctx, b, p, "decision", "no decisions are recorded in this project yet")
}

// renderRisks lists the risk entities.
func renderRisks(ctx context.Context, b *Backend, p twin.Project) (any, error) {
	nodes, err := b.Store.NodesByType(ctx, p.ID, "risk")
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, "risks": nodesOrEmpty(nodes)}
	if len(nodes) == 0 {
		out["note"] = "no risks are recorded in this project yet"
	}
	return out, nil
}

func headsOfType(ctx context.Context, b *Backend, p twin.Project, itemType, empty string) (any, error) {
	heads, err := twin.HeadRevisions(ctx, b.Store, p.ID, itemType)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, itemType + "s": nodesOrEmpty(heads)}
	if len(heads) == 0 {
		out["note"] = empty
	}
	return out, nil
}

func nodesOrEmpty(ns []twin.Node) []twin.Node {
	if ns == nil {
		return []twin.Node{}
	}
	return ns
}

// renderRequirements is constraint_violations' report: the resource and the
// tool share one source, so they cannot disagree.
func renderRequirements(ctx context.Context, b *Backend, p twin.Project) (any, error) {
	return RequirementsView(ctx, b.Store, p.ID)
}
