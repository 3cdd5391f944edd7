package omniverseusd

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// tool is one omniverse_usd.* tool, declared with the Go type of its
// arguments.
type tool = adapters.Declared[*Adapter]

// tools are the adapter's tools, in the order Manifests lists them.
var tools = []tool{validateTool, describeTool, convertTool}

// encode is a tool's answer; a result naming the file it wrote lists it.
func encode(out any) (*adapters.Result, error) {
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the result cannot be encoded as JSON: " + err.Error()}
	}
	res := &adapters.Result{Data: raw}
	if w, ok := out.(interface{ written() []string }); ok {
		res.OutputFiles = w.written()
	}
	return res, nil
}

// method adapts a method expression, (*Adapter).f, to the handler order
// Declare calls: context first.
func method[In any](f func(*Adapter, context.Context, In) (any, error)) func(context.Context, *Adapter, In) (any, error) {
	return func(ctx context.Context, a *Adapter, in In) (any, error) { return f(a, ctx, in) }
}
