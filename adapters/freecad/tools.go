package freecad

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// tool is one freecad.* tool, declared with the Go type of its arguments.
type tool = adapters.Declared[*Adapter]

// toolList is every tool the adapter serves, in the order Manifests lists
// them: the file-based ones, then the editing sessions'.
func (a *Adapter) toolList() []tool {
	return append(a.statelessTools(), a.sessionTools()...)
}

// statelessTools are the file-based tools: each call runs one FreeCAD
// process and writes only into the call's own folder. The two mesh tools
// come only with a mesher.
func (a *Adapter) statelessTools() []tool {
	list := []tool{parametricTool, booleanTool, propertiesTool, exportTool,
		describeTool, importTool, measureTool, transformTool}
	if a.mesher != nil {
		list = append(list, a.meshTool(), a.facesTool())
	}
	return list
}

// encode is a tool's answer; a result naming the files it wrote lists
// them, and a durable process (an opened session) is the call's child.
func encode(out any) (*adapters.Result, error) {
	if pa, ok := out.(processAnswer); ok {
		return &adapters.Result{Process: &pa.p}, nil
	}
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
