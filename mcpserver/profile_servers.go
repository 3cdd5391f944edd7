package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/protocol"
)

// profileHeader carries a request's ?profile= to the server that refuses
// it, which the SDK shows only the request's headers. It is always set
// from the URL, never taken from the client.
const profileHeader = "X-Metaforge-Profile"

// connectionProfile is what one MCP server serves: every tool (profile
// nil), one profile's, or, when the profile asked for cannot be served,
// nothing but health.check.
type connectionProfile struct {
	profile *Profile
	refused bool
}

type profileKey struct{}

// profileServers are the SDK servers built so far, one per profile ("" for
// every tool), and the one that refuses profiles that cannot be served.
type profileServers struct {
	mu      sync.Mutex
	byName  map[string]*mcp.Server
	refuser *mcp.Server
}

// serverFor is the SDK server for a connection that chose the profile name
// ("" for every tool), built on first use. An unknown or withheld name gets
// the refusing server, never the full one.
func (s *Server) serverFor(name string) *mcp.Server {
	s.servers.mu.Lock()
	defer s.servers.mu.Unlock()
	if name != "" {
		if _, err := lookupProfile(name); err != nil {
			if s.servers.refuser == nil {
				s.servers.refuser = s.newMCPServer(connectionProfile{refused: true})
			}
			return s.servers.refuser
		}
	}
	if srv, ok := s.servers.byName[name]; ok {
		return srv
	}
	conn := connectionProfile{}
	if name != "" {
		p, _ := lookupProfile(name)
		conn.profile = &p
	}
	srv := s.newMCPServer(conn)
	if s.servers.byName == nil {
		s.servers.byName = map[string]*mcp.Server{}
	}
	s.servers.byName[name] = srv
	return srv
}

// profileOf is the profile a request chose: its ?profile=, else the
// deployment's default. The connection's own choice wins.
func (s *Server) profileOf(r *http.Request) string {
	if p := r.URL.Query().Get("profile"); p != "" {
		return p
	}
	return s.opts.Profile
}

// carryProfile hands the request's choice of profile to the SDK as a
// header, replacing any the client sent.
func (s *Server) carryProfile(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(profileHeader, s.profileOf(r))
		next.ServeHTTP(w, r)
	})
}

// requestedProfile is the profile a refused request asked for: over HTTP
// its ?profile=, over stdio the deployment default.
func (s *Server) requestedProfile(req mcp.Request) string {
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		if p := ex.Header.Get(profileHeader); p != "" {
			return p
		}
	}
	return s.opts.Profile
}

// newMCPServer is one SDK server serving conn. Every server is built here,
// so a profile's connection has the same middleware and the same
// registrations as a full one, less the tools outside its profile.
func (s *Server) newMCPServer(conn connectionProfile) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "MetaForge", Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions: "MetaForge runs hardware-design tools (CAD, meshing, FEA, circuit simulation, board checks) as durable workflows. " +
			"Every result carries _meta.callId; cite it, and fetch a result later with call.get_result if a connection drops.",
		Logger:                    s.opts.Logger,
		SupportedProtocolVersions: ProtocolVersions,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
		},
	})
	// Each line wraps the ones above it, so a request meets the Tasks
	// shown to its revision (showTasks, last to touch an answer), the
	// profile (a connection refused whole records nothing), then the call
	// observer, the profile's own refusal, tracing, the refusals that
	// answer before a handler, a task-augmented call (taskCalls), and
	// the revision initialize answers (answerRevision).
	srv.AddReceivingMiddleware(answerRevision, s.rejectUnknownTools, promptsMiddleware, s.taskCalls, carryExtra)
	srv.AddReceivingMiddleware(s.opts.Middleware...)
	srv.AddReceivingMiddleware(s.observeCalls, s.keepToProfile(conn))
	srv.AddReceivingMiddleware(s.profileMiddleware(conn))
	srv.AddReceivingMiddleware(s.showTasks)
	s.register(srv, conn)
	return srv
}

// register is the one place a server is given what it serves: its tools,
// the resources, the prompts, and anything added later, so every
// profile's server has it too.
func (s *Server) register(srv *mcp.Server, conn connectionProfile) {
	for _, m := range s.opts.Registry.Manifests() {
		if conn.serves(m.ToolID) {
			srv.AddTool(toolFor(m, s.opts.AllowTwinMutations), s.callTool)
		}
	}
	if conn.refused {
		return
	}
	s.registerTasks(srv)
	s.registerResources(srv)
	registerPrompts(srv)
}

// serves says whether a connection may list and call a tool. A refused
// connection keeps health.check, so the doctor can say what went wrong.
func (c connectionProfile) serves(toolID string) bool {
	switch {
	case c.refused:
		return toolID == healthToolID
	case c.profile == nil:
		return true
	default:
		return c.profile.Has(toolID)
	}
}

// profileMiddleware puts the connection's profile in every request's
// context (health.check reports it), refuses everything but the handshake
// and health.check on a connection whose profile cannot be served, and
// says on tools/list why the list is shorter than the catalogue.
func (s *Server) profileMiddleware(conn connectionProfile) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx = context.WithValue(ctx, profileKey{}, conn)
			if conn.refused && !strings.HasPrefix(method, "notifications/") && method != "initialize" && method != "ping" && !isHealthCall(req) {
				_, err := lookupProfile(s.requestedProfile(req))
				return nil, rpcError(protocol.InvalidParams, err.Error()+"; health.check still answers on this connection",
					map[string]any{"error_type": protocol.InvalidParams.Name(), "profile": s.requestedProfile(req), "profiles": servedProfileNames()})
			}
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				s.annotateToolList(list, conn)
			}
			return res, err
		}
	}
}

