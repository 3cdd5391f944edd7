package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A typed document is a document whose content has a shape the twin
// checks (a hazard analysis's rows, a drawing's toleranced dimensions),
// recorded through RecordDocument as any document is: the next revision of
// a document item keyed by title, its text the content rendered as
// markdown, and the content itself beside it, so a reader gets both. It is
// linked CONCERNS to the items it is about. A document item keeps its
// kind: a typed document never revises a document of another kind, nor a
// plain one a typed one, so a free-text note can never overwrite a checked
// hazard analysis.

// EdgeConcerns points from a typed document to an item it is about: the
// part a drawing draws, the BOM items a procurement record buys.
const EdgeConcerns = "CONCERNS"

// typedDocumentTypes are the kinds of typed document, each with its own
// tool (twin.commit_<kind>).
var typedDocumentTypes = []string{"compliance_checklist", "design_sketch", "hazard_analysis", "procurement_record", "technical_drawing"}

// TypedDocumentTypes are the kinds of typed document.
func TypedDocumentTypes() []string { return slices.Clone(typedDocumentTypes) }

// isTyped says whether a document kind has a checked shape.
func isTyped(kind string) bool { return slices.Contains(typedDocumentTypes, kind) }

// TypedDocument is a document's content with a shape the twin checks.
type TypedDocument interface {
	// DocumentType is its kind (hazard_analysis, ...).
	DocumentType() string
	// Check refuses content without the document's shape, saying what to
	// fix, before anything is read.
	Check() error
	// Markdown is the content as the document's text.
	Markdown(title string) string
	// Summary is what a reader wants at a glance (counts, totals, the
	// worst row), as JSON values.
	Summary() map[string]any
	// Concerns are the refs of items the content itself names (a
	// drawing's part), beside those the caller lists.
	Concerns() []string
}

// partsByMPN is a typed document whose lines name parts by MPN: each line
// is linked to the project's BOM item for that MPN, when there is one.
type partsByMPN interface{ MPNs() []string }

// checkTyped refuses a typed document's write before anything is read.
func (w DocumentWrite) checkTyped() error {
	if strings.TrimSpace(w.Title) == "" {
		return Refusef("Missing: title. The title names the document; the same title revises it")
	}
	if w.DocumentType != "" && w.DocumentType != w.Content.DocumentType() {
		return Refusef("document_type %q does not match the content, a %s", w.DocumentType, w.Content.DocumentType())
	}
	for i, r := range w.Concerns {
		if strings.TrimSpace(r) == "" {
			return Refusef("concerns[%d] is blank: name an item (KEY@n, KEY) or a node id", i)
		}
	}
	return w.Content.Check()
}

