// Package cad is the adapter "cad": the CAD kernel capability contract
// (spec 003) as tools. cad.create_parametric, cad.boolean_operation,
// cad.get_properties, cad.export_geometry and cad.generate_mesh each take
// their kernels' own arguments plus an optional kernel, forward the call
// in process to that kernel's tool for the capability (contract.go), and
// answer with the kernel's data and "kernel" naming it. A caller or a
// skill that needs a part, not a kernel, calls these and runs on whichever
// kernel is installed and healthy.
package cad

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter.
const (
	AdapterID = "cad"
	version   = "0.1.0"
)

// Adapter serves the cad.* tools over the kernels a Registry holds.
type Adapter struct {
	reg    Registry
	health *healthCache
	calls  *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the adapter over reg, which it reads at each call: the
// kernels may be registered after it.
func New(reg Registry) *Adapter {
	return &Adapter{reg: reg, health: newHealthCache(), calls: adapters.NewInvocations()}
}

// ID is "cad".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

// Manifests lists the five tools, in the contract's order.
func (a *Adapter) Manifests() []adapters.Manifest {
	out := make([]adapters.Manifest, len(tools))
	for i, t := range tools {
		out[i] = t.manifest
	}
	return out
}

// Call decodes the arguments as the member does, picks the kernel
// (resolve), runs its member and adds "kernel" to the answer. A kernel's
// error keeps its code and says which kernel answered it.
func (a *Adapter) Call(ctx context.Context, toolID string, raw json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	res, err := a.call(ctx, toolID, raw)
	return res, adapters.WithToolID(err, toolID)
}

func (a *Adapter) call(ctx context.Context, toolID string, raw json.RawMessage) (*adapters.Result, error) {
	i := -1
	for j, t := range tools {
		if t.manifest.ToolID == toolID {
			i = j
		}
	}
	if i < 0 {
		ids := make([]string, len(tools))
		for j, t := range tools {
			ids[j] = t.manifest.ToolID
		}
		return nil, protocol.Invalid("adapter cad has no tool %q; its tools are %s", toolID, strings.Join(ids, ", "))
	}
	kernel, args, err := tools[i].decode(raw)
	if err != nil {
		return nil, err
	}
	c, _ := CapabilityOf(toolID)
	m, err := a.resolve(ctx, c, kernel)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(args)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the arguments cannot be encoded for " + m.toolID + ": " + err.Error()}
	}
	res, err := m.adapter.Call(ctx, m.toolID, body)
	if err != nil {
		return nil, fromKernel(err, m)
	}
	return named(res, m)
}

// named is the member's result with "kernel" added to its data; every
// other field is kept as the kernel wrote it.
func named(res *adapters.Result, m member) (*adapters.Result, error) {
	var data map[string]json.RawMessage
	if err := json.Unmarshal(res.Data, &data); err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: m.toolID + " answered with data that is not a JSON object: " + err.Error()}
	}
	kernel, _ := json.Marshal(m.kernel)
	if own, ok := data["kernel"]; ok && string(own) != string(kernel) {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: m.toolID + " says its kernel is " + string(own) + ", not " + m.kernel}
	}
	data["kernel"] = kernel
	out, err := json.Marshal(data)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the result cannot be encoded as JSON: " + err.Error()}
	}
	named := *res
	named.Data = out
	return &named, nil
}

// fromKernel is a member's error, saying which kernel's tool gave it; its
// code (and so whether a retry may help) is the member's.
func fromKernel(err error, m member) error {
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		return err
	}
	e := *pe
	e.Details = "kernel " + m.kernel + " (" + m.toolID + "): " + pe.Details
	return &e
}

// Health is healthy when every capability has a kernel that can serve
// it; otherwise TOOL_UNAVAILABLE naming the tools left without one and,
// once each, why each kernel cannot serve them.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	var missing, why []string
	for _, c := range Contract {
		if _, err := a.resolve(ctx, c, ""); err == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return adapters.HealthStatus{}, err
		}
		missing = append(missing, c.Tool)
		for _, k := range Kernels {
			if _, err := a.serve(ctx, c, k); err != nil && !slices.Contains(why, k+": "+err.Error()) {
				why = append(why, k+": "+err.Error())
			}
		}
	}
	if len(missing) > 0 {
		return adapters.HealthStatus{}, protocol.Unavailable("no CAD kernel can serve %s: %s", strings.Join(missing, ", "), strings.Join(why, "; "))
	}
	return a.calls.Healthy(AdapterID, version, len(tools)), nil
}
