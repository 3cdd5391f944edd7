package power

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Source kinds of a rail.
const (
	KindSupply    = "supply"
	KindLDO       = "ldo"
	KindSwitching = "switching"
)

// DefaultMaxUtilization is the derating applied when the caller names none:
// a rail may carry 80% of its rated output.
const DefaultMaxUtilization = 0.8

// Request is the input of power.check_budget. Optional figures are pointers
// so that "not given" stays distinct from zero: an absent figure is unknown,
// never assumed. dropout_v alone has a default (DefaultDropoutV), which the
// result states, and warns of where a pass rests on it.
type Request struct {
	Rails    []Rail    `json:"rails" jsonschema:"Every rail in the design. Rails form a tree: each ldo or switching rail names the rail that feeds it in input_rail, and every chain ends at a supply rail."`
	Loads    []Load    `json:"loads" jsonschema:"Every load, each on the rail that supplies it. A part drawing from several rails is one load per rail. A rail nothing draws from is not_established: declare current_ma 0 if it is truly unloaded."`
	Derating *Derating `json:"derating,omitempty" jsonschema:"The derating rule: a rail's allowance is rated_output_ma x max_utilization."`
}

// Rail is one supply rail: an external supply or a regulator's output.
type Rail struct {
	Name          string   `json:"name" jsonschema:"Rail name, unique among rails, e.g. \"3V3\"."`
	VoltageV      *float64 `json:"voltage_v" jsonschema:"Nominal output voltage in volts (its magnitude, for a negative rail)."`
	SourceKind    string   `json:"source_kind" jsonschema:"supply: an external source (connector, battery, bench supply) with no input_rail. ldo: a linear regulator. switching: a buck, boost or other switching regulator."`
	RatedOutputMA *float64 `json:"rated_output_ma,omitempty" jsonschema:"Rated output current in mA (the datasheet maximum of the source or regulator). Left out, the rail has no allowance and is not_established."`
	InputRail     *string  `json:"input_rail,omitempty" jsonschema:"Name of the rail feeding this regulator. Required for ldo and switching; not allowed for supply."`
	Efficiency    *float64 `json:"efficiency,omitempty" jsonschema:"Switching regulators only: worst-case efficiency at this load, as a fraction (0.9 for 90%). Left out, the regulator's input current is unknown and its input rail cannot pass."`
	QuiescentMA   *float64 `json:"quiescent_ma,omitempty" jsonschema:"LDOs only: worst-case quiescent (ground) current in mA. Left out, the LDO's input current is unknown and its input rail cannot pass."`
	DropoutV      *float64 `json:"dropout_v,omitempty" jsonschema:"LDOs only: worst-case dropout in volts at this load (datasheet). The output must be below the input rail's voltage by at least this much (rule ldo_dropout). Left out, 0.3 V is taken (a CMOS LDO at full load) and the result says so; a 1117-class LDO needs up to 1.3 V."`
	Topology      *string  `json:"topology,omitempty" jsonschema:"Switching rails only: buck (output below input, rule buck_steps_down), boost (output above input, rule boost_steps_up), buck_boost (either way, e.g. a SEPIC), inverting (a negative output; voltage_v is its magnitude). Left out, the direction is not checked and the result warns."`
}

// Load is one consumer on one rail, given as a current or a power (or
// neither, which makes it an unknown figure).
type Load struct {
	Name      string   `json:"name" jsonschema:"Load name, e.g. a reference designator; unique on its rail."`
	Rail      string   `json:"rail" jsonschema:"Name of the rail that supplies this load."`
	CurrentMA *float64 `json:"current_ma,omitempty" jsonschema:"Worst-case current in mA. Give this or power_mw, not both."`
	PowerMW   *float64 `json:"power_mw,omitempty" jsonschema:"Worst-case power in mW, converted at the rail's voltage. Give this or current_ma, not both. With neither, the load is unknown and its rail cannot pass."`
}

// Derating is the rule that turns a rating into an allowance.
type Derating struct {
	MaxUtilization *float64 `json:"max_utilization,omitempty" jsonschema:"Largest fraction of a rail's rated output its load may use. Default 0.8."`
}

// decodeRequest parses arguments strictly: an unknown field is a typo the
// caller should hear about, not a figure silently dropped.
func decodeRequest(args json.RawMessage) (Request, error) {
	var req Request
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return Request{}, err
	}
	return req, nil
}

