package twin

import "github.com/google/jsonschema-go/jsonschema"

// anyObject is an object argument whose fields are the caller's own (a
// result's data, measured properties): the schema says "an object" and no
// more, so any property is taken.
func anyObject(s *jsonschema.Schema) { s.AdditionalProperties = nil }
