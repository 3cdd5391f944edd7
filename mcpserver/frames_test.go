package mcpserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func nested(depth int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", depth-2) + strings.Repeat("]", depth-2) + `}}`)
}

func batch(n int) []byte {
	var parts []string
	for i := range n {
		parts = append(parts, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"ping"}`)
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

func TestScreen(t *testing.T) {
	big := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`), bytes.Repeat([]byte("a"), MaxFrameBytes)...)
	big = append(big, []byte(`"}}`)...)
	cases := []struct {
		name    string
		frame   []byte
		code    int // 0: passes on
		status  int
		legacy  bool
		batches bool
	}{
		{"a request", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), 0, 0, false, false},
		{"malformed", []byte(`{"jsonrpc":"2.0","id":1,`), -32700, 400, false, false},
		{"a bare string", []byte(`"hello"`), -32600, 400, false, false},
		{"over 16 MiB", big, -32600, 413, false, false},
		{"nesting 128 is allowed", nested(128), 0, 0, false, false},
		{"nesting 129", nested(129), -32700, 400, false, false},
		{"brackets inside strings do not nest", []byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"` + strings.Repeat("[", 500) + `"}}`), 0, 0, false, false},
		{"batch of 100", batch(100), 0, 0, false, true},
		{"batch where the revision has none", batch(2), -32600, 400, false, false},
		{"batch with a duplicate id", []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`), -32600, 400, false, true},
		{"not JSON-RPC", []byte(`{"foo":1}`), -32600, 400, false, false},
		{"id an object", []byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`), -32600, 400, false, false},
		{"batch of 101", batch(101), -32600, 400, false, true},
		{"empty batch", []byte(`[]`), -32600, 400, false, false},
		{"legacy tool/call", []byte(`{"jsonrpc":"2.0","id":"r1","method":"tool/call","params":{"tool_id":"x.y"}}`), 0, 0, true, false},
	}
	for _, c := range cases {
		v := screen(c.frame, c.batches)
		if c.legacy != (v.legacy != nil) {
			t.Errorf("%s: legacy = %v, want %v", c.name, v.legacy != nil, c.legacy)
		}
		if c.code == 0 {
			if v.reply != nil {
				t.Errorf("%s: answered %s, want it passed on", c.name, v.reply)
			}
			continue
		}
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(v.reply, &resp); err != nil {
			t.Fatalf("%s: reply %q is not JSON: %v", c.name, v.reply, err)
		}
		if resp.Error.Code != c.code || v.status != c.status || string(resp.ID) != "null" || resp.Error.Message == "" {
			t.Errorf("%s: reply %s status %d, want code %d status %d id null", c.name, v.reply, v.status, c.code, c.status)
		}
	}
}

func TestReadLinesSkipsAnOverlongLineAndGoesOn(t *testing.T) {
	input := "first\n" + strings.Repeat("x", MaxFrameBytes+10) + "\n\n  second  \nlast"
	var got []string
	err := readLines(strings.NewReader(input), func(line []byte, tooLong bool) error {
		if tooLong {
			got = append(got, "<too long>")
		} else {
			got = append(got, string(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"first", "<too long>", "second", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines = %q, want %q", got, want)
	}
}
