package twin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// documentTypes are the kinds of document the twin records. A prd is
// special: the project's product requirements prose, one item per
// project, whose requirement values belong in its constraint sets.
var documentTypes = []string{"prd", "spec", "note", "datasheet", "report", "documentation", "simulation_result", "load_case", "robot_description"}

// DocumentTypes are the kinds of document the twin records.
func DocumentTypes() []string { return slices.Clone(documentTypes) }

// RequirementsHome is the one sentence every prd write returns.
const RequirementsHome = "Requirement values (metric, operator, limit, unit) go in twin.record_constraint_set; the prd holds prose only, " +
	"and the product requirements read as this prose plus the project's current constraint sets."

// maxStrays bounds the stray values a prd write lists.
const maxStrays = 20

// DocumentWrite is a text document to record as the next revision of a
// document item (keyed by title), or of the project's one prd.
type DocumentWrite struct {
	Project                   Project
	DocumentType, Title, Text string
	// Content is a typed document's checked content (typed_documents.go);
	// nil for a text document. With it, the text is the content rendered,
	// Text any notes after it, and DocumentType the content's.
	Content TypedDocument
	// Concerns are the items (KEY@n, KEY or node ids) a typed document is
	// about, linked CONCERNS.
	Concerns []string
	WriteInfo
}

// Check refuses a document with no title or no text, or a typed
// document's content without its shape, before anything is read.
func (w DocumentWrite) Check() error {
	if w.Content != nil {
		return w.checkTyped()
	}
	if isTyped(w.DocumentType) {
		return Refusef("a %s has a checked shape: write it with twin.commit_%s", w.DocumentType, w.DocumentType)
	}
	if strings.TrimSpace(w.Title) == "" {
		return Refusef("Missing: title")
	}
	if strings.TrimSpace(w.Text) == "" {
		return Refusef("Missing: text. Pass the document's content")
	}
	return nil
}

// Document is a recorded document; for a prd, also what its text says
// that no current requirement states.
type Document struct {
	Node Node
	Item Item
	// RequirementRefs are the constraint set revisions a prd was checked
	// against (KEY@n).
	RequirementRefs []string
	// StrayValues are the first values with units in a prd's text that no
	// current requirement states, as written; Warning says what to do
	// with them. Both are empty when there are none.
	StrayValues []string
	Warning     string
	// Concerns are what a typed document was linked CONCERNS to (KEY@n,
	// or a record's node id); UnmatchedMPNs the MPNs of its lines no BOM
	// item has; Summary its content at a glance.
	Concerns      []string
	UnmatchedMPNs []string
	Summary       map[string]any
}

// RecordDocument records a document. A typed document (Content) is
// checked, rendered and linked to what it concerns (typed_documents.go);
// no document revises one of another kind when either is typed. A prd is
// never refused for its content: it always becomes the next revision of the project's one prd
// item, and values in it that no current requirement states come back as
// StrayValues.
func RecordDocument(ctx context.Context, s Store, w DocumentWrite) (Document, error) {
	if err := w.Check(); err != nil {
		return Document{}, err
	}
	if w.Content != nil {
		return recordTyped(ctx, s, w)
	}
	title := strings.TrimSpace(w.Title)
	props := map[string]any{"document_type": w.DocumentType, "title": title, "text": w.Text}
	if w.DocumentType != "prd" {
		if err := keepsItsKind(ctx, s, w.Project.ID, w.DocumentType, title, w.WriteInfo); err != nil {
			return Document{}, err
		}
		n, it, err := s.CommitRevision(ctx, w.Revision(w.Project.ID, "document", title, props, nil))
		if err != nil {
			return Document{}, err
		}
		return Document{Node: n, Item: it}, nil
	}

	info, err := prdItem(ctx, s, w.Project, w.WriteInfo)
	if err != nil {
		return Document{}, err
	}
	reqs, err := CurrentRequirements(ctx, s, w.Project.ID)
	if err != nil {
		return Document{}, err
	}
	stated := statedValuesOf(reqs)
	doc := Document{RequirementRefs: SetRefs(reqs)}
	seen := map[string]bool{}
	total := 0
	for _, q := range scanQuantities(w.Text) {
		if stated.has(q.Quantity) || seen[q.written] {
			continue
		}
		seen[q.written] = true
		total++
		if len(doc.StrayValues) < maxStrays {
			doc.StrayValues = append(doc.StrayValues, q.written)
		}
	}
	doc.Node, doc.Item, err = s.CommitRevision(ctx, info.Revision(w.Project.ID, "prd", title, props, nil))
	if err != nil {
		return Document{}, err
	}
	if len(doc.StrayValues) > 0 {
		against := "no constraint set is recorded in this project yet"
		if len(doc.RequirementRefs) > 0 {
			against = "no requirement in " + strings.Join(doc.RequirementRefs, ", ") + " states them"
		}
		more := ""
		if total > len(doc.StrayValues) {
			more = fmt.Sprintf(" (and %d more)", total-len(doc.StrayValues))
		}
		doc.Warning = fmt.Sprintf("the prd states %s%s, but %s. If they are requirements, record them with "+
			"twin.record_constraint_set (metric, operator, limit, unit, verification_method) so a gate can check them; the prd was recorded as written.",
			strings.Join(doc.StrayValues, ", "), more, against)
	}
	return doc, nil
}

// prdItem makes a prd write revise the project's one prd item: the one that
// exists, else a new PRD-<project> item. An item_key or supersedes naming
// any other item is refused.
func prdItem(ctx context.Context, s Store, p Project, info WriteInfo) (WriteInfo, error) {
	items, err := s.Items(ctx, p.ID)
	if err != nil {
		return info, err
	}
	var prd *Item
	for i := range items {
		if items[i].ItemType == "prd" {
			prd = &items[i]
			break
		}
	}
	given := info.ItemKey
	if sup := info.Supersedes; sup != "" {
		n, err := s.GetNode(ctx, sup)
		if err != nil || n.ProjectID != p.ID {
			return info, Refusef("supersedes %s: no such node in this project", sup)
		}
		if prd == nil || n.ItemKey != prd.Key {
			return info, Refusef("supersedes %s is not a revision of this project's prd; leave it out: a prd write always revises the project's one prd", sup)
		}
	}
	out := WriteInfo{ChangeReason: info.ChangeReason, Author: info.Author, IdempotencyKey: info.IdempotencyKey}
	switch {
	case prd != nil && given != "":
		key, _, err := ParseItemRef(given)
		if err != nil {
			return info, err
		}
		if key != prd.Key {
			return info, Refusef("item_key %s: this project's prd is %s (head %s); a project has one prd, so pass %s or leave item_key out",
				given, prd.Key, prd.HeadRef(), prd.Key)
		}
		out.ItemKey = given
	case prd != nil:
		out.ItemKey = prd.Key
	case given != "":
		key, rev, err := ParseItemRef(given)
		if err != nil {
			return info, err
		}
		if rev > 0 {
			return info, Refusef("item_key %s: this project has no prd yet; pass a bare key, or leave item_key out", given)
		}
		out.ItemKey = key
	default:
		key := "PRD-PROJECT"
		if strings.IndexFunc(p.Name, func(r rune) bool { return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) }) >= 0 {
			key = NewItemKey("prd", p.Name)
		}
		out.ItemKey = key
	}
	return out, nil
}
