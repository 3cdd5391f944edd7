// Package power is the in-process adapter "power": a static worst-case
// power budget per supply rail. It is read-only arithmetic on figures the
// caller gives, so it has no process to start and is always reachable.
package power

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter and its tool.
const (
	AdapterID       = "power"
	ToolCheckBudget = "power.check_budget"
	version         = "0.1.0"
)

// description is what an agent reads to decide whether and how to call the
// tool, so it states the rules that decide the answer, above all that a
// figure left out is never taken as a pass.
const description = "Static worst-case power budget per supply rail. " +
	"Give every rail (voltage_v; source_kind supply, ldo or switching; rated_output_ma; " +
	"input_rail, the rail feeding a regulator; efficiency and topology for a switching regulator; quiescent_ma and dropout_v for an LDO) " +
	"and every load (current_ma or power_mw, on the rail that supplies it), plus the derating rule " +
	"(derating.max_utilization, default 0.8). " +
	"Regulator input current is carried upstream: an LDO draws its output plus quiescent current, " +
	"a switching regulator draws Vout x Iout / (efficiency x Vin). " +
	"A rail passes when its load is within rated_output_ma x max_utilization and its conversion keeps the topology rules, " +
	"each a check in the rail's checks and a fail when broken: an LDO's output below its input by at least dropout_v " +
	"(ldo_dropout; default 0.3 V, stated in the result), a buck's output below its input (buck_steps_down), " +
	"a boost's above (boost_steps_up); give topology (buck, boost, buck_boost, inverting) on a switching rail, " +
	"or its direction is not checked and warnings says so. " +
	"A figure not given (dropout_v aside) is unknown and never assumed: a rail that depends on one is not_established " +
	"(the figures are listed in missing), unless its known load already exceeds the allowance, which fails. " +
	"A rail nothing draws from is not_established too; give a 0 mA load for a rail that is truly unloaded. " +
	"Overall status is fail if any rail fails, else not_established if any rail is, else pass. " +
	"Read-only arithmetic: nothing is measured, simulated or written."

// Adapter serves power.check_budget.
type Adapter struct {
	calls *adapters.Invocations
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the power adapter.
func New() *Adapter {
	return &Adapter{calls: adapters.NewInvocations()}
}

// ID is "power".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

// Manifests declares power.check_budget. It is idempotent (the same figures
// give the same budget), so a transient failure may be retried; 30 seconds is
// generous for arithmetic and bounds a pathological input.
func (a *Adapter) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{
		ToolID:         ToolCheckBudget,
		AdapterID:      AdapterID,
		Name:           "Check power budget",
		Description:    description,
		Capability:     "power_budget",
		InputSchema:    inputSchema,
		OutputSchema:   json.RawMessage(outputSchema),
		Idempotent:     true,
		Short:          true,
		TimeoutSeconds: 30,
	}}
}

// Call runs a tool. A budget that fails is a result, not an error: the check
// ran and its report says fail. Errors are bad input or an unknown tool
// (INVALID_PARAMS, naming the field or tool to fix).
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()

	if toolID != ToolCheckBudget {
		return nil, adapters.WithToolID(protocol.Invalid("adapter power has no tool %q: call %s", toolID, ToolCheckBudget), toolID)
	}
	req, err := decodeRequest(args)
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	report, err := CheckBudget(req)
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	data, err := json.Marshal(report)
	if err != nil {
		return nil, adapters.WithToolID(protocol.Refusal("could not encode the budget report: %v", err), toolID)
	}
	return &adapters.Result{Data: data}, nil
}

// Health is always healthy: the adapter is arithmetic in this process, with
// nothing outside it to lose.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	return a.calls.Healthy(AdapterID, version, len(a.Manifests())), nil
}
