package main

import (
	"fmt"
	"strings"
)

// tagFlags collect repeated --tag key=value flags, in the order given,
// for ingest (the source's labels) and sources (the filter).
type tagFlags []string

func (t *tagFlags) String() string { return strings.Join(*t, ",") }

// Set takes one key=value; a flag without both is refused at once, before
// anything is asked of the server.
func (t *tagFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(val) == "" {
		return fmt.Errorf("--tag %q: write key=value, for example --tag category=buck_converter", v)
	}
	*t = append(*t, strings.TrimSpace(k)+"="+strings.TrimSpace(val))
	return nil
}

// m is the tags as a map, for a tool's arguments.
func (t tagFlags) m() map[string]string {
	out := make(map[string]string, len(t))
	for _, p := range t {
		k, v, _ := strings.Cut(p, "=")
		out[k] = v
	}
	return out
}