// circuit is a validated request: rails indexed, the feed tree built.
type circuit struct {
	req            Request
	parent         []int   // index of each rail's input rail, -1 for a supply
	children       [][]int // regulators fed from each rail, in input order
	loadsOn        [][]int // loads on each rail, in input order
	maxUtilization float64
	defaulted      bool
}

// validate checks every rule of the input schema, plus those JSON Schema
// cannot state (unique names, references to rails, no cycles), and returns
// the feed tree. Each error names the field and what to pass instead.
func validate(req Request) (*circuit, error) {
	if req.Rails == nil {
		return nil, protocol.Invalid("rails is required: list every rail (name, voltage_v, source_kind)")
	}
	if len(req.Rails) == 0 {
		return nil, protocol.Invalid("rails is empty: list at least one rail")
	}
	if req.Loads == nil {
		return nil, protocol.Invalid("loads is required: list every load with its rail (an empty list is allowed, but an unloaded rail is not_established)")
	}
	c := &circuit{req: req, maxUtilization: DefaultMaxUtilization, defaulted: true}
	if req.Derating != nil && req.Derating.MaxUtilization != nil {
		u := *req.Derating.MaxUtilization
		if !(u > 0 && u <= 1) {
			return nil, protocol.Invalid("derating.max_utilization is %g: give a fraction above 0 and at most 1 (0.8 for 80%%)", u)
		}
		c.maxUtilization, c.defaulted = u, false
	}

	index := make(map[string]int, len(req.Rails))
	for i, r := range req.Rails {
		at := fmt.Sprintf("rails[%d]", i)
		if r.Name == "" {
			return nil, protocol.Invalid("%s.name is required: give the rail a unique name", at)
		}
		if j, dup := index[r.Name]; dup {
			return nil, protocol.Invalid("%s.name %q is also rails[%d].name: rail names must be unique", at, r.Name, j)
		}
		index[r.Name] = i
		if err := validateRail(at, r); err != nil {
			return nil, err
		}
	}

	n := len(req.Rails)
	c.parent = make([]int, n)
	c.children = make([][]int, n)
	c.loadsOn = make([][]int, n)
	for i, r := range req.Rails {
		c.parent[i] = -1
		if r.InputRail == nil {
			continue
		}
		p, ok := index[*r.InputRail]
		if !ok {
			return nil, protocol.Invalid("rails[%d].input_rail %q names no rail: give one of %s", i, *r.InputRail, railNames(req.Rails))
		}
		c.parent[i] = p
		c.children[p] = append(c.children[p], i)
	}
	if cycle := findCycle(c.parent); cycle != nil {
		names := make([]string, len(cycle))
		for k, i := range cycle {
			names[k] = req.Rails[i].Name
		}
		return nil, protocol.Invalid("rails feed each other in a cycle through input_rail (%s): each chain of input_rail must end at a supply rail", strings.Join(names, " -> "))
	}

	type loadKey struct{ name, rail string }
	seen := make(map[loadKey]int, len(req.Loads))
	for i, l := range req.Loads {
		at := fmt.Sprintf("loads[%d]", i)
		if l.Name == "" {
			return nil, protocol.Invalid("%s.name is required: give the load a name unique on its rail", at)
		}
		if l.Rail == "" {
			return nil, protocol.Invalid("%s.rail is required: name the rail that supplies %q", at, l.Name)
		}
		r, ok := index[l.Rail]
		if !ok {
			return nil, protocol.Invalid("%s.rail %q names no rail: give one of %s", at, l.Rail, railNames(req.Rails))
		}
		if j, dup := seen[loadKey{l.Name, l.Rail}]; dup {
			return nil, protocol.Invalid("%s: load %q is on rail %q twice (also loads[%d]): merge them into one load, or it would be counted twice", at, l.Name, l.Rail, j)
		}
		seen[loadKey{l.Name, l.Rail}] = i
		if l.CurrentMA != nil && l.PowerMW != nil {
			return nil, protocol.Invalid("%s gives both current_ma and power_mw: give one", at)
		}
		if l.CurrentMA != nil && !(*l.CurrentMA >= 0) {
			return nil, protocol.Invalid("%s.current_ma is %g: give a current of 0 mA or more", at, *l.CurrentMA)
		}
		if l.PowerMW != nil && !(*l.PowerMW >= 0) {
			return nil, protocol.Invalid("%s.power_mw is %g: give a power of 0 mW or more", at, *l.PowerMW)
		}
		c.loadsOn[r] = append(c.loadsOn[r], i)
	}
	return c, nil
}

