// Package web is the in-process adapter "web": web.fetch (one public URL
// as readable text, through internal/webfetch's SSRF guard) and
// web.search (ranked results from the Brave Search API). Each tool is
// listed only when the deployment enabled it, so an agent never sees a
// tool that cannot work: web.fetch when outbound fetches are allowed
// (METAFORGE_WEB_FETCH=1), web.search when BRAVE_API_KEY is set.
package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/webfetch"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter.
const (
	AdapterID = "web"
	version   = "0.1.0"
)

// The environment a deployment enables the tools with (FromEnv).
const (
	// EnvAllowFetch set to 1 (or true, yes) lets web.fetch reach the
	// public web.
	EnvAllowFetch = "METAFORGE_WEB_FETCH"
	// EnvBraveAPIKey is the Brave Search API subscription token web.search
	// sends.
	EnvBraveAPIKey = "BRAVE_API_KEY"
)

// DefaultBraveURL is the Brave Web Search endpoint.
const DefaultBraveURL = "https://api.search.brave.com/res/v1/web/search"

// Options configure the adapter.
type Options struct {
	// AllowFetch lists web.fetch: the deployment lets this process make
	// outbound requests to URLs an agent names.
	AllowFetch bool
	// BraveAPIKey lists web.search when set.
	BraveAPIKey string
	// BraveURL is the Brave Web Search endpoint; tests point it at a
	// local stand-in. Default DefaultBraveURL.
	BraveURL string
	// BraveClient makes the search requests. Default: a client with a
	// 20-second timeout.
	BraveClient *http.Client
	// SearchAttempts is how many times a rate-limited (429) search is
	// tried before it fails. Default 4.
	SearchAttempts int
	// SearchBackoff is the first wait between attempts when Brave names
	// none (Retry-After); it doubles each time. Default 1 s.
	SearchBackoff time.Duration
	// MaxRetryWait is the longest one wait may be: a Retry-After longer
	// than this fails the search at once, saying when to try again.
	// Default 20 s.
	MaxRetryWait time.Duration
	// Fetcher configures web.fetch's fetcher (its resolver, dialer and
	// caps); the zero value is the production fetcher.
	Fetcher webfetch.Options
}

// FromEnv is the deployment's options: web.fetch when
// METAFORGE_WEB_FETCH is 1, true or yes; web.search when BRAVE_API_KEY
// is set.
func FromEnv() Options {
	allow := strings.ToLower(strings.TrimSpace(os.Getenv(EnvAllowFetch)))
	return Options{
		AllowFetch:  allow == "1" || allow == "true" || allow == "yes",
		BraveAPIKey: strings.TrimSpace(os.Getenv(EnvBraveAPIKey)),
	}
}

// Enabled says whether any tool is enabled: an adapter with none is not
// worth registering.
func (o Options) Enabled() bool { return o.AllowFetch || o.BraveAPIKey != "" }

// Adapter serves the enabled web.* tools. Use New.
type Adapter struct {
	opts    Options
	fetcher *webfetch.Fetcher
	brave   *braveClient
	tools   []tool
	calls   *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// tool is one web.* tool, declared with the Go type of its arguments.
type tool = adapters.Declared[*Adapter]

// New returns the adapter with the tools opts enable.
func New(opts Options) *Adapter {
	a := &Adapter{opts: opts, calls: adapters.NewInvocations()}
	if opts.AllowFetch {
		a.fetcher = webfetch.New(opts.Fetcher)
		a.tools = append(a.tools, fetchTool)
	}
	if opts.BraveAPIKey != "" {
		a.brave = newBraveClient(opts)
		a.tools = append(a.tools, searchTool)
	}
	return a
}

// ID is "web".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

// Manifests lists the enabled tools only.
func (a *Adapter) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, len(a.tools))
	for i, t := range a.tools {
		out[i] = t.Manifest
	}
	return out
}

// Call runs an enabled tool. A tool this deployment did not enable is
// INVALID_PARAMS saying how to enable it.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	for _, t := range a.tools {
		if t.Manifest.ToolID != toolID {
			continue
		}
		out, err := t.Run(ctx, a, args)
		if err != nil {
			return nil, adapters.WithToolID(err, toolID)
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, adapters.WithToolID(&protocol.Error{Code: protocol.InternalError, Details: "the result cannot be encoded as JSON: " + err.Error()}, toolID)
		}
		return &adapters.Result{Data: raw}, nil
	}
	switch toolID {
	case ToolFetch:
		return nil, adapters.WithToolID(protocol.Invalid("web.fetch is not enabled on this deployment; set %s=1 to let it fetch public URLs", EnvAllowFetch), toolID)
	case ToolSearch:
		return nil, adapters.WithToolID(protocol.Invalid("web.search is not enabled on this deployment; set %s to a Brave Search API key", EnvBraveAPIKey), toolID)
	}
	return nil, adapters.WithToolID(protocol.Invalid("adapter web has no tool %q; its tools are web.fetch and web.search", toolID), toolID)
}

// Health is healthy with the number of enabled tools. It calls no
// external service: a search would spend the deployment's Brave quota.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	return a.calls.Healthy(AdapterID, version, len(a.tools)), nil
}
