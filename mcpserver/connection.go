package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/workflows"
)

// healthToolID is the tool whose result gains the connection's own report.
const healthToolID = "health.check"

// withConnectionReport adds what only the MCP server knows to health.check:
// the auth posture of this transport, who is on the other end (clientInfo,
// the protocol revision asked for and negotiated, whether it can be asked
// inline) and the connection's tool profile.
// The adapters it found down are remembered for tools/list to report.
func (s *Server) withConnectionReport(ctx context.Context, req *mcp.CallToolRequest, res workflows.ToolCallResult) workflows.ToolCallResult {
	if res.Status != workflows.StatusSuccess || !isJSONObject(res.Data) {
		return res
	}
	var report map[string]any
	if err := json.Unmarshal(res.Data, &report); err != nil {
		return res
	}
	report["auth"] = s.authReport(req.Extra)
	report["client"] = s.clientReport(req)
	report["profile"] = s.profileReport(ctx, req)
	report["dashboard_links"] = s.dashboardLinksStatus()
	var measured struct {
		Adapters []health.AdapterReport `json:"adapters"`
	}
	if json.Unmarshal(res.Data, &measured) == nil {
		s.down.note(measured.Adapters)
	}
	if b, err := json.Marshal(report); err == nil {
		res.Data = b
	}
	return res
}

// connectionReport is what a legacy health/check gains: the same auth
// block, and a client that is not connected, since the legacy dialect
// dispatches without a handshake.
func (s *Server) connectionReport() (auth, client map[string]any) {
	return s.authReport(nil), s.clientReport(nil)
}

func (s *Server) authReport(extra *mcp.RequestExtra) map[string]any {
	mode := AuthOpen
	if s.opts.Transport == TransportHTTP {
		mode = s.opts.Auth.Mode()
	}
	out := map[string]any{
		"mode":              mode,
		"transport":         s.opts.Transport,
		"identifies_caller": (mode == AuthOAuth || mode == AuthAPIKeyAnd) && s.callerOf(extra) == CallerRemote,
		"caller":            s.callerOf(extra),
	}
	switch mode {
	case AuthOpen:
		out["detail"] = "no API key and no OAuth configured: every connection on this transport is accepted, and no call is attributable to anyone"
	case AuthAPIKey:
		out["detail"] = "a shared API key (METAFORGE_MCP_API_KEY) admits the call but identifies nobody, so writes are held as untrusted"
	}
	return out
}

func (s *Server) clientReport(req *mcp.CallToolRequest) map[string]any {
	if req == nil || req.Session == nil || req.Session.InitializeParams() == nil {
		return map[string]any{"connected": false, "can_elicit": false,
			"detail": "no initialize handshake on this connection, so there is no client to report"}
	}
	p := req.Session.InitializeParams()
	out := map[string]any{"connected": true, "protocol_requested": p.ProtocolVersion,
		"protocol_negotiated": negotiatedRevision(p.ProtocolVersion), "can_elicit": s.canElicit(req)}
	if p.ClientInfo != nil {
		out["name"], out["version"] = p.ClientInfo.Name, p.ClientInfo.Version
	}
	if neg := negotiatedRevision(p.ProtocolVersion); neg != p.ProtocolVersion {
		out["protocol_skew"] = true
		out["detail"] = fmt.Sprintf("client asked for MCP %s; this server answered %s, the newest it speaks. Anything added after that revision is not available on this connection.",
			p.ProtocolVersion, neg)
	} else {
		out["protocol_skew"] = false
	}
	return out
}
