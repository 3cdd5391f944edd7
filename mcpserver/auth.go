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
)

// Auth is what the HTTP transport enforces, and what health.check reports as
// the connection's auth posture. An API key (METAFORGE_MCP_API_KEY) authorises
// a request but identifies nobody; a bearer token the Verifier accepts
// identifies its subject, and makes the caller remote.
type Auth struct {
	APIKey   string
	Verifier auth.TokenVerifier
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

// Identify names the verified person behind an HTTP request, if any.
func Identify(r *http.Request) (string, bool) {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID != "" {
		return ti.UserID, true
	}
	return "", false
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
