package telemetry

import "sync"

// Label values for text no one vouched for.
const (
	// unknownLabel stands for an empty name.
	unknownLabel = "unknown"
	// otherLabel stands for every name past a label's cap.
	otherLabel = "other"
	// maxLabelLen caps a label value, in bytes.
	maxLabelLen = 64
)

// boundedLabel turns caller-supplied text (a client's self-chosen name, a
// tool id) into a label value from a bounded set. Every distinct value is
// a time series, and a label that grows without limit takes Prometheus down
// rather than telling anyone anything; so values are normalised, and once
// limit distinct ones have been seen, the rest count as "other".
type boundedLabel struct {
	limit int

	mu   sync.Mutex
	seen map[string]struct{}
}

func newBoundedLabel(limit int) *boundedLabel {
	return &boundedLabel{limit: limit, seen: make(map[string]struct{}, limit)}
}

// value is raw's label value.
func (b *boundedLabel) value(raw string) string {
	v := normalise(raw)
	if v == unknownLabel || v == otherLabel {
		return v
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.seen[v]; ok {
		return v
	}
	if len(b.seen) >= b.limit {
		return otherLabel
	}
	b.seen[v] = struct{}{}
	return v
}

// normalise folds raw into lower-case [a-z0-9._-], at most maxLabelLen
// bytes, with no separator at either end: "Claude Code" and "claude-code"
// are one client, and no byte a client sends reaches the exposition format
// as it was sent. Empty is "unknown". It stops reading at the cap, so a
// megabyte of name costs nothing.
func normalise(raw string) string {
	out := make([]byte, 0, maxLabelLen)
	for _, r := range raw {
		if len(out) == maxLabelLen {
			break
		}
		c := labelByte(r)
		if len(out) == 0 && isSeparator(c) {
			continue
		}
		out = append(out, c)
	}
	for len(out) > 0 && isSeparator(out[len(out)-1]) {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return unknownLabel
	}
	return string(out)
}

// labelByte is r in a label value: a space is a word break, and anything
// outside [a-z0-9._-] that is not an upper-case letter is a '_'.
func labelByte(r rune) byte {
	switch {
	case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		return byte(r)
	case r >= 'A' && r <= 'Z':
		return byte(r - 'A' + 'a')
	case r == ' ':
		return '-'
	}
	return '_'
}

func isSeparator(c byte) bool { return c == '-' || c == '_' }
