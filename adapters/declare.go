package adapters

import (
	"context"
	"encoding/json"
)

// Declared is one tool declared with the Go type of its arguments, so its
// manifest, the schema an agent reads and the handler that runs stay
// together and cannot drift apart. S is what an adapter's tools share (a
// service, a backend).
type Declared[S any] struct {
	Manifest Manifest
	// Run decodes the call's arguments into the declared type with
	// DecodeArguments and runs the handler on them.
	Run func(ctx context.Context, s S, args json.RawMessage) (any, error)
}

// Declare declares a tool whose arguments decode into In: the manifest's
// input schema is SchemaFor[In](rules...), and the handler gets the
// arguments decoded. As mcp.AddTool does for an MCP server, for an
// adapter's tool table.
func Declare[S, In any](m Manifest, handle func(ctx context.Context, s S, in In) (any, error), rules ...SchemaRule) Declared[S] {
	m.InputSchema = SchemaFor[In](rules...)
	return Declared[S]{Manifest: m, Run: func(ctx context.Context, s S, args json.RawMessage) (any, error) {
		var in In
		if err := DecodeArguments(args, &in); err != nil {
			return nil, err
		}
		return handle(ctx, s, in)
	}}
}
