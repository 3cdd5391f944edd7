package flows

import (
	"encoding/json"
	"fmt"
	"strings"
)

// EvidenceValue is one value a step's result gives for the twin: the
// result field it was read from, as a metric in a unit.
type EvidenceValue struct {
	Metric string  `json:"metric"`
	Unit   string  `json:"unit"`
	Value  float64 `json:"value"`
	Field  string  `json:"field"`
	// Findings are what the record's Findings field listed (KeepFindings),
	// FindingsTotal how many it listed in all.
	Findings      []any `json:"findings,omitempty"`
	FindingsTotal int   `json:"findings_total,omitempty"`
}

// StepEvidence reads the fields s records from one tool result: each a
// JSON number at its field's path. The values come in Records order; each
// field that is absent or not a number is named in the second return
// instead, so the caller can report it rather than record nothing
// silently.
func StepEvidence(s Step, result json.RawMessage) ([]EvidenceValue, []string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(result, &top); err != nil || top == nil {
		problems := make([]string, 0, len(s.Records))
		for _, r := range s.Records {
			problems = append(problems, fmt.Sprintf("field %s missing from the result (the result is not a JSON object)", r.Field))
		}
		return nil, problems
	}
	var values []EvidenceValue
	var problems []string
	for _, r := range s.Records {
		raw, ok := fieldAt(top, r.Field)
		if !ok || string(raw) == "null" {
			problems = append(problems, fmt.Sprintf("field %s missing from the result", r.Field))
			continue
		}
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			problems = append(problems, fmt.Sprintf("field %s in the result is not a number: %s", r.Field, clip(string(raw), 40)))
			continue
		}
		ev := EvidenceValue{Metric: r.Metric, Unit: r.Unit, Value: v, Field: r.Field}
		if r.Findings != "" {
			if list, ok := fieldAt(top, r.Findings); ok {
				ev.Findings, ev.FindingsTotal = KeepFindings(list)
			}
		}
		values = append(values, ev)
	}
	return values, problems
}

// fieldAt is the value at a dotted path into a result object
// (connections.unrouted), and whether there is one.
func fieldAt(top map[string]json.RawMessage, path string) (json.RawMessage, bool) {
	parts := strings.Split(path, ".")
	obj := top
	for i, p := range parts {
		raw, ok := obj[p]
		if !ok {
			return nil, false
		}
		if i == len(parts)-1 {
			return raw, true
		}
		obj = nil
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, false
		}
	}
	return nil, false
}

// clip shortens s to at most n characters for a message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
