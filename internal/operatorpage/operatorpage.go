// Package operatorpage is what the operator's pages (/approvals, /runs)
// share: how a page is served, and the script that takes the operator
// token from the address serve printed and keeps it for the tab.
package operatorpage

import (
	_ "embed"
	"net/http"
)

// TokenScriptPath is where the token script is served; a page loads it
// with <script src="/operator-token.js"></script> before its own script.
const TokenScriptPath = "/operator-token.js"

//go:embed token.js
var tokenScript []byte

// TokenScript serves the token script.
func TokenScript(w http.ResponseWriter, _ *http.Request) {
	serve(w, "text/javascript; charset=utf-8", tokenScript)
}

// Page serves an operator page: never cached, since each serve start
// makes a new token and the page may change with the binary.
func Page(html []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		serve(w, "text/html; charset=utf-8", html)
	}
}

func serve(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
}
