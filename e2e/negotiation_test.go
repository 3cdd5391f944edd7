//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/mcpserver"
)

// sdkRevisions are the MCP revisions one client SDK speaks, as installed.
type sdkRevisions struct {
	sdk       string
	supported []string
	latest    string
}

// typeScriptRevisions reads SUPPORTED_PROTOCOL_VERSIONS and
// LATEST_PROTOCOL_VERSION from e2e/node_modules/@modelcontextprotocol/sdk.
func typeScriptRevisions(t *testing.T) sdkRevisions {
	t.Helper()
	script := `import { SUPPORTED_PROTOCOL_VERSIONS as s, LATEST_PROTOCOL_VERSION as l } from '@modelcontextprotocol/sdk/types.js';
console.log(JSON.stringify({ supported: s, latest: l }));`
	out, err := exec.Command(nodePath, "--input-type=module", "-e", script).Output()
	if err != nil {
		t.Fatalf("read the TypeScript SDK's protocol revisions (node_modules/@modelcontextprotocol/sdk/types.js): %v; run npm ci in e2e/", err)
	}
	return decodeRevisions(t, "TypeScript SDK", out)
}

// pythonRevisions reads SUPPORTED_PROTOCOL_VERSIONS and
// LATEST_PROTOCOL_VERSION from the installed `mcp` package (mcp_types.version
// since 2.x, mcp.shared.version before). ok is false without python3.
func pythonRevisions(t *testing.T) (r sdkRevisions, ok bool) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		return r, false
	}
	script := `import json
try:
    from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS as s, LATEST_PROTOCOL_VERSION as l
except ImportError:
    from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS as s, LATEST_PROTOCOL_VERSION as l
print(json.dumps({"supported": list(s), "latest": l}))`
	out, err := exec.Command(py, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("read the Python MCP SDK's protocol revisions: %v\n%s\ninstall it: python3 -m pip install mcp==%s (deploy/test-deps.sh does)",
			err, tail(string(out), 5), pythonMCPVersion)
	}
	return decodeRevisions(t, "Python SDK", out), true
}

func decodeRevisions(t *testing.T, sdk string, out []byte) sdkRevisions {
	t.Helper()
	var v struct {
		Supported []string `json:"supported"`
		Latest    string   `json:"latest"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s revisions: %v: %q", sdk, err, out)
	}
	if len(v.Supported) == 0 || v.Latest == "" {
		t.Fatalf("the %s lists no protocol revisions (supported %v, latest %q): the test would check nothing", sdk, v.Supported, v.Latest)
	}
	if !slices.Contains(v.Supported, v.Latest) {
		v.Supported = append(v.Supported, v.Latest)
	}
	return sdkRevisions{sdk: sdk, supported: v.Supported, latest: v.Latest}
}

// futureRevision is a revision no SDK speaks yet: a client ahead of us.
const futureRevision = "2099-01-01"

// wantRevision is the answer to a client asking for requested (spec 003,
// FORGE-416): that one if served; the newest served when the client is
// ahead of us or older than all we serve; otherwise, for a revision
// between two we serve, the newest served not newer than it.
func wantRevision(requested string) string {
	served := mcpserver.ProtocolVersions
	if slices.Contains(served, requested) {
		return requested
	}
	if requested > slices.Max(served) || requested < slices.Min(served) {
		return slices.Max(served)
	}
	var below string
	for _, v := range served {
		if v < requested && v > below {
			below = v
		}
	}
	return below
}

// inventedRevisions are revisions no SDK sends, each the day after one we
// serve (so between it and the next, or ahead of all), and one before all
// of them, each with what such a client speaks: the served revisions up to
// its own, since it pinned an older revision than the newest.
func inventedRevisions() []sdkRevisions {
	var out []sdkRevisions
	served := mcpserver.ProtocolVersions
	for i, v := range served[:len(served)-1] {
		day, err := time.Parse(time.DateOnly, v)
		if err != nil {
			panic(fmt.Sprintf("served revision %q is not a date: %v", v, err))
		}
		rev := day.AddDate(0, 0, 1).Format(time.DateOnly)
		out = append(out, sdkRevisions{sdk: "a client pinned at " + rev, latest: rev,
			supported: append(slices.Clone(served[:i+1]), rev)})
	}
	// No answer fits a client older than all we serve; it is told the
	// newest, and what it "speaks" is listed so as not to fail on that.
	const older = "2024-01-01"
	return append(out, sdkRevisions{sdk: "a client older than all we serve", latest: older,
		supported: append(slices.Clone(served), older)})
}

// TestProtocolNegotiation initializes metaforge, over Streamable HTTP and
// over stdio, at every revision the installed TypeScript and Python SDKs
// speak, at a future one and at invented ones between and before those we
// serve, and checks the revision answered (wantRevision) is one the asking
// client speaks too: a future client is told the newest we speak, one
// pinned between two is told the older of the two.
// Over HTTP, health.check's client block must then report the same.
// Upgrading an SDK extends the test.
func TestProtocolNegotiation(t *testing.T) {
	sdks := []sdkRevisions{typeScriptRevisions(t)}
	if py, ok := pythonRevisions(t); ok {
		sdks = append(sdks, py)
	} else {
		t.Log("no python3: checking the TypeScript SDK's revisions only")
	}
	newest := slices.Max(mcpserver.ProtocolVersions)
	if newest < "2025-06-18" {
		t.Fatalf("the newest revision served is %s; MetaForge needs 2025-06-18 or later (elicitation)", newest)
	}
	type ask struct {
		revision string
		sdks     []sdkRevisions // the SDKs that may send it
	}
	var asks []ask
	add := func(rev string, s sdkRevisions) {
		for i := range asks {
			if asks[i].revision == rev {
				asks[i].sdks = append(asks[i].sdks, s)
				return
			}
		}
		asks = append(asks, ask{rev, []sdkRevisions{s}})
	}
	for _, s := range sdks {
		t.Logf("%s: supported %v, latest %s", s.sdk, s.supported, s.latest)
		for _, rev := range s.supported {
			add(rev, s)
		}
	}
	add(futureRevision, sdkRevisions{sdk: "a future client", supported: append(slices.Clone(mcpserver.ProtocolVersions), futureRevision)})
	for _, inv := range inventedRevisions() {
		add(inv.latest, inv)
	}

	check := func(t *testing.T, transport string, a ask, got string) {
		t.Helper()
		want := wantRevision(a.revision)
		if got != want {
			t.Errorf("over %s, initialize at %s was answered %q, want %s (served: %v)", transport, a.revision, got, want, mcpserver.ProtocolVersions)
		}
		for _, s := range a.sdks {
			if !slices.Contains(s.supported, got) {
				t.Errorf("over %s, initialize at %s was answered %s, which the %s does not speak (%v)", transport, a.revision, got, s.sdk, s.supported)
			}
		}
	}

	ports := freePorts(t, 3)
	serve(t, ports[0], ports[1], ports[2])
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[2])
	answered := map[string]string{}
	for _, a := range asks {
		s := &httpSession{url: url, hc: &http.Client{Timeout: 30 * time.Second}}
		got := initializeHTTPAt(t, s, a.revision)
		check(t, "Streamable HTTP", a, got)
		checkClientReport(t, s, a.revision, got)
		answered[a.revision] = "HTTP " + got
	}

	// Over stdio each revision is a process of its own, on the serve's
	// Temporal (shared), so none embeds a server of its own.
	for _, a := range asks {
		c := startStdio(t, "metaforge mcp at "+a.revision, ports[0])
		got := initializeStdioAt(t, c, a.revision)
		check(t, "stdio", a, got)
		answered[a.revision] += ", stdio " + got
		c.close(t)
		if bad := noisyLines(c.p.stderr.String()); len(bad) > 0 {
			t.Errorf("metaforge mcp at %s wrote warning or error lines:\n%s", a.revision, strings.Join(bad, "\n"))
		}
	}
	for _, a := range asks {
		t.Logf("asked %s: answered %s", a.revision, answered[a.revision])
	}
}

// initializeRequest asks for revision.
func initializeRequest(revision string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"metaforge-e2e-negotiation","version":"0"}}}`, revision))
}

