package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// serveFlags say which metaforge serve a deciding verb talks to and who
// it decides as. Every decision goes through serve's REST API, never to
// the workflow through Temporal, so the CLI meets the same rules as the
// pages: a verified person decides, and never her own request.
type serveFlags struct {
	dataDir *string
	url     *string
	token   *string
}

func registerServeFlags(fs *flag.FlagSet) serveFlags {
	home, _ := os.UserHomeDir()
	return serveFlags{
		dataDir: fs.String("data-dir", filepath.Join(home, ".metaforge"), "the data dir of the metaforge serve to ask: its operator token is read from there"),
		url:     fs.String("url", "", "the metaforge serve (default $METAFORGE_URL, else $METAFORGE_GATEWAY_URL, else found as metaforge connect finds it)"),
		token:   fs.String("token", os.Getenv("METAFORGE_TOKEN"), "a bearer token to act with instead of the operator token (default $METAFORGE_TOKEN)"),
	}
}

// serveClient is a metaforge serve's REST API, reached with a credential
// that identifies a person.
type serveClient struct {
	base   string
	token  string
	apiKey string
	http   *http.Client
}

// open finds the server and the credential. The credential is settled
// first: without one there is nothing to ask a server.
func (f serveFlags) open(ctx context.Context) (*serveClient, error) {
	c := &serveClient{token: strings.TrimSpace(*f.token), apiKey: os.Getenv("METAFORGE_MCP_API_KEY"), http: &http.Client{Timeout: 2 * time.Minute}}
	if c.token == "" {
		t, err := readOperatorToken(*f.dataDir)
		if err != nil {
			return nil, err
		}
		c.token = t
	}
	base, err := serveBase(ctx, configuredGateway(*f.url))
	if err != nil {
		return nil, err
	}
	c.base = base
	return c, nil
}

// serveBase is the base URL of the serve to talk to: the one configured,
// else the first of connect's well-known gateways that answers as
// MetaForge. A configured URL is never traded for another (not even its
// :8765 sibling, which connect also tries): a decision goes where it was
// sent or nowhere.
func serveBase(ctx context.Context, configured string) (string, error) {
	candidates := gatewayCandidates("", wellKnownGateways)
	if configured != "" {
		candidates = []string{mcpEndpoint(configured)}
	}
	cs, found, tried := findGateway(ctx, candidates, probeOptions{
		Timeout: probeTimeout, APIKey: os.Getenv("METAFORGE_MCP_API_KEY"), ClientName: "metaforge-cli"})
	if cs != nil {
		_ = cs.Close()
	}
	if found == nil {
		var said []string
		for _, p := range tried {
			said = append(said, p.URL+" ("+p.Said+")")
		}
		return "", fmt.Errorf("no metaforge serve is reachable (tried %s): start metaforge serve, or pass --url (or set METAFORGE_URL) to the one holding the calls",
			strings.Join(said, ", "))
	}
	u, err := url.Parse(found.URL)
	if err != nil {
		return "", err
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/mcp")
	u.RawQuery = ""
	return strings.TrimSuffix(u.String(), "/"), nil
}

// do sends one request and decodes the answer into into; an answer that
// is not 2xx is an error carrying the server's own sentence.
func (c *serveClient) do(ctx context.Context, method, path string, body, into any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.apiKey != "" {
		req.Header.Set("X-API-Key", c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("metaforge serve is not reachable at %s: %v (start it, or pass --url)", c.base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, c.base+path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(raw))
		}
		return &serveError{Status: resp.StatusCode, Text: e.Error}
	}
	if into == nil {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%s %s answered what is not JSON (%v): is %s a metaforge serve?", method, path, err, c.base)
	}
	return nil
}

// serveError is a refusal from the server, passed on in its own words.
type serveError struct {
	Status int
	Text   string
}

func (e *serveError) Error() string {
	return fmt.Sprintf("%s (HTTP %d)", e.Text, e.Status)
}
