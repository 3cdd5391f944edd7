// Package httpjson writes the JSON answers of MetaForge's HTTP routes (the
// REST routes under /v1, /healthz, the JSON-RPC frames over HTTP), so every
// route sets the same Content-Type and ends its body the same way.
package httpjson

import (
	"encoding/json"
	"net/http"
)

// Write answers status with v encoded as JSON, ending in a newline (what
// json.Encoder writes). A value that cannot be encoded leaves the body
// short: the status has been sent by then, and every caller passes plain
// data.
func Write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Error answers status with {"error": msg}, the body every REST route
// fails with.
func Error(w http.ResponseWriter, status int, msg string) {
	Write(w, status, map[string]any{"error": msg})
}

// WriteEncoded answers status with body, JSON already encoded, as it is.
func WriteEncoded(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