// answeredRevision is the protocolVersion of an initialize result.
func answeredRevision(t *testing.T, transport, revision string, m rpcMsg) string {
	t.Helper()
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if m.errCode != 0 || json.Unmarshal(m.result, &res) != nil || res.ServerInfo.Name != "metaforge-mcp" || res.ProtocolVersion == "" {
		t.Fatalf("over %s, initialize at %s did not succeed: %s", transport, revision, m)
	}
	return res.ProtocolVersion
}

// initializeHTTPAt opens session s at revision and returns the revision
// the server answered, which s then names in Mcp-Protocol-Version.
func initializeHTTPAt(t *testing.T, s *httpSession, revision string) string {
	t.Helper()
	status, m, _, raw := s.post(t, initializeRequest(revision), false)
	if status != http.StatusOK || s.id == "" {
		t.Fatalf("initialize at %s over HTTP: HTTP %d, session %q: %s", revision, status, s.id, raw)
	}
	s.version = answeredRevision(t, "Streamable HTTP", revision, m)
	if status, _, _, raw := s.post(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), true); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized at %s: HTTP %d: %s", s.version, status, raw)
	}
	return s.version
}

// checkClientReport calls health.check on s and checks that its client
// block tells the revision asked for and the one answered, and whether they
// differ (protocol_skew), as initialize did.
func checkClientReport(t *testing.T, s *httpSession, requested, negotiated string) {
	t.Helper()
	status, m, _, raw := s.post(t, []byte(`{"jsonrpc":"2.0","id":"hc","method":"tools/call","params":{"name":"health.check","arguments":{}}}`), true)
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Client struct {
				Requested  string `json:"protocol_requested"`
				Negotiated string `json:"protocol_negotiated"`
				Skew       *bool  `json:"protocol_skew"`
			} `json:"client"`
		} `json:"structuredContent"`
	}
	if status != http.StatusOK || m.errCode != 0 || json.Unmarshal(m.result, &res) != nil || res.IsError {
		t.Fatalf("health.check after initialize at %s: HTTP %d: %s", requested, status, raw)
	}
	c := res.StructuredContent.Client
	if c.Requested != requested || c.Negotiated != negotiated || c.Skew == nil || *c.Skew != (requested != negotiated) {
		t.Errorf("health.check after initialize at %s (answered %s): client block says requested %q, negotiated %q, skew %v",
			requested, negotiated, c.Requested, c.Negotiated, c.Skew)
	}
}

// initializeStdioAt initializes c at revision and returns the revision the
// server answered.
func initializeStdioAt(t *testing.T, c *stdioConn, revision string) string {
	t.Helper()
	c.send(t, initializeRequest(revision))
	m := c.next(t, "initialize at "+revision)
	if m.id != `"init"` {
		t.Fatalf("initialize at %s over stdio: answer to id %s: %s", revision, m.id, m)
	}
	got := answeredRevision(t, "stdio", revision, m)
	c.send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return got
}
