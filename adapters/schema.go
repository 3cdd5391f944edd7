package adapters

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/protocol"
)

// inputSchema is a tool's input schema, resolved once at registration.
type inputSchema struct {
	resolved *jsonschema.Resolved
}

func compileInputSchema(raw json.RawMessage) (*inputSchema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("input_schema is not a JSON Schema: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`input_schema must have "type": "object"`)
	}
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("input_schema does not resolve: %w", err)
	}
	return &inputSchema{resolved: resolved}, nil
}

// validate checks args against the schema. The error is INVALID_PARAMS and
// names the field at fault, as the schema library reports it.
func (s *inputSchema) validate(toolID string, args []byte) error {
	var instance any
	if err := json.Unmarshal(ArgumentsOrEmpty(args), &instance); err != nil {
		return &protocol.Error{Code: protocol.InvalidParams, ToolID: toolID, Details: "arguments are not valid JSON: " + err.Error()}
	}
	if _, ok := instance.(map[string]any); !ok {
		return &protocol.Error{Code: protocol.InvalidParams, ToolID: toolID, Details: "arguments must be a JSON object"}
	}
	// An unknown argument is named first, whatever else is wrong: it is
	// usually the cause of the rest (a radius given for a diameter).
	if msg, ok := findUnknown(s.resolved.Schema(), instance, "", ""); ok {
		return &protocol.Error{Code: protocol.InvalidParams, ToolID: toolID, Details: msg}
	}
	if err := s.resolved.Validate(instance); err != nil {
		if msg, ok := unknownArguments(s.resolved.Schema(), err); ok {
			return &protocol.Error{Code: protocol.InvalidParams, ToolID: toolID, Details: msg}
		}
		return &protocol.Error{Code: protocol.InvalidParams, ToolID: toolID, Details: describeSchemaError(err)}
	}
	return nil
}

// describeSchemaError turns the library's nested "validating /properties/x:"
// chain into "x: <what is wrong>", so the message leads with the field.
func describeSchemaError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "validating root: ")
	// Each "validating /..." segment carries the whole path from the root;
	// the last one is the field at fault.
	var path []string
	for {
		rest, ok := strings.CutPrefix(msg, "validating /")
		if !ok {
			break
		}
		seg, tail, found := strings.Cut(rest, ": ")
		if !found {
			break
		}
		path = path[:0]
		for _, p := range strings.Split(seg, "/") {
			if p != "properties" && p != "items" && p != "" {
				path = append(path, p)
			}
		}
		msg = tail
	}
	if len(path) > 0 {
		return "argument " + strings.Join(path, ".") + ": " + msg
	}
	return "arguments: " + msg
}
