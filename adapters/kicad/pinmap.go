package kicad

import (
	"context"
	"encoding/json"
	"github.com/metaforge/metaforge/adapters"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// PinMappingRequest is the input of kicad.get_pin_mapping.
type PinMappingRequest struct {
	FileChoice
	Reference string `json:"reference" jsonschema:"Component reference, such as J1 or U3."`
}

// PinMappingResult is what kicad.get_pin_mapping returns.
type PinMappingResult struct {
	Reference  string     `json:"reference"`
	Source     string     `json:"source"`
	SourceFile string     `json:"source_file"`
	Value      string     `json:"value"`
	Footprint  string     `json:"footprint"`
	Pins       []PinOnNet `json:"pins"`
}

// PinOnNet is one pin of the component and the net it is on.
type PinOnNet struct {
	Pin     string `json:"pin"`
	PinName string `json:"pin_name,omitempty"`
	Net     string `json:"net"`
}

// maxSuggestions bounds the references an unknown-reference error lists.
const maxSuggestions = 12

func (a *Adapter) pinMapping(ctx context.Context, args json.RawMessage) (*PinMappingResult, error) {
	var req PinMappingRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Reference) == "" {
		return nil, protocol.Invalid("reference is empty: give a component reference such as J1")
	}
	src, err := a.readNets(ctx, req.FileChoice)
	if err != nil {
		return nil, err
	}
	comp, ok := src.components[req.Reference]
	if !ok {
		refs := make([]string, 0, len(src.components))
		for r := range src.components {
			refs = append(refs, r)
		}
		sort.Slice(refs, func(i, j int) bool { return naturalLess(refs[i], refs[j]) })
		more := ""
		if len(refs) > maxSuggestions {
			more, refs = ", ...", refs[:maxSuggestions]
		}
		return nil, protocol.Invalid("%s has no component %q; it has %s%s", src.file, req.Reference, strings.Join(refs, ", "), more)
	}
	res := &PinMappingResult{Reference: req.Reference, Source: src.kind, SourceFile: src.file, Value: comp.value, Footprint: comp.footprint, Pins: []PinOnNet{}}
	for _, n := range src.nets {
		for _, p := range n.Pins {
			if p.Reference == req.Reference {
				res.Pins = append(res.Pins, PinOnNet{Pin: p.Pin, PinName: p.PinName, Net: n.Name})
			}
		}
	}
	sort.Slice(res.Pins, func(i, j int) bool { return naturalLess(res.Pins[i].Pin, res.Pins[j].Pin) })
	return res, nil
}
