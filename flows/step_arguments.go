package flows

import (
	"encoding/json"
	"fmt"
	"strings"
)

// StepResult is an earlier step's result for the entry a later step runs
// on: what the later step's From reads.
type StepResult struct {
	Step   string          `json:"step"`
	Result json.RawMessage `json:"result"`
}

// SplitFrom splits a From source "step.field" into the step's name and the
// field's dotted path; ok is false when either is empty.
func SplitFrom(source string) (step, field string, ok bool) {
	step, field, found := strings.Cut(source, ".")
	return step, field, found && strings.TrimSpace(step) != "" && strings.TrimSpace(field) != ""
}

// StepArguments are a step's arguments for one entry: base (the entry's
// arguments, or none) with each argument from names set to the field of
// the earlier step's result. An earlier step that gave no result, or a
// result without the field, is an error that says which.
func StepArguments(base json.RawMessage, from []FromField, earlier []StepResult) (json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if len(base) > 0 && string(base) != "null" {
		if err := json.Unmarshal(base, &args); err != nil {
			return nil, fmt.Errorf("the entry's arguments are not a JSON object: %v", err)
		}
		if args == nil {
			args = map[string]json.RawMessage{}
		}
	}
	for _, f := range from {
		name := f.Argument
		step, field, ok := SplitFrom(f.Field)
		if !ok {
			return nil, fmt.Errorf("argument %s comes from %q, which is not step.field", name, f.Field)
		}
		var result json.RawMessage
		for _, e := range earlier {
			if e.Step == step {
				result = e.Result
			}
		}
		if result == nil {
			return nil, fmt.Errorf("argument %s comes from step %s, which gave no result for this entry (see that step's error)", name, step)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(result, &top); err != nil || top == nil {
			return nil, fmt.Errorf("argument %s comes from step %s's result, which is not a JSON object", name, step)
		}
		v, ok := fieldAt(top, field)
		if !ok || string(v) == "null" {
			return nil, fmt.Errorf("argument %s comes from field %s of step %s's result, which has no such field", name, field, step)
		}
		args[name] = v
	}
	return json.Marshal(args)
}
