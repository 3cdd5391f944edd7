package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
)

// NewCallID returns a fresh callId: 16 hex digits (64 random bits), the
// identity of one tools/call and of its workflow call-<callId>.
func NewCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
