package adapters

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeArguments(t *testing.T) {
	type part struct {
		Name string  `json:"name"`
		X    float64 `json:"x"`
	}
	type args struct {
		File  string `json:"file"`
		Parts []part `json:"parts"`
	}
	var a args
	if err := DecodeArguments(nil, &a); err != nil {
		t.Errorf("no arguments are an empty object: %v", err)
	}
	if err := DecodeArguments(json.RawMessage(`{"file":"a","parts":[{"name":"p","x":1}]}`), &a); err != nil || a.Parts[0].X != 1 {
		t.Errorf("good arguments: %v %+v", err, a)
	}
	for raw, want := range map[string]string{
		`{"fiel":"a"}`:              "unknown argument fiel; this tool takes file, parts",
		`{"file":3}`:                "argument file must be a string, not a JSON number",
		`{"parts":[{"x":"far"}]}`:   "argument parts.0.x must be a number, not a JSON string",
		`{"file":"a"} {"file":"b"}`: "nothing after it",
		`[1]`:                       "must be one JSON object",
	} {
		err := DecodeArguments(json.RawMessage(raw), &args{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to say %q", raw, err, want)
		}
	}
}