// keepToProfile refuses a call for a registered tool outside the
// connection's profile, saying which profile has it. It runs inside the
// call observer, so the refusal is recorded like any ended call.
func (s *Server) keepToProfile(conn connectionProfile) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil && !conn.serves(r.Params.Name) {
				if _, _, known := s.opts.Registry.Tool(r.Params.Name); known {
					return nil, s.outsideProfileError(conn, r.Params.Name)
				}
			}
			return next(ctx, method, req)
		}
	}
}

func isHealthCall(req mcp.Request) bool {
	r, ok := req.(*mcp.CallToolRequest)
	return ok && r.Params != nil && r.Params.Name == healthToolID
}

// outsideProfileError refuses a registered tool the connection's profile
// does not serve, saying where to find it.
func (s *Server) outsideProfileError(conn connectionProfile, toolID string) *jsonrpc.Error {
	msg := fmt.Sprintf("%s is not in tool profile %q, which this connection chose", toolID, conn.profile.Name)
	if in := profilesWith(toolID); len(in) > 0 {
		msg += "; connect with ?profile=" + strings.Join(in, " or ?profile=")
		if s.opts.Profile == "" {
			msg += ", or without ?profile= to be served every tool"
		}
	} else if s.opts.Profile == "" {
		msg += "; connect without ?profile= to be served every tool"
	} else {
		msg += "; no profile serves it, and this deployment's default profile is " + s.opts.Profile
	}
	return rpcError(protocol.InvalidParams, msg,
		map[string]any{"error_type": protocol.InvalidParams.Name(), "tool_id": toolID, "profile": conn.profile.Name, "profiles_with_tool": profilesWith(toolID)})
}

// missingTools are the profile's tools no loaded adapter registers: a
// configuration problem, not a smaller profile.
func (s *Server) missingTools(p *Profile) []string {
	missing := []string{}
	for _, id := range p.Tools {
		if _, _, ok := s.opts.Registry.Tool(id); !ok {
			missing = append(missing, id)
		}
	}
	return missing
}

// servedToolCount is how many tools a connection can call.
func (s *Server) servedToolCount(conn connectionProfile) int {
	n := 0
	for _, m := range s.opts.Registry.Manifests() {
		if conn.serves(m.ToolID) {
			n++
		}
	}
	return n
}

// annotateToolList adds _meta when the list is short for a reason a client
// should know: a profile in force, or
// adapters last seen down. Absent when there is nothing to say.
func (s *Server) annotateToolList(list *mcp.ListToolsResult, conn connectionProfile) {
	meta := map[string]any{}
	if conn.profile != nil {
		meta["profile"] = map[string]any{"name": conn.profile.Name, "toolCount": s.servedToolCount(conn), "missing": s.missingTools(conn.profile)}
	}
	if down := s.down.get(); len(down) > 0 {
		meta["unavailableAdapters"] = down
	}
	if len(meta) == 0 {
		return
	}
	if list.Meta == nil {
		list.Meta = mcp.Meta{}
	}
	for k, v := range meta {
		list.Meta[k] = v
	}
}

// profileReport is health.check's profile block: which profile this
// connection has and why its list is shorter than tool_count, told apart
// from an adapter that is down. active is null when
// no profile is in force, never absent.
func (s *Server) profileReport(ctx context.Context, req mcp.Request) map[string]any {
	conn, _ := ctx.Value(profileKey{}).(connectionProfile)
	withheld := []map[string]any{}
	for _, p := range profiles {
		if why := p.Withheld(); why != "" {
			withheld = append(withheld, map[string]any{"name": p.Name, "reason": why})
		}
	}
	served := s.servedToolCount(conn)
	out := map[string]any{"active": nil, "served_tool_count": served, "available": servedProfileNames(), "withheld": withheld}
	switch {
	case conn.refused:
		_, err := lookupProfile(s.requestedProfile(req))
		out["error"] = err.Error()
		out["detail"] = "This connection asked for a profile that is not served, so only health.check answers on it -- connect with one of the available profiles, or without ?profile=."
	case conn.profile != nil:
		out["active"] = conn.profile.Name
		detail := fmt.Sprintf("Profile '%s' serves %d of %d registered tools on this connection. The rest are not missing and nothing is down -- connect with a different profile to reach them.",
			conn.profile.Name, served, s.opts.Registry.ToolCount())
		if missing := s.missingTools(conn.profile); len(missing) > 0 {
			out["missing"] = missing
			detail += fmt.Sprintf(" %d of the profile's tools are registered by no loaded adapter (%s): that is a configuration problem, not a smaller profile.",
				len(missing), strings.Join(missing, ", "))
		}
		out["detail"] = detail
	}
	return out
}

// unavailableAdapter is an adapter the last health check found down.
type unavailableAdapter struct {
	AdapterID string `json:"adapter_id"`
	Error     string `json:"error"`
}

// downAdapters remembers which adapters the last health check found down,
// so tools/list can say so without probing on every list.
type downAdapters struct {
	mu   sync.Mutex
	last []unavailableAdapter
}

func (d *downAdapters) note(reports []health.AdapterReport) {
	var down []unavailableAdapter
	for _, a := range reports {
		if !a.Reachable {
			down = append(down, unavailableAdapter{AdapterID: a.AdapterID, Error: a.Error})
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.last = down
}

func (d *downAdapters) get() []unavailableAdapter {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.last)
}