// validateRail checks one rail's own fields. Figures that belong to another
// source kind are refused rather than ignored: an efficiency on an LDO means
// the caller has the rail's kind or its figures wrong.
func validateRail(at string, r Rail) error {
	if r.VoltageV == nil {
		return protocol.Invalid("%s.voltage_v is required: give the rail %q output voltage in volts", at, r.Name)
	}
	if !(*r.VoltageV > 0) {
		return protocol.Invalid("%s.voltage_v is %g: give a voltage above 0 V (the magnitude, for a negative rail)", at, *r.VoltageV)
	}
	switch r.SourceKind {
	case KindSupply:
		if r.InputRail != nil {
			return protocol.Invalid("%s: rail %q is a supply, which has no input_rail: leave input_rail out, or give source_kind ldo or switching", at, r.Name)
		}
	case KindLDO, KindSwitching:
		if r.InputRail == nil {
			return protocol.Invalid("%s.input_rail is required for a %s rail: name the rail that feeds %q", at, r.SourceKind, r.Name)
		}
	case "":
		return protocol.Invalid("%s.source_kind is required: give supply, ldo or switching", at)
	default:
		return protocol.Invalid("%s.source_kind %q is not known: give supply, ldo or switching", at, r.SourceKind)
	}
	if r.RatedOutputMA != nil && !(*r.RatedOutputMA > 0) {
		return protocol.Invalid("%s.rated_output_ma is %g: give a rating above 0 mA, or leave it out if unknown", at, *r.RatedOutputMA)
	}
	if r.Efficiency != nil {
		if r.SourceKind != KindSwitching {
			return protocol.Invalid("%s.efficiency is for a switching rail, and %q is %s: leave efficiency out, or give source_kind switching", at, r.Name, r.SourceKind)
		}
		if !(*r.Efficiency > 0 && *r.Efficiency <= 1) {
			return protocol.Invalid("%s.efficiency is %g: give a fraction above 0 and at most 1 (0.9 for 90%%)", at, *r.Efficiency)
		}
	}
	if r.DropoutV != nil {
		if r.SourceKind != KindLDO {
			return protocol.Invalid("%s.dropout_v is for an ldo rail, and %q is %s: leave dropout_v out, or give source_kind ldo", at, r.Name, r.SourceKind)
		}
		if !(*r.DropoutV >= 0) {
			return protocol.Invalid("%s.dropout_v is %g: give the LDO's dropout in volts, 0 V or more", at, *r.DropoutV)
		}
	}
	if r.Topology != nil {
		if r.SourceKind != KindSwitching {
			return protocol.Invalid("%s.topology is for a switching rail, and %q is %s: leave topology out, or give source_kind switching", at, r.Name, r.SourceKind)
		}
		switch *r.Topology {
		case TopologyBuck, TopologyBoost, TopologyBuckBoost, TopologyInverting:
		default:
			return protocol.Invalid("%s.topology %q is not known: give buck, boost, buck_boost or inverting", at, *r.Topology)
		}
	}
	if r.QuiescentMA != nil {
		if r.SourceKind != KindLDO {
			return protocol.Invalid("%s.quiescent_ma is for an ldo rail, and %q is %s: leave quiescent_ma out, or give source_kind ldo", at, r.Name, r.SourceKind)
		}
		if !(*r.QuiescentMA >= 0) {
			return protocol.Invalid("%s.quiescent_ma is %g: give a current of 0 mA or more", at, *r.QuiescentMA)
		}
	}
	return nil
}

// findCycle returns the rails of one cycle in the parent links, each followed
// by the rail that feeds it and ending where it started, or nil if the links
// form a forest. Each rail has one parent, so walking up from every rail
// finds any cycle; rails already walked are not walked again.
func findCycle(parent []int) []int {
	const (
		unseen = iota
		walking
		done
	)
	state := make([]int8, len(parent))
	for start := range parent {
		var path []int
		i := start
		for i >= 0 && state[i] == unseen {
			state[i] = walking
			path = append(path, i)
			i = parent[i]
		}
		if i >= 0 && state[i] == walking {
			k := slices.Index(path, i)
			return append(slices.Clone(path[k:]), i)
		}
		for _, p := range path {
			state[p] = done
		}
	}
	return nil
}

// railNames lists the rail names for an error message.
func railNames(rails []Rail) string {
	names := make([]string, len(rails))
	for i, r := range rails {
		names[i] = fmt.Sprintf("%q", r.Name)
	}
	return strings.Join(names, ", ")
}
