package adapters

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type lengthArgs struct {
	LengthMM float64 `json:"length_mm" jsonschema:"how long, mm"`
	Label    string  `json:"label,omitempty"`
}

// A declared tool's schema is its argument type's, and its handler gets
// the arguments decoded into that type, or never runs.
func TestDeclare(t *testing.T) {
	ran := 0
	d := Declare(Manifest{ToolID: "t.measure"}, func(ctx context.Context, scale float64, in lengthArgs) (any, error) {
		ran++
		return in.LengthMM * scale, nil
	}, At("length_mm", ExclusiveMinimum(0)))
	if string(d.Manifest.InputSchema) != string(SchemaFor[lengthArgs](At("length_mm", ExclusiveMinimum(0)))) {
		t.Errorf("schema %s is not the argument type's", d.Manifest.InputSchema)
	}
	out, err := d.Run(context.Background(), 2, json.RawMessage(`{"length_mm": 3}`))
	if err != nil || out != 6.0 {
		t.Errorf("Run: %v, %v; want 6", out, err)
	}
	_, err = d.Run(context.Background(), 2, json.RawMessage(`{"length": 3}`))
	if err == nil || !strings.Contains(err.Error(), "unknown argument length; this tool takes length_mm, label") {
		t.Errorf("an unknown argument: %v", err)
	}
	if ran != 1 {
		t.Errorf("the handler ran %d times, want once (not for bad arguments)", ran)
	}
}
