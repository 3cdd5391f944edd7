package twin

import (
	"crypto/rand"
	"encoding/hex"
)

// NewNodeID returns a fresh node id, "n-" and 16 hex digits.
func NewNodeID() string { return "n-" + randomHex(8) }

// NewProjectID returns a fresh project id: a random UUID.
func NewProjectID() string {
	h := randomHex(16)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + h[16:20] + "-" + h[20:32]
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
