package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/health"
)

// doctor's exit statuses: a script can tell "nothing to talk to" from
// "talking, but something behind it is down".
const (
	doctorHealthy     = 0
	doctorUnreachable = 1
	doctorDegraded    = 2
)

// doctorCallTimeout bounds health.check: each probe gets 3 s, but the call
// goes through a workflow like every other.
const doctorCallTimeout = 30 * time.Second

// runDoctor is `metaforge doctor`: it reaches the gateway as connect would
// (or at --url), asks health.check, and says in plain text what is down and
// what to do about it. It reads the same report /metaforge:doctor does, so
// what the report cannot say, neither can this.
func runDoctor(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	gateway := fs.String("url", "", "the gateway to check (default: the one metaforge connect finds)")
	apiKey := fs.String("api-key", os.Getenv("METAFORGE_MCP_API_KEY"), "the server's API key, or a bearer token (default $METAFORGE_MCP_API_KEY)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := probeOptions{Timeout: probeTimeout, APIKey: *apiKey, ClientName: "metaforge-doctor"}
	candidates := gatewayCandidates(configuredGateway(""), wellKnownGateways)
	if *gateway != "" {
		candidates = []string{mcpEndpoint(*gateway)}
	}
	return exitCode(diagnose(ctx, out, candidates, opts))
}

// exitCode is nil for healthy, so main exits 0 without a word.
func exitCode(code int) error {
	if code == doctorHealthy {
		return nil
	}
	return exitStatus(code)
}

// doctorReport is health.check's answer, with the blocks the MCP server
// adds. Profile stays absent when the server does not report one, which is
// not the same as reporting that no profile is in force.
type doctorReport struct {
	health.Report
	Auth    *authPosture  `json:"auth"`
	Client  *clientReport `json:"client"`
	Profile *toolProfile  `json:"profile"`
}

type authPosture struct {
	Mode             string `json:"mode"`
	Transport        string `json:"transport"`
	IdentifiesCaller bool   `json:"identifies_caller"`
	Caller           string `json:"caller"`
	Detail           string `json:"detail"`
}

type clientReport struct {
	Connected          bool   `json:"connected"`
	Name               string `json:"name"`
	Version            string `json:"version"`
	ProtocolRequested  string `json:"protocol_requested"`
	ProtocolNegotiated string `json:"protocol_negotiated"`
	ProtocolSkew       bool   `json:"protocol_skew"`
	Detail             string `json:"detail"`
}

type toolProfile struct {
	Active          *string  `json:"active"`
	ServedToolCount *int     `json:"served_tool_count"`
	Available       []string `json:"available"`
	Missing         []string `json:"missing"`
	Withheld        []struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"withheld"`
	Detail string `json:"detail"`
	Error  string `json:"error"`
}

// diagnose writes the report and returns the exit status.
func diagnose(ctx context.Context, out io.Writer, candidates []string, opts probeOptions) int {
	cs, found, tried := findGateway(ctx, candidates, opts)
	if found == nil {
		writeNotFound(out, tried)
		return doctorUnreachable
	}
	if found.NeedsAuth {
		fmt.Fprintf(out, "The MetaForge gateway at %s refused this connection (%d %s).\n", found.URL, found.Status, http.StatusText(found.Status))
		if opts.APIKey == "" {
			fmt.Fprintln(out, "  The URL is right; the token is the next step: pass --api-key KEY or set METAFORGE_MCP_API_KEY (an API key or a bearer token).")
		} else {
			fmt.Fprintln(out, "  The key or token presented was not accepted: check it against the server's METAFORGE_MCP_API_KEY, or get a fresh token.")
		}
		return doctorUnreachable
	}
	defer cs.Close()
	fmt.Fprintf(out, "MetaForge gateway at %s\n  version %s, MCP %s\n\n", found.URL, found.Version, found.Protocol)

	report, err := callHealth(ctx, cs)
	if err != nil {
		fmt.Fprintf(out, "health.check did not answer through MCP: %v\n", err)
		// /healthz needs no workflow, so it still answers when the path
		// every tool call takes (Temporal) is what is broken.
		report, err = fetchHealthz(ctx, found.URL, opts)
		if err != nil {
			fmt.Fprintf(out, "  nor did %s: %v\n", healthzURL(found.URL), err)
			fmt.Fprintln(out, "  The server accepts connections but cannot report its health: read its log (metaforge serve writes it to stderr).")
			return doctorUnreachable
		}
		fmt.Fprintf(out, "  %s answered instead; it cannot say who is connected or how.\n\n", healthzURL(found.URL))
	}
	served, listErr := countTools(ctx, cs)

	writeStatus(out, report)
	writeAdapters(out, report.Adapters)
	writeComponents(out, report.Components)
	writeAuth(out, report.Auth)
	writeClient(out, report.Client)
	writeProfile(out, report)
	if listErr != nil {
		fmt.Fprintf(out, "Tools: %d registered (tool_count); tools/list failed: %v\n", report.ToolCount, listErr)
	} else {
		fmt.Fprintf(out, "Tools: %d served on this connection, %d registered (tool_count)\n", served, report.ToolCount)
	}
	if report.Status != "healthy" {
		return doctorDegraded
	}
	return doctorHealthy
}

// callHealth asks health.check to probe now (refresh) rather than answer
// its last measurement: a doctor is run when something seems wrong, or
// was just fixed. A server older than refresh refuses the argument, naming
// it, and is asked plainly.
func callHealth(ctx context.Context, cs *mcp.ClientSession) (doctorReport, error) {
	r, err := askHealth(ctx, cs, map[string]any{"refresh": true})
	if err != nil && strings.Contains(err.Error(), "refresh") {
		return askHealth(ctx, cs, map[string]any{})
	}
	return r, err
}

func askHealth(ctx context.Context, cs *mcp.ClientSession, args map[string]any) (doctorReport, error) {
	ctx, cancel := context.WithTimeout(ctx, doctorCallTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "health.check", Arguments: args})
	if err != nil {
		return doctorReport{}, err
	}
	if res.IsError {
		return doctorReport{}, errors.New(toolText(res))
	}
	var raw []byte
	if res.StructuredContent != nil {
		if raw, err = json.Marshal(res.StructuredContent); err != nil {
			return doctorReport{}, err
		}
	} else {
		raw = []byte(toolText(res))
	}
	var r doctorReport
	if err := json.Unmarshal(raw, &r); err != nil {
		return doctorReport{}, fmt.Errorf("the report is not JSON: %w", err)
	}
	return r, nil
}

func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// healthzURL is /healthz beside the MCP endpoint.
func healthzURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/mcp") + "/healthz"
	u.RawQuery = ""
	return u.String()
}

func fetchHealthz(ctx context.Context, endpoint string, opts probeOptions) (doctorReport, error) {
	ctx, cancel := context.WithTimeout(ctx, doctorCallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, healthzURL(endpoint), nil)
	if err != nil {
		return doctorReport{}, err
	}
	c := &http.Client{Transport: &watchedTransport{base: http.DefaultTransport, bearer: opts.APIKey}}
	resp, err := c.Do(req)
	if err != nil {
		return doctorReport{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return doctorReport{}, fmt.Errorf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	var r doctorReport
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return doctorReport{}, fmt.Errorf("the report is not JSON: %w", err)
	}
	return r, nil
}

func countTools(ctx context.Context, cs *mcp.ClientSession) (int, error) {
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func writeStatus(out io.Writer, r doctorReport) {
	fmt.Fprintf(out, "Status: %s\n", r.Status)
	if r.Detail != "" {
		fmt.Fprintf(out, "  %s\n", r.Detail)
	}
	fmt.Fprintln(out)
}

func writeAdapters(out io.Writer, list []health.AdapterReport) {
	down := 0
	for _, a := range list {
		if !a.Reachable {
			down++
		}
	}
	fmt.Fprintf(out, "Adapters: %d of %d answered\n", len(list)-down, len(list))
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	for _, a := range list {
		state := "ok"
		if !a.Reachable {
			state = "DOWN"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d tools\t%s\n", state, a.AdapterID, orDash(a.Version), a.ToolsRegistered, a.Error)
	}
	_ = tw.Flush()
	for _, a := range list {
		if !a.Reachable {
			fmt.Fprintf(out, "  -> %s: %s\n", a.AdapterID, adapterAdvice(a))
		}
	}
	fmt.Fprintln(out)
}

// adapterAdvice keeps health's two failure shapes apart, because they need
// different fixes.
func adapterAdvice(a health.AdapterReport) string {
	switch {
	case strings.HasPrefix(a.Error, "no answer within"):
		return "nothing came back: the adapter is wedged, or the network to it is; restart it, or check the route to its URL. Its tools are registered but calls to them will fail."
	case strings.HasPrefix(a.Error, "adapter reports itself"):
		return "it answers but says it is not healthy: read its own log. Its tools may fail."
	}
	return "it answered with an error: start its container or process, then run metaforge doctor again. Its tools are registered but calls to them will fail."
}

func writeComponents(out io.Writer, comps map[string]health.Component) {
	if len(comps) == 0 {
		return
	}
	names := make([]string, 0, len(comps))
	for n := range comps {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(out, "Components:")
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	for _, n := range names {
		c := comps[n]
		state := "ok"
		switch {
		case c.Mode == "none":
			state = "off"
		case !c.Reachable:
			state = "DOWN"
		}
		where := c.Mode
		if c.Address != "" {
			where += " at " + c.Address
		}
		if !c.Durable && c.Mode != "none" {
			where += ", not durable"
		}
		said := c.Detail
		if c.Error != "" {
			said = c.Error
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", state, n, where, said)
	}
	_ = tw.Flush()
	for _, n := range names {
		if c := comps[n]; !c.Reachable && c.Mode != "none" {
			fmt.Fprintf(out, "  -> %s: %s\n", n, componentAdvice(n))
		}
	}
	fmt.Fprintln(out)
}

func componentAdvice(name string) string {
	switch name {
	case "temporal":
		return "every tool call runs through Temporal, so none will run: start the cluster TEMPORAL_ADDRESS names, or restart metaforge serve to get its embedded one back."
	case "twin":
		return "the twin's store does not answer: start Neo4j at NEO4J_URI (check NEO4J_USER/NEO4J_PASSWORD), or unset NEO4J_URI for the in-memory twin."
	case "ledger":
		return "calls are not being recorded: start PostgreSQL at DATABASE_URL, or unset DATABASE_URL to run without a ledger."
	case "solver_runtime":
		return "solver tools cannot start: check --runtime / METAFORGE_RUNTIME and that the runtime (docker, or the local solvers) is installed and running."
	case "file_access", "files":
		return "tools cannot read or write their files: check the allowed roots exist and this server's user can use them."
	}
	return "see its error above; its tools may fail until it answers."
}

func writeAuth(out io.Writer, a *authPosture) {
	if a == nil {
		fmt.Fprint(out, "Auth: not reported\n\n")
		return
	}
	fmt.Fprintf(out, "Auth: %s over %s; identifies the caller: %s\n", a.Mode, orDash(a.Transport), yesNo(a.IdentifiesCaller))
	if a.Detail != "" {
		fmt.Fprintf(out, "  %s\n", a.Detail)
	}
	switch a.Mode {
	case "open":
		if a.Transport == "http" {
			fmt.Fprintln(out, "  -> to admit only those holding a key, set METAFORGE_MCP_API_KEY on the server; to know who is calling, configure OAuth (METAFORGE_MCP_JWT_SECRET).")
		}
	case "unknown":
		fmt.Fprintln(out, "  -> the transport never declared its auth: assume nothing protects this connection.")
	}
	fmt.Fprintln(out)
}

func writeClient(out io.Writer, c *clientReport) {
	newest := mcp.SupportedProtocolVersions()[0]
	if c == nil || !c.Connected {
		fmt.Fprintf(out, "Client: not reported (this doctor speaks up to MCP %s)\n\n", newest)
		return
	}
	fmt.Fprintf(out, "Client: %s %s asked for MCP %s; the server answered %s", c.Name, c.Version, c.ProtocolRequested, c.ProtocolNegotiated)
	if !c.ProtocolSkew {
		fmt.Fprintln(out, " (no skew)")
	} else {
		fmt.Fprintln(out, " (skew)")
		fmt.Fprintf(out, "  %s\n", c.Detail)
	}
	if c.ProtocolRequested != newest {
		fmt.Fprintf(out, "  (this doctor speaks MCP up to %s; the server did not take it, so the handshake used initialize at %s)\n", newest, c.ProtocolRequested)
	}
	fmt.Fprintln(out)
}

// writeProfile reconciles tool_count with what this connection is served:
// a profile makes the list shorter by design, which is not an adapter being
// down.
func writeProfile(out io.Writer, r doctorReport) {
	p := r.Profile
	if p == nil {
		fmt.Fprint(out, "Profile: this server reports no profile block, so a tool list shorter than tool_count cannot be put down to a profile here.\n\n")
		return
	}
	served := "?"
	if p.ServedToolCount != nil {
		served = fmt.Sprint(*p.ServedToolCount)
	}
	switch {
	case p.Error != "":
		fmt.Fprintf(out, "Profile: error: %s\n", p.Error)
	case p.Active == nil:
		fmt.Fprintf(out, "Profile: none in force; this connection is served %s of %d registered tools.\n", served, r.ToolCount)
	default:
		fmt.Fprintf(out, "Profile: %s, serving %s of %d registered tools\n", *p.Active, served, r.ToolCount)
	}
	if p.Detail != "" {
		fmt.Fprintf(out, "  %s\n", p.Detail)
	}
	if len(p.Missing) > 0 && !strings.Contains(p.Detail, "configuration") {
		fmt.Fprintf(out, "  -> the profile asks for tools no loaded adapter registers (%s): a configuration mistake, not a smaller profile.\n", strings.Join(p.Missing, ", "))
	}
	if len(p.Available) > 0 {
		fmt.Fprintf(out, "  available profiles (connect with ?profile=NAME): %s\n", strings.Join(p.Available, ", "))
	}
	for _, w := range p.Withheld {
		fmt.Fprintf(out, "  withheld: %s: %s\n", w.Name, w.Reason)
	}
	fmt.Fprintln(out)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
