package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/internal/operatorpage"
	"github.com/metaforge/metaforge/protocol"
)

// Routes are more REST routes (under /v1/, behind the auth) and pages (the
// static pages that call them, served to anyone) on the server's port.
type Routes interface {
	Register(api *http.ServeMux)
	Pages() []string
}

// HTTPHandler serves MCP Streamable HTTP on /mcp, the roll-up health on
// /healthz, and, when holds can be decided here, the approvals queue
// (/v1/approvals and the /approvals page). Bodies are screened like stdio
// lines before the SDK sees them; /mcp and /v1 are behind the configured
// auth, and /v1 also admits the operator token.
func (s *Server) HTTPHandler() http.Handler {
	// Each connection is served its own choice of profile: a new session
	// gets the server for the ?profile= on its URL, or the default.
	streamable := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server { return s.serverFor(s.profileOf(r)) }, &mcp.StreamableHTTPOptions{
		Logger:              s.opts.Logger,
		MaxRequestBodyBytes: MaxFrameBytes + 1,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.opts.Auth.MCPMiddleware(s.trackStreams(s.screenHTTP(s.carryProfile(streamable)))))
	mux.HandleFunc("GET /healthz", s.serveHealthz)
	mux.Handle("POST /rpc", s.RPCHandler())
	api := http.NewServeMux()
	if s.holds.Decider != nil {
		approvals.Handler{Queue: s.holds.Decider, Authority: s.Authority(), Logger: s.opts.Logger}.Register(api)
		mux.Handle("GET /approvals", api)
	}
	for _, r := range s.opts.Routes {
		r.Register(api)
		for _, page := range r.Pages() {
			mux.Handle("GET "+page, api)
		}
	}
	// The operator pages' shared script (the token the pages carry).
	mux.HandleFunc("GET "+operatorpage.TokenScriptPath, operatorpage.TokenScript)
	// GET answers carry an ETag, so the dashboard's polls of an unchanged
	// object cost a 304.
	mux.Handle("/v1/", s.opts.Auth.APIMiddleware(httpjson.ETag(api)))
	return mux
}

// Authority is who decides on this server: a person the auth verified,
// told how to decide by Options.HowToDecide.
func (s *Server) Authority() approvals.Authority {
	return approvals.Authority{Identify: s.opts.Auth.Person, HowTo: s.opts.HowToDecide}
}

// trackStreams counts each session's open GET /mcp stream, so a question
// for that session goes down it.
func (s *Server) trackStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		switch {
		case id == "":
		case r.Method == http.MethodDelete:
			// The client ends its session: its questions are withdrawn
			// first, or the SDK would wait for the held calls to end.
			s.asks.withdrawAll(id, false)
		case r.Method == http.MethodGet:
			s.streams.add(id, 1)
			defer func() {
				s.streams.add(id, -1)
				if !s.streams.open(id) {
					s.asks.withdrawAll(id, true) // asked into a stream that is gone
				}
			}()
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) screenHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxFrameBytes+1))
		_ = r.Body.Close()
		if err != nil {
			httpjson.WriteEncoded(w, http.StatusBadRequest, errorResponse(nil, protocol.ParseError, "could not read the request body: "+err.Error(), nil))
			return
		}
		// A session has an id only once it sent initialize.
		v := screenMCP(body, batchesAllowed(protocolVersionOf(r)), r.Header.Get("Mcp-Session-Id") != "")
		if v.reply == nil && v.legacy == nil && !v.ignore {
			s.noteLateAnswer(r.Header.Get("Mcp-Session-Id"), body)
		}
		switch {
		case v.reply != nil:
			httpjson.WriteEncoded(w, v.status, v.reply)
		case v.ignore:
			w.WriteHeader(http.StatusAccepted)
		case v.legacy != nil:
			resp := s.answerLegacy(withRemote(r.Context(), r.RemoteAddr), v.legacy)
			if resp == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			httpjson.WriteEncoded(w, http.StatusOK, resp)
		default:
			body = v.forward(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			tag, done := s.posts.register(r.Context())
			defer done()
			r.Header.Set(postHeader, tag)
			lazy := &lazyStream{w: w}
			next.ServeHTTP(lazy, r)
			lazy.finish()
		}
	})
}

// protocolVersionOf is the request's MCP revision; a request without the
// header is taken to be 2025-03-26, as the transport specification says.
func protocolVersionOf(r *http.Request) string {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v
	}
	return "2025-03-26"
}

// serveHealthz is 200 whether healthy or degraded: the server is up and
// telling the truth about its dependencies, which the body reports. It
// answers the last measurement (checked_at, age_ms); ?refresh=true probes
// now, as health.check's refresh does.
func (s *Server) serveHealthz(w http.ResponseWriter, r *http.Request) {
	measure := s.opts.Health.Check
	if q := r.URL.Query().Get("refresh"); q != "" {
		refresh, err := strconv.ParseBool(q)
		if err != nil {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("refresh=%s: write refresh=true to probe now, or leave it out for the last measurement", q))
			return
		}
		if refresh {
			measure = s.opts.Health.Refresh
		}
	}
	report := measure(r.Context())
	s.down.note(report.Adapters)
	b, err := json.Marshal(report)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	httpjson.WriteEncoded(w, http.StatusOK, b)
}
