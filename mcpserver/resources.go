package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// registerResources publishes every adapter's resource templates. They are
// all parameterised, so they belong in resources/templates/list;
// resources/list has only concrete resources, of which there are none.
func (s *Server) registerResources(srv *mcp.Server) {
	for _, a := range s.opts.Registry.Adapters() {
		rp, ok := a.(adapters.ResourceProvider)
		if !ok {
			continue
		}
		for _, t := range rp.ResourceTemplates() {
			srv.AddResourceTemplate(&mcp.ResourceTemplate{
				URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType,
			}, s.readResource)
		}
	}
}

// readResource routes a read on the URI's adapter segment
// (metaforge://twin/... goes to the twin adapter).
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "metaforge" || u.Host == "" {
		return nil, rpcError(protocol.InvalidParams, fmt.Sprintf("resource URI %q is not metaforge://<adapter>/<kind>/<id>", uri), nil)
	}
	a, ok := s.opts.Registry.Adapter(u.Host)
	rp, serves := a.(adapters.ResourceProvider)
	if !ok || !serves {
		return nil, rpcError(protocol.ResourceNotFound, fmt.Sprintf("no adapter %q serves resources; resources/templates/list shows the ones that exist", u.Host), nil)
	}
	c, err := rp.ReadResource(ctx, uri)
	if err != nil {
		var perr *protocol.Error
		if errors.As(err, &perr) {
			return nil, rpcError(perr.Code, perr.Details, map[string]any{"uri": uri})
		}
		return nil, rpcError(protocol.ResourceReadError, fmt.Sprintf("%s could not be read: %v", uri, err), map[string]any{"uri": uri})
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}}}, nil
}
