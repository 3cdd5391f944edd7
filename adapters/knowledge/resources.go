package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// Resource URIs: the list of sources, and one source with its passages.
const (
	sourcesURI        = "metaforge://knowledge/sources"
	sourceURITemplate = "metaforge://knowledge/sources/{id}"
)

var _ adapters.ResourceProvider = (*Adapter)(nil)

// ResourceTemplates are the ingested sources, listed and one by one.
func (a *Adapter) ResourceTemplates() []adapters.ResourceTemplate {
	return []adapters.ResourceTemplate{
		{URITemplate: sourcesURI, Name: "knowledge-sources", Title: "Knowledge sources", MIMEType: "application/json",
			Description: "Every document ingested into the knowledge base (knowledge.ingest), newest first: id, title, origin, format, tags, pages, passages, state and when."},
		{URITemplate: sourceURITemplate, Name: "knowledge-source", Title: "Knowledge source", MIMEType: "application/json",
			Description: "One ingested document with its passages in order, each with its page."},
	}
}

// ReadResource reads the list or one source. An unknown source is
// RESOURCE_NOT_FOUND naming where the list is.
func (a *Adapter) ReadResource(ctx context.Context, uri string) (adapters.ResourceContent, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "metaforge" || u.Host != AdapterID {
		return adapters.ResourceContent{}, &protocol.Error{Code: protocol.ResourceNotFound, Details: fmt.Sprintf("no resource %s", uri)}
	}
	if a.store == nil {
		return adapters.ResourceContent{}, protocol.Unavailable("this server keeps no knowledge base")
	}
	var body any
	switch kind, id, _ := strings.Cut(strings.Trim(u.Path, "/"), "/"); {
	case kind == "sources" && id == "":
		list, err := a.store.Sources(ctx, nil)
		if err != nil {
			return adapters.ResourceContent{}, err
		}
		if list == nil {
			list = []kb.Source{}
		}
		body = map[string]any{"sources": list, "count": len(list), "search": a.store.Describe()}
	case kind == "sources":
		s, err := a.store.Source(ctx, id)
		if errors.Is(err, kb.ErrNotFound) {
			return adapters.ResourceContent{}, &protocol.Error{Code: protocol.ResourceNotFound,
				Details: fmt.Sprintf("no knowledge source %q; %s lists the sources", id, sourcesURI)}
		}
		if err != nil {
			return adapters.ResourceContent{}, err
		}
		chunks, err := a.store.Chunks(ctx, id)
		if err != nil {
			return adapters.ResourceContent{}, err
		}
		if chunks == nil {
			chunks = []kb.Chunk{}
		}
		body = map[string]any{"source": s, "chunks": chunks}
	default:
		return adapters.ResourceContent{}, &protocol.Error{Code: protocol.ResourceNotFound,
			Details: fmt.Sprintf("no resource %s; the knowledge resources are %s and %s", uri, sourcesURI, sourceURITemplate)}
	}
	text, err := json.Marshal(body)
	if err != nil {
		return adapters.ResourceContent{}, err
	}
	return adapters.ResourceContent{URI: uri, MIMEType: "application/json", Text: string(text)}, nil
}
