package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/metaforge/metaforge/approvals"
)

// Auth is what the HTTP transport enforces, and what health.check reports as
// the connection's auth posture. An API key (METAFORGE_MCP_API_KEY) authorises
// a request but identifies nobody; a bearer token the Verifier accepts
// identifies its subject, and makes the caller remote.
type Auth struct {
	APIKey   string
	Verifier auth.TokenVerifier
	// OperatorToken is the local operator's token, which metaforge serve
	// writes to its data dir (readable only by its user). On /v1 it
	// identifies the operator as a decider; on /mcp and /rpc it makes the
	// client the operator's own, a local caller. A client that was not
	// given it cannot decide its own holds.
	OperatorToken string
}

// Auth modes health.check reports.
const (
	AuthOpen      = "open"
	AuthAPIKey    = "api_key"
	AuthOAuth     = "oauth"
	AuthAPIKeyAnd = "api_key+oauth"
)

// Mode is the auth posture in force.
func (a Auth) Mode() string {
	switch {
	case a.APIKey != "" && a.Verifier != nil:
		return AuthAPIKeyAnd
	case a.APIKey != "":
		return AuthAPIKey
	case a.Verifier != nil:
		return AuthOAuth
	}
	return AuthOpen
}

// Middleware admits a request that presents the API key (X-API-Key, or
// as the bearer token) or a bearer token the verifier accepts, and answers
// 401 otherwise. An open server admits everything.
func (a Auth) Middleware(next http.Handler) http.Handler {
	if a.Mode() == AuthOpen {
		return next
	}
	var withToken http.Handler
	if a.Verifier != nil {
		withToken = auth.RequireBearerToken(a.Verifier, nil)(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.APIKey != "" && a.presentsKey(r) {
			next.ServeHTTP(w, r)
			return
		}
		if withToken != nil && bearer(r) != "" {
			withToken.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="metaforge"`)
		http.Error(w, "unauthorized: present the server's API key (X-API-Key or Authorization: Bearer) or a bearer token", http.StatusUnauthorized)
	})
}

func (a Auth) presentsKey(r *http.Request) bool {
	for _, k := range []string{r.Header.Get("X-API-Key"), bearer(r)} {
		if k != "" && subtle.ConstantTimeCompare([]byte(k), []byte(a.APIKey)) == 1 {
			return true
		}
	}
	return false
}

func bearer(r *http.Request) string {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) == 2 && strings.EqualFold(f[0], "bearer") {
		return f[1]
	}
	return ""
}

type operatorKey struct{}

// operatorExtra marks the token info of a request that presented the
// operator token on /mcp or /rpc.
const operatorExtra = "io.metaforge/operator"

// MCPMiddleware guards /mcp and /rpc: the operator token admits the request
// as the local operator (the person at the keyboard, proved by a file only
// its user can read), whose client is then a local caller and may be asked
// to approve its own session's writes inline; anything else meets
// Middleware's rules.
func (a Auth) MCPMiddleware(next http.Handler) http.Handler {
	guarded := a.Middleware(next)
	asOperator := auth.RequireBearerToken(func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: approvals.Operator, Expiration: time.Now().Add(24 * time.Hour),
			Extra: map[string]any{operatorExtra: true}}, nil
	}, nil)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.presentsOperatorToken(r) {
			asOperator.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// isOperator says whether verified token info is the operator's.
func isOperator(ti *auth.TokenInfo) bool {
	op, _ := ti.Extra[operatorExtra].(bool)
	return op
}

// APIMiddleware guards /v1: the operator token admits the request as the
// local operator; anything else meets Middleware's rules.
func (a Auth) APIMiddleware(next http.Handler) http.Handler {
	guarded := a.Middleware(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.presentsOperatorToken(r) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), operatorKey{}, true)))
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// presentsOperatorToken compares in constant time, so the token's bytes
// cannot be found one at a time by timing.
func (a Auth) presentsOperatorToken(r *http.Request) bool {
	t := bearer(r)
	return a.OperatorToken != "" && t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(a.OperatorToken)) == 1
}

// Person is who a request that passed APIMiddleware is from: the local
// operator, a bearer token's verified subject, or nobody proved (with
// Presented when the shared API key let it in).
func (a Auth) Person(r *http.Request) approvals.Person {
	if op, _ := r.Context().Value(operatorKey{}).(bool); op {
		return approvals.Person{Name: approvals.Operator, Verified: true, Operator: true}
	}
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID != "" {
		return approvals.Person{Name: ti.UserID, Verified: true}
	}
	return approvals.Person{Presented: a.APIKey != "" && a.presentsKey(r)}
}

// HS256Verifier verifies JWTs signed with a shared secret
// (METAFORGE_MCP_JWT_SECRET): the signature, exp (required), nbf, and a
// subject, which becomes the caller's identity.
func HS256Verifier(secret []byte) auth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		parts := strings.Split(token, ".")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%w: not a JWT", auth.ErrInvalidToken)
		}
		var header struct {
			Alg string `json:"alg"`
		}
		if err := decodeSegment(parts[0], &header); err != nil || header.Alg != "HS256" {
			return nil, fmt.Errorf("%w: the token must be an HS256 JWT", auth.ErrInvalidToken)
		}
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte(parts[0] + "." + parts[1]))
		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		if err != nil || !hmac.Equal(sig, mac.Sum(nil)) {
			return nil, fmt.Errorf("%w: bad signature", auth.ErrInvalidToken)
		}
		var claims struct {
			Sub   string `json:"sub"`
			Exp   int64  `json:"exp"`
			Nbf   int64  `json:"nbf"`
			Scope string `json:"scope"`
		}
		if err := decodeSegment(parts[1], &claims); err != nil {
			return nil, fmt.Errorf("%w: unreadable claims", auth.ErrInvalidToken)
		}
		if claims.Sub == "" || claims.Exp == 0 {
			return nil, fmt.Errorf("%w: the token needs sub and exp", auth.ErrInvalidToken)
		}
		if claims.Nbf != 0 && time.Now().Before(time.Unix(claims.Nbf, 0)) {
			return nil, fmt.Errorf("%w: token not yet valid", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: claims.Sub, Expiration: time.Unix(claims.Exp, 0), Scopes: strings.Fields(claims.Scope)}, nil
	}
}

func decodeSegment(seg string, into any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
