package mcpserver_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/worker"
)

var promptNames = []string{"use", "status", "design", "fea", "gate", "doctor"}

// promptArguments are each prompt's arguments, required ones starred.
var promptArguments = map[string][]string{
	"use":    {"project"},
	"status": {"project*"},
	"design": {"part*", "requirement", "project"},
	"fea":    {"part*", "load_case*", "project"},
	"gate":   {"project*", "run_id"},
	"doctor": nil,
}

// fullCatalogue is every tool this binary serves, registered as
// cmd/metaforge's catalog does; only manifests are read.
func fullCatalogue(t *testing.T) *adapters.Registry {
	t.Helper()
	all := append(catalogue(t.TempDir()), call.New(worker.CallLookup{}), &health.Adapter{})
	reg := adapters.NewRegistry()
	for _, a := range all {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func TestPromptsListsTheSix(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	if cs.InitializeResult().Capabilities.Prompts == nil {
		t.Error("initialize declares no prompts capability")
	}
	res, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Prompts {
		got = append(got, p.Name)
		if p.Description == "" || p.Title == "" {
			t.Errorf("prompt %s has no title or description", p.Name)
		}
		var args []string
		for _, a := range p.Arguments {
			name := a.Name
			if a.Required {
				name += "*"
			}
			args = append(args, name)
			if a.Description == "" {
				t.Errorf("prompt %s: argument %s is not described", p.Name, a.Name)
			}
		}
		if !slices.Equal(args, promptArguments[p.Name]) {
			t.Errorf("prompt %s takes %v, want %v", p.Name, args, promptArguments[p.Name])
		}
	}
	// The SDK lists prompts by name.
	if want := slices.Sorted(slices.Values(promptNames)); !slices.Equal(got, want) {
		t.Errorf("prompts/list = %v, want %v", got, want)
	}
}

// toolMention is a tool id in prose: lowercase word.word, not part of a
// longer dotted name or an identifier such as _meta.callId.
var toolMention = regexp.MustCompile(`(?:^|[^\w.])([a-z][a-z0-9]*\.[a-z][a-z0-9_]*)\b`)

func TestPromptsNameRealTools(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	catalogue := fullCatalogue(t)
	full := map[string]string{"project": "bracket", "part": "BRKT", "requirement": "mass <= 0.25 kg",
		"load_case": "500 N down on the free end", "run_id": "0123456789abcdef"}
	for _, name := range promptNames {
		// Every argument, and then only the required ones: each variant is
		// text an agent follows.
		required := map[string]string{}
		for _, a := range promptArguments[name] {
			if n, ok := strings.CutSuffix(a, "*"); ok {
				required[n] = full[n]
			}
		}
		for _, args := range []map[string]string{full, required} {
			given := map[string]string{}
			for _, a := range promptArguments[name] {
				n := strings.TrimSuffix(a, "*")
				if v, ok := args[n]; ok {
					given[n] = v
				}
			}
			res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: given})
			if err != nil {
				t.Fatalf("prompts/get %s %v: %v", name, given, err)
			}
			if len(res.Messages) == 0 {
				t.Fatalf("prompt %s has no messages", name)
			}
			var text strings.Builder
			for _, m := range res.Messages {
				tc, ok := m.Content.(*mcp.TextContent)
				if !ok {
					t.Fatalf("prompt %s: message content %T, want text", name, m.Content)
				}
				text.WriteString(tc.Text)
			}
			mentions := toolMention.FindAllStringSubmatch(text.String(), -1)
			if len(mentions) == 0 {
				t.Errorf("prompt %s names no tool", name)
			}
			for _, m := range mentions {
				if _, _, ok := catalogue.Tool(m[1]); !ok {
					t.Errorf("prompt %s names %s, which is no tool of this build", name, m[1])
				}
			}
			if !strings.Contains(text.String(), "_meta.callId") {
				t.Errorf("prompt %s does not ask for the call ids of what it reports", name)
			}
			for _, v := range given {
				if !strings.Contains(text.String(), v) {
					t.Errorf("prompt %s ignores its argument %q", name, v)
				}
			}
		}
	}
}

func TestPromptArgumentsAreChecked(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "fea", Arguments: map[string]string{"part": "BRKT"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "load_case") {
		t.Errorf("fea without load_case: %v, want -32602 naming load_case", err)
	}
	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "status", Arguments: map[string]string{"project": "p", "projet": "p"}})
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, "projet") {
		t.Errorf("status with a misspelt argument: %v, want -32602 naming it", err)
	}
}

func TestUnknownPromptListsThePrompts(t *testing.T) {
	cs := theStack(t).connect(t, nil)
	_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "stauts"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("prompts/get stauts: %v, want -32602", err)
	}
	for _, name := range promptNames {
		if !strings.Contains(rpcErr.Message, name) || !strings.Contains(string(rpcErr.Data), `"`+name+`"`) {
			t.Errorf("the error %q (data %s) does not list %s", rpcErr.Message, rpcErr.Data, name)
		}
	}
}
