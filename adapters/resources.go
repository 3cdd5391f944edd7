package adapters

import "context"

// ResourceProvider is an adapter that serves MCP resources. Its URIs are
// metaforge://<adapter id>/<kind>/<id>, so a read is routed by the adapter
// segment the URI carries, never by asking every adapter in turn.
type ResourceProvider interface {
	ResourceTemplates() []ResourceTemplate
	// ReadResource returns a resource's contents, or a *protocol.Error:
	// RESOURCE_NOT_FOUND for something that does not exist.
	ReadResource(ctx context.Context, uri string) (ResourceContent, error)
}

// ResourceTemplate describes a family of resources (RFC 6570 template).
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceContent is one read resource.
type ResourceContent struct {
	URI      string
	MIMEType string
	Text     string
}
