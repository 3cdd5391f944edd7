package remote

import (
	"bytes"
	"encoding/json"
)

// isAbsent reports a missing or null JSON value.
func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}
