package component

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/protocol"
)

// tool is one component.* tool, declared with the Go type of its
// arguments.
type tool = adapters.Declared[*Adapter]

// tools are the adapter's tools, in the order Manifests lists them.
var tools = []tool{searchParametricTool, searchIntentTool, indexCatalogTool, acceptFiguresTool}

// encode is a tool's answer.
func encode(out any) (*adapters.Result, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // filters read "i_out >= 2 A", not "i_out \u003e= 2 A"
	if err := enc.Encode(out); err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the result cannot be encoded as JSON: " + err.Error()}
	}
	return &adapters.Result{Data: bytes.TrimRight(b.Bytes(), "\n")}, nil
}

// method adapts a method expression, (*Adapter).f, to the handler order
// Declare calls: context first.
func method[In any](f func(*Adapter, context.Context, In) (any, error)) func(context.Context, *Adapter, In) (any, error) {
	return func(ctx context.Context, a *Adapter, in In) (any, error) { return f(a, ctx, in) }
}

// classify turns a catalogue error into the protocol's: a query that
// cannot run as written is INVALID_PARAMS with its reason; anything else
// is the store failing, which a retry may cure.
func classify(err error) error {
	var pe *protocol.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return err
	case errors.Is(err, components.ErrBadQuery):
		return protocol.Invalid("%v", err)
	}
	return protocol.Transient("the component catalogue: %v", err)
}
