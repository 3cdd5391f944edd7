package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

func recordDocumentTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_document", Name: "Record a document", Capability: "twin_write",
		Description: "Record a text document as the next revision of a document item (keyed by title). document_type \"prd\" is " +
			"special: the text is the prd's prose (background, scope, what is out of scope) and always becomes the next revision of the " +
			"project's one prd item (PRD-...), whatever its title; it is never refused for its content. Requirement values belong in " +
			"twin.record_constraint_set: numbers with units in a prd that no current requirement states come back as " +
			"stray_requirement_values with a requirement_warning, and requirement_refs names the constraint set revisions checked.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordDocument, withItemRules(
		adapters.At("document_type", adapters.Enum(twin.DocumentTypes()...)),
		adapters.At("title", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("text", adapters.MinLength(1), adapters.MaxLength(200000)))...)
}

type recordDocumentArgs struct {
	project.Scope
	DocumentType string `json:"document_type" jsonschema:"prd: the project's product requirements prose (one per project); others are ordinary documents"`
	Title        string `json:"title" jsonschema:"the document's title; for other types the same title revises the same document"`
	Text         string `json:"text" jsonschema:"the document's text, markdown"`
	itemArgs
}

func recordDocument(ctx context.Context, b *Backend, a recordDocumentArgs) (any, error) {
	w := twin.DocumentWrite{DocumentType: a.DocumentType, Title: a.Title, Text: a.Text, WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.Project = p
	doc, err := twin.RecordDocument(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	out := written(doc.Node, doc.Item)
	out["project_id"], out["document_type"] = p.ID, a.DocumentType
	if a.DocumentType != "prd" {
		return out, nil
	}
	out["requirements_home"] = twin.RequirementsHome
	out["requirement_refs"] = doc.RequirementRefs
	if len(doc.StrayValues) > 0 {
		out["stray_requirement_values"] = doc.StrayValues
		out["requirement_warning"] = doc.Warning
	}
	return out, nil
}
