package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// jsonMember is one key of a JSON object with its value as written, so an
// edit keeps every other key, its order and its exact value (a number is
// not rounded through float64).
type jsonMember struct {
	Key   string
	Value json.RawMessage
}

// readJSONObject reads a JSON object's members in order; an empty file is
// an empty object (a client's config that does not exist yet).
func readJSONObject(data []byte) ([]jsonMember, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("it is not a JSON object")
	}
	var out []jsonMember
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{Key: k.(string), Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("it has data after its closing brace")
	}
	return out, nil
}

// compactJSONObject writes members as one compact JSON object.
func compactJSONObject(members []jsonMember) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		if err := json.Compact(&b, m.Value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// memberIndex is where key is among members, or -1.
func memberIndex(members []jsonMember, key string) int {
	for i, m := range members {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// sameJSON reports whether two JSON values mean the same thing, whatever
// their layout or key order.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// editJSONServer sets (entry non-nil) or removes (entry nil) the server
// name under the top-level "mcpServers" object of a client's JSON config,
// keeping everything else. It returns the new file, the entry as it was
// (nil when absent) and whether anything changed; when nothing did, the
// new file is data itself, byte for byte.
func editJSONServer(data []byte, name string, entry json.RawMessage) ([]byte, json.RawMessage, bool, error) {
	top, err := readJSONObject(data)
	if err != nil {
		return nil, nil, false, fmt.Errorf("cannot read it as JSON (%v); fix or move the file, then run this again", err)
	}
	var servers []jsonMember
	at := memberIndex(top, "mcpServers")
	if at >= 0 {
		if servers, err = readJSONObject(top[at].Value); err != nil {
			return nil, nil, false, fmt.Errorf("its mcpServers is not a JSON object (%v); fix it by hand, then run this again", err)
		}
	}
	var before json.RawMessage
	i := memberIndex(servers, name)
	if i >= 0 {
		before = servers[i].Value
	}
	switch {
	case entry == nil && i < 0:
		return data, nil, false, nil
	case entry == nil:
		servers = append(servers[:i], servers[i+1:]...)
	case i >= 0 && sameJSON(before, entry):
		return data, before, false, nil
	case i >= 0:
		servers[i].Value = entry
	default:
		servers = append(servers, jsonMember{Key: name, Value: entry})
	}
	obj, err := compactJSONObject(servers)
	if err != nil {
		return nil, nil, false, err
	}
	if at >= 0 {
		top[at].Value = obj
	} else {
		top = append(top, jsonMember{Key: "mcpServers", Value: obj})
	}
	flat, err := compactJSONObject(top)
	if err != nil {
		return nil, nil, false, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, flat, "", "  "); err != nil {
		return nil, nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), before, true, nil
}

// indentJSON is v laid out for a person to read, prefixed per line.
func indentJSON(v json.RawMessage, prefix string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, v, prefix, "  "); err != nil {
		return string(v)
	}
	return prefix + b.String()
}