// recordTyped records a typed document: checked, rendered, linked
// CONCERNS to what it is about, as the next revision of its document item.
func recordTyped(ctx context.Context, s Store, w DocumentWrite) (Document, error) {
	kind, title := w.Content.DocumentType(), strings.TrimSpace(w.Title)
	if err := keepsItsKind(ctx, s, w.Project.ID, kind, title, w.WriteInfo); err != nil {
		return Document{}, err
	}
	content, err := jsonObject(w.Content)
	if err != nil {
		return Document{}, err
	}
	doc := Document{Concerns: []string{}, UnmatchedMPNs: []string{}}
	var links []Link
	seen := map[string]bool{}
	link := func(n Node, as string) {
		if seen[n.ID] {
			return
		}
		seen[n.ID] = true
		props := map[string]any{"as": as}
		if ref := n.Ref(); ref != "" {
			props["ref"] = ref
		}
		links = append(links, Link{Type: EdgeConcerns, To: n.ID, Properties: props})
		doc.Concerns = append(doc.Concerns, n.RefOrID())
	}
	for _, ref := range w.Content.Concerns() {
		n, err := ResolveRef(ctx, s, w.Project.ID, ref)
		if err != nil {
			return Document{}, fmt.Errorf("%s: %w", ref, err)
		}
		if n.ItemKey == "" {
			return Document{}, Refusef("%s is a %s record, not a revision of an item; a %s is about an item (a part, an assembly): pass its KEY@n or KEY",
				ref, n.Type, kind)
		}
		link(n, "subject")
	}
	for _, ref := range w.Concerns {
		n, err := ResolveRef(ctx, s, w.Project.ID, ref)
		if err != nil {
			return Document{}, fmt.Errorf("concerns %s: %w", ref, err)
		}
		link(n, "concerns")
	}
	if p, ok := w.Content.(partsByMPN); ok {
		boms, err := HeadRevisions(ctx, s, w.Project.ID, "component_selection")
		if err != nil {
			return Document{}, err
		}
		for _, mpn := range p.MPNs() {
			i := slices.IndexFunc(boms, func(n Node) bool {
				m, _ := n.Properties["mpn"].(string)
				return strings.EqualFold(strings.TrimSpace(m), mpn)
			})
			if i < 0 {
				if !slices.Contains(doc.UnmatchedMPNs, mpn) {
					doc.UnmatchedMPNs = append(doc.UnmatchedMPNs, mpn)
				}
				continue
			}
			link(boms[i], "line")
		}
	}
	text := w.Content.Markdown(title)
	if notes := strings.TrimSpace(w.Text); notes != "" {
		text += "\n## Notes\n\n" + notes + "\n"
	}
	doc.Summary = w.Content.Summary()
	concerns := make([]any, len(doc.Concerns))
	for i, c := range doc.Concerns {
		concerns[i] = c
	}
	props := map[string]any{"document_type": kind, "title": title, "text": text, "content": content, "summary": doc.Summary, "concerns": concerns}
	doc.Node, doc.Item, err = s.CommitRevision(ctx, w.Revision(w.Project.ID, "document", title, props, links))
	if err != nil {
		return Document{}, err
	}
	return doc, nil
}

// keepsItsKind refuses a document write that would revise a document item
// of another kind, when either kind is typed.
func keepsItsKind(ctx context.Context, s Store, projectID, kind, title string, info WriteInfo) error {
	head, err := documentHead(ctx, s, projectID, title, info)
	if err != nil || head == nil {
		return err
	}
	was, _ := head.Properties["document_type"].(string)
	if was == kind || !isTyped(was) && !isTyped(kind) {
		return nil
	}
	how := "twin.record_document"
	if isTyped(was) {
		how = "twin.commit_" + was
	}
	return Refusef("%s is a %s (head %s); a %s cannot revise it. Give this document another title, or revise that one with %s",
		head.ItemKey, was, head.Ref(), kind, how)
}

// documentHead is the head revision of the document item a write would
// revise, or nil when it starts a new one (or names one the store will
// refuse anyway).
func documentHead(ctx context.Context, s Store, projectID, title string, info WriteInfo) (*Node, error) {
	var key string
	switch {
	case info.ItemKey != "":
		k, _, err := ParseItemRef(info.ItemKey)
		if err != nil {
			return nil, err
		}
		key = k
	case info.Supersedes != "":
		n, err := s.GetNode(ctx, info.Supersedes)
		if errors.Is(err, ErrNotFound) || err == nil && n.ProjectID != projectID {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		key = n.ItemKey
	default:
		items, err := s.Items(ctx, projectID)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if it.ItemType == "document" && strings.EqualFold(it.Name, title) {
				key = it.Key
				break
			}
		}
	}
	if key == "" {
		return nil, nil
	}
	it, err := s.GetItem(ctx, projectID, key)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n, err := s.GetNode(ctx, it.HeadNodeID)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// jsonObject is v as the JSON object a store reads back, so both stores
// hold the same values.
func jsonObject(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: the content is not JSON: %v", ErrInvalid, err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w: the content is not a JSON object: %v", ErrInvalid, err)
	}
	return out, nil
}

// mdCell writes text for a markdown table cell: one line, pipes escaped.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// blank says whether a required text is missing.
func blank(s string) bool { return strings.TrimSpace(s) == "" }
