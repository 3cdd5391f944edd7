package approvals

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Limits that keep a summary readable in a dialog.
const (
	maxValueChars   = 120
	maxSummaryLines = 24
)

// credentialName matches argument names that look like a credential. A
// reviewer does not need the key to say yes, and a server must not ship a
// secret into a dialog.
var credentialName = regexp.MustCompile(`(?i)(pass(word|wd)?|secret|token|api[_-]?key|credential|auth|private[_-]?key|cookie|session[_-]?key)`)

// Summarize lists a call's arguments for a reviewer, one "name: value" line
// each in name order: credential-like fields redacted, long values clipped,
// nested values shown as compact JSON.
func Summarize(args json.RawMessage) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil || len(fields) == 0 {
		return "  (no arguments)"
	}
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i == maxSummaryLines {
			fmt.Fprintf(&b, "  … and %d more arguments\n", len(names)-i)
			break
		}
		fmt.Fprintf(&b, "  %s: %s\n", n, summaryValue(n, fields[n]))
	}
	return strings.TrimRight(b.String(), "\n")
}

func summaryValue(name string, raw json.RawMessage) string {
	if credentialName.MatchString(name) {
		return "[redacted]"
	}
	var s string
	v := string(raw)
	if json.Unmarshal(raw, &s) == nil {
		v = s
	} else if b, err := json.Marshal(redacted(raw)); err == nil {
		v = string(b)
	}
	v = strings.Join(strings.Fields(v), " ")
	if r := []rune(v); len(r) > maxValueChars {
		v = string(r[:maxValueChars]) + fmt.Sprintf("… (%d characters)", len(r))
	}
	return v
}

// redacted is a nested value with every credential-like field inside it
// replaced, so a secret cannot ride in under an innocent top-level name.
func redacted(raw json.RawMessage) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return redactValue(v)
}

func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if credentialName.MatchString(k) {
				t[k] = "[redacted]"
			} else {
				t[k] = redactValue(x)
			}
		}
	case []any:
		for i, x := range t {
			t[i] = redactValue(x)
		}
	}
	return v
}
