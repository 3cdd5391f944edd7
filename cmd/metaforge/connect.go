package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/mcpserver"
)

// probeTimeout is how long one candidate gets to answer initialize: long
// enough for a gateway across a LAN, short enough that five silent
// candidates do not look like a hang.
const probeTimeout = 3 * time.Second

// wellKnownGateways are where a gateway usually is when nobody said (spec
// 003 "Finding the gateway"): the MCP sidecar, then the compose gateway.
var wellKnownGateways = []string{
	"http://localhost:8765/mcp",
	"http://127.0.0.1:8765/mcp",
	"http://localhost:8000/mcp",
}

// runConnect is `metaforge connect`: it finds a gateway and prints the URL
// to configure, or says why each candidate is not one and exits non-zero,
// so it can be a script's precondition.
func runConnect(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	gateway := fs.String("url", "", "the gateway to try first (default $METAFORGE_URL, else $METAFORGE_GATEWAY_URL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := probeOptions{Timeout: probeTimeout, APIKey: os.Getenv("METAFORGE_MCP_API_KEY")}
	return connect(ctx, out, gatewayCandidates(configuredGateway(*gateway), wellKnownGateways), opts)
}

// connect reports the first gateway among candidates, or every candidate
// and what it said; exitStatus(1) when there was none.
func connect(ctx context.Context, out io.Writer, candidates []string, opts probeOptions) error {
	cs, found, tried := findGateway(ctx, candidates, opts)
	if cs != nil {
		_ = cs.Close()
	}
	if found == nil {
		writeNotFound(out, tried)
		return exitStatus(1)
	}
	writeFound(out, *found)
	return nil
}

// configuredGateway is the URL someone has already given: the flag, else
// the environment.
func configuredGateway(flagURL string) string {
	for _, v := range []string{flagURL, os.Getenv("METAFORGE_URL"), os.Getenv("METAFORGE_GATEWAY_URL")} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// gatewayCandidates are the URLs to probe, in order, without repeats: the
// configured one (with /mcp when it names no path), the same host on the
// MCP sidecar's :8765 (in the compose file the gateway's own /mcp 404s),
// then the well-known ones.
func gatewayCandidates(configured string, wellKnown []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	if configured != "" {
		u := mcpEndpoint(configured)
		add(u)
		if p, err := url.Parse(u); err == nil && p.Hostname() != "" {
			add(p.Scheme + "://" + net.JoinHostPort(p.Hostname(), "8765") + "/mcp")
		}
	}
	for _, u := range wellKnown {
		add(u)
	}
	return out
}

// mcpEndpoint completes what a person typed: a scheme when there is none,
// /mcp when there is no path. A path they gave is theirs and kept.
func mcpEndpoint(raw string) string {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/mcp"
	}
	return u.String()
}

// probeOptions say how to ask a candidate.
type probeOptions struct {
	Timeout time.Duration
	// APIKey is presented as a bearer token when set: an API key or an
	// OAuth token, the server's auth accepts either there.
	APIKey string
	// ClientName is what initialize names this client.
	ClientName string
}

// gatewayProbe is what one candidate said.
type gatewayProbe struct {
	URL string
	// Found: it named itself metaforge-mcp, or asked for credentials,
	// which means the URL is right and the token is the next step.
	Found     bool
	NeedsAuth bool
	// Status is the HTTP status that ended the probe, when one did.
	Status   int
	Version  string
	Protocol string
	// Said is what a candidate that is not a gateway answered.
	Said string
}

// findGateway probes the candidates in order and stops at the first
// gateway. The session is open when the gateway let us in; the caller
// closes it. tried is every probe made, in order.
func findGateway(ctx context.Context, candidates []string, opts probeOptions) (*mcp.ClientSession, *gatewayProbe, []gatewayProbe) {
	var tried []gatewayProbe
	for _, c := range candidates {
		cs, p := dialGateway(ctx, c, opts)
		tried = append(tried, p)
		if p.Found {
			return cs, &tried[len(tried)-1], tried
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, nil, tried
}

// dialGateway runs an MCP initialize against endpoint. It counts only a
// server naming itself metaforge-mcp: another MCP server answers
// initialize just as happily, and reporting it would send the user after
// stranger failures further from the cause.
func dialGateway(ctx context.Context, endpoint string, opts probeOptions) (*mcp.ClientSession, gatewayProbe) {
	p := gatewayProbe{URL: endpoint}
	if opts.Timeout <= 0 {
		opts.Timeout = probeTimeout
	}
	if opts.ClientName == "" {
		opts.ClientName = "metaforge-connect"
	}
	watch := &watchedTransport{base: http.DefaultTransport, bearer: opts.APIKey}
	transport := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           &http.Client{Transport: watch},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	client := mcp.NewClient(&mcp.Implementation{Name: opts.ClientName, Version: version}, nil)
	cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cs, err := client.Connect(cctx, transport, nil)
	if err != nil {
		status, netErr := watch.last()
		p.Status = status
		switch {
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			p.Found, p.NeedsAuth = true, true
		case status >= 300:
			p.Said = fmt.Sprintf("%d %s", status, http.StatusText(status))
		case errors.Is(netErr, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNREFUSED):
			p.Said = "connection refused"
		case cctx.Err() != nil || isTimeout(netErr):
			p.Said = fmt.Sprintf("timeout: no answer within %s", opts.Timeout)
		case isNoSuchHost(netErr):
			p.Said = "no such host"
		case netErr != nil:
			p.Said = netErr.Error()
		case status != 0:
			p.Said = "answered, but not as an MCP server: " + err.Error()
		default:
			p.Said = err.Error()
		}
		return nil, p
	}
	res := cs.InitializeResult()
	if res == nil || res.ServerInfo == nil || res.ServerInfo.Name != mcpserver.ServerName {
		name := ""
		if res != nil && res.ServerInfo != nil {
			name = res.ServerInfo.Name
		}
		p.Said = fmt.Sprintf("an MCP server, but not metaforge (name %q)", name)
		_ = cs.Close()
		return nil, p
	}
	p.Found, p.Version, p.Protocol = true, res.ServerInfo.Version, res.ProtocolVersion
	return cs, p
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isNoSuchHost(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

// watchedTransport presents the credentials and remembers how the last
// exchange went: the SDK's errors keep the HTTP status only as text, and
// 401 versus 404 versus refused is the whole of connect's answer.
type watchedTransport struct {
	base   http.RoundTripper
	bearer string

	mu     sync.Mutex
	status int
	err    error
}

func (t *watchedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.bearer != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+t.bearer)
	}
	resp, err := t.base.RoundTrip(r)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.status, t.err = 0, err
	if resp != nil {
		t.status = resp.StatusCode
	}
	return resp, err
}

func (t *watchedTransport) last() (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, t.err
}

// writeFound is the answer to paste into a plugin's gateway_url setting.
func writeFound(out io.Writer, p gatewayProbe) {
	fmt.Fprintf(out, "Found a MetaForge gateway at %s\n", p.URL)
	if p.NeedsAuth {
		fmt.Fprintf(out, "  it answered %d %s: the URL is right; the token is the next step: set METAFORGE_MCP_API_KEY, or present a bearer token\n",
			p.Status, http.StatusText(p.Status))
		return
	}
	fmt.Fprintf(out, "  version %s, MCP %s\n", p.Version, p.Protocol)
}

// writeNotFound lists every candidate with what it said, and the ways
// forward.
func writeNotFound(out io.Writer, tried []gatewayProbe) {
	fmt.Fprintln(out, "No MetaForge gateway found. Tried, in order:")
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	for _, p := range tried {
		fmt.Fprintf(tw, "  %s\t%s\n", p.URL, p.Said)
	}
	_ = tw.Flush()
	fmt.Fprint(out, `
Ways forward:
  - start one on this machine: make run (or metaforge serve), then run metaforge connect again
  - enter a team or hosted gateway's URL: metaforge connect --url URL (or set METAFORGE_URL)
  - run with no gateway at all: metaforge mcp serves MCP over stdio to a local client
`)
}
