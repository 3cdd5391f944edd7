package power

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// Statuses of a rail and of the whole budget.
const (
	StatusPass           = "pass"
	StatusFail           = "fail"
	StatusNotEstablished = "not_established"
)

// comparisonSlack is the relative margin by which a load must exceed its
// allowance to fail, so that float rounding of rating x utilization (500 x
// 0.8 is not exactly 400) never turns a load exactly at the allowance into a
// failure. It is far below any engineering tolerance.
const comparisonSlack = 1e-9

// Report is the result of power.check_budget.
type Report struct {
	Status   string       `json:"status"`
	Summary  string       `json:"summary"`
	Derating DeratingUsed `json:"derating"`
	Rails    []RailReport `json:"rails"`
	Missing  []Figure     `json:"missing"`
	// Warnings are what a reader could misread the status without: a
	// conversion whose direction was not checked, a pass that rests on a
	// default dropout.
	Warnings []string `json:"warnings"`
}

// DeratingUsed is the rule the budget was judged by, and whether it was the
// default, so a reader can tell a chosen 0.8 from an unchosen one.
type DeratingUsed struct {
	MaxUtilization float64 `json:"max_utilization"`
	Defaulted      bool    `json:"defaulted"`
}

// RailReport is the budget of one rail. A nil number is one that could not
// be computed because a figure it needs was not given; it marshals as null.
type RailReport struct {
	Name          string   `json:"name"`
	VoltageV      float64  `json:"voltage_v"`
	SourceKind    string   `json:"source_kind"`
	InputRail     string   `json:"input_rail,omitempty"`
	RatedOutputMA *float64 `json:"rated_output_ma"`
	AllowanceMA   *float64 `json:"allowance_ma"`
	LoadMA        *float64 `json:"load_ma"`
	// KnownLoadMA is the load computable from the figures given: a lower
	// bound of the true load, which is what lets a rail with unknowns fail.
	KnownLoadMA float64 `json:"known_load_ma"`
	// InputCurrentMA is what a regulator draws from its input rail; a supply
	// draws from none and leaves the field out of its JSON.
	InputCurrentMA *float64 `json:"input_current_ma"`
	Utilization    *float64 `json:"utilization"`
	Status         string   `json:"status"`
	Missing        []Figure `json:"missing"`
	Detail         string   `json:"detail"`
	// Checks are the topology rules judged on a regulator's conversion
	// (ldo_dropout, buck_steps_down, boost_steps_up, switching_direction);
	// a failed one fails the rail. A supply has none.
	Checks []Check `json:"checks"`
	// DropoutV is the dropout an LDO was judged by, DropoutDefaulted
	// whether it was the default; both absent for other rails.
	DropoutV         *float64 `json:"dropout_v,omitempty"`
	DropoutDefaulted *bool    `json:"dropout_defaulted,omitempty"`
	// overAllowance is whether the rail's load fails its budget, apart
	// from its checks, so the summary can say which rule a rail breaks.
	overAllowance bool
}

// MarshalJSON leaves input_current_ma out for a supply rail, so that null
// always means "unknown" and never "not applicable".
func (r RailReport) MarshalJSON() ([]byte, error) {
	type plain RailReport
	if r.SourceKind != KindSupply {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		InputCurrentMA *float64 `json:"input_current_ma,omitempty"`
	}{plain: plain(r)})
}

// Figure names one input figure that was not given.
type Figure struct {
	Kind  string `json:"kind"` // "rail" or "load"
	Name  string `json:"name"`
	Rail  string `json:"rail,omitempty"` // a load's rail, since load names are unique only per rail
	Field string `json:"field"`
}

func (f Figure) String() string {
	if f.Kind == "load" {
		return fmt.Sprintf("load %s on %s: %s", f.Name, f.Rail, f.Field)
	}
	return fmt.Sprintf("rail %s: %s", f.Name, f.Field)
}

// railLoad is the arithmetic of one rail, carried to the rail that feeds it.
type railLoad struct {
	known   float64  // load from the figures given (a lower bound)
	missing []Figure // unknown figures the load depends on
	// inputKnown is the input current from the figures given (a lower bound),
	// inputMissing the unknown figures it depends on. Regulators only.
	inputKnown   float64
	inputMissing []Figure
}

// CheckBudget validates a request and computes its budget. It is pure
// arithmetic: the same request always gives the same report.
func CheckBudget(req Request) (*Report, error) {
	c, err := validate(req)
	if err != nil {
		return nil, err
	}
	rep := c.evaluate()
	if !finite(rep) {
		return nil, protocol.Invalid("the figures are too large to add up (the budget overflows): give currents in mA and powers in mW")
	}
	return rep, nil
}

// finite reports whether every number in the report is finite. Inputs are
// finite JSON numbers, but sums of figures near the float64 limit are not,
// and JSON has no infinity to report them with.
func finite(rep *Report) bool {
	ok := func(p *float64) bool { return p == nil || !(math.IsInf(*p, 0) || math.IsNaN(*p)) }
	for _, r := range rep.Rails {
		for _, p := range []*float64{&r.KnownLoadMA, r.LoadMA, r.AllowanceMA, r.InputCurrentMA, r.Utilization} {
			if !ok(p) {
				return false
			}
		}
	}
	return true
}

// evaluate computes every rail's load from the leaves up, then judges each.
func (c *circuit) evaluate() *Report {
	loads := make([]*railLoad, len(c.req.Rails))
	for i := range c.req.Rails {
		c.load(i, loads)
	}
	rep := &Report{
		Derating: DeratingUsed{MaxUtilization: c.maxUtilization, Defaulted: c.defaulted},
		Rails:    make([]RailReport, len(c.req.Rails)),
		Missing:  []Figure{},
		Warnings: []string{},
	}
	seen := map[Figure]bool{}
	for i := range c.req.Rails {
		rr, warnings := c.judge(i, loads[i])
		rep.Rails[i] = rr
		rep.Warnings = append(rep.Warnings, warnings...)
		for _, f := range rr.Missing {
			if !seen[f] {
				seen[f] = true
				rep.Missing = append(rep.Missing, f)
			}
		}
	}
	rep.Status, rep.Summary = summarize(rep)
	if len(rep.Warnings) > 0 {
		rep.Summary += fmt.Sprintf("; %s (see warnings)", plural(len(rep.Warnings), "warning"))
	}
	return rep
}

// load computes rail i's load (memoized in loads). The rails form a tree,
// checked by validate, so the recursion ends at rails that feed nothing.
//
// A rail's load is its direct loads plus the input current of each regulator
// it feeds. A regulator's input current is carried upstream: an LDO draws its
// output current plus its quiescent current; a switching regulator draws
// Vout x Iout / (efficiency x Vin). Where a figure is unknown the known part
// is still a true lower bound (quiescent current is at least 0, efficiency at
// most 1), so a rail whose known load already exceeds its allowance fails
// without assuming anything.
func (c *circuit) load(i int, loads []*railLoad) *railLoad {
	if loads[i] != nil {
		return loads[i]
	}
	rail := c.req.Rails[i]
	v := *rail.VoltageV
	rl := &railLoad{}
	for _, li := range c.loadsOn[i] {
		l := c.req.Loads[li]
		switch {
		case l.CurrentMA != nil:
			rl.known += *l.CurrentMA
		case l.PowerMW != nil:
			rl.known += *l.PowerMW / v // mW / V = mA
		default:
			rl.missing = append(rl.missing, Figure{Kind: "load", Name: l.Name, Rail: l.Rail, Field: "current_ma or power_mw"})
		}
	}
	for _, ci := range c.children[i] {
		child := c.load(ci, loads)
		rl.known += child.inputKnown
		rl.missing = append(rl.missing, child.inputMissing...)
	}
	// Nothing declared on a rail is no data, and no data is not a pass: the
	// caller declares a 0 mA load for a rail that is truly unloaded.
	if len(c.loadsOn[i]) == 0 && len(c.children[i]) == 0 {
		rl.missing = append(rl.missing, Figure{Kind: "rail", Name: rail.Name, Field: "loads"})
	}

	rl.inputMissing = rl.missing
	switch rail.SourceKind {
	case KindLDO:
		rl.inputKnown = rl.known
		if rail.QuiescentMA != nil {
			rl.inputKnown += *rail.QuiescentMA
		} else {
			rl.inputMissing = appendFigure(rl.missing, Figure{Kind: "rail", Name: rail.Name, Field: "quiescent_ma"})
		}
	case KindSwitching:
		vin := *c.req.Rails[c.parent[i]].VoltageV
		if rail.Efficiency != nil {
			rl.inputKnown = v * rl.known / (*rail.Efficiency * vin)
		} else {
			rl.inputKnown = v * rl.known / vin // lossless: the least it can draw
			rl.inputMissing = appendFigure(rl.missing, Figure{Kind: "rail", Name: rail.Name, Field: "efficiency"})
		}
	}
	loads[i] = rl
	return rl
}

// appendFigure appends to a copy, so a rail's own list is not changed by
// what is appended for the rail above it.
func appendFigure(list []Figure, f Figure) []Figure {
	out := make([]Figure, 0, len(list)+1)
	return append(append(out, list...), f)
}

// judge turns rail i's load into its report. A rail fails when its known
// load exceeds its allowance, whatever else is unknown, or when its
// conversion breaks a topology rule; it passes only when every figure is
// known, the load is within the allowance and no rule is broken; otherwise
// it is not established. The warnings are the checks' (see topologyChecks).
func (c *circuit) judge(i int, rl *railLoad) (RailReport, []string) {
	rr := c.judgeOutput(i, rl)
	rr.Detail += ownInputFigure(c.req.Rails[i])
	rr.overAllowance = rr.Status == StatusFail
	var warnings []string
	rr.Checks, warnings = c.topologyChecks(i)
	if rail := c.req.Rails[i]; rail.SourceKind == KindLDO {
		dropout, defaulted := dropoutOf(rail)
		rr.DropoutV, rr.DropoutDefaulted = &dropout, &defaulted
	}
	for _, ch := range rr.Checks {
		if ch.Status == CheckFail {
			rr.Status = StatusFail
			rr.Detail += "; " + ch.Detail
		}
	}
	return rr, warnings
}

// judgeOutput judges rail i's output budget.
func (c *circuit) judgeOutput(i int, rl *railLoad) RailReport {
	rail := c.req.Rails[i]
	rr := RailReport{
		Name:          rail.Name,
		VoltageV:      *rail.VoltageV,
		SourceKind:    rail.SourceKind,
		RatedOutputMA: rail.RatedOutputMA,
		KnownLoadMA:   rl.known,
		Missing:       []Figure{},
	}
	if rail.InputRail != nil {
		rr.InputRail = *rail.InputRail
		if len(rl.inputMissing) == 0 {
			rr.InputCurrentMA = ptr(rl.inputKnown)
		}
	}
	if rail.RatedOutputMA == nil {
		rr.Missing = append(rr.Missing, Figure{Kind: "rail", Name: rail.Name, Field: "rated_output_ma"})
	}
	rr.Missing = append(rr.Missing, rl.missing...)
	complete := len(rl.missing) == 0
	if complete {
		rr.LoadMA = ptr(rl.known)
	}

	if rail.RatedOutputMA == nil {
		rr.Status = StatusNotEstablished
		if complete {
			rr.Detail = fmt.Sprintf("load %s mA, but rated_output_ma is not given, so there is no allowance to judge it by", ma(rl.known))
		} else {
			rr.Detail = fmt.Sprintf("rated_output_ma and %s it depends on are not given (known load %s mA)", plural(len(rl.missing), "other figure"), ma(rl.known))
		}
		return rr
	}

	rated := *rail.RatedOutputMA
	allowance := rated * c.maxUtilization
	rr.AllowanceMA = ptr(allowance)
	limit := fmt.Sprintf("%s mA allowance (%s of %s mA rated)", ma(allowance), pct(c.maxUtilization), ma(rated))
	over := rl.known > allowance*(1+comparisonSlack)
	switch {
	case complete:
		rr.Utilization = ptr(rl.known / rated)
		if over {
			rr.Status = StatusFail
			rr.Detail = fmt.Sprintf("load %s mA exceeds the %s: %s of rating", ma(rl.known), limit, pct(rl.known/rated))
		} else {
			rr.Status = StatusPass
			rr.Detail = fmt.Sprintf("load %s mA is within the %s: %s of rating", ma(rl.known), limit, pct(rl.known/rated))
		}
	case over:
		rr.Status = StatusFail
		rr.Detail = fmt.Sprintf("known load %s mA already exceeds the %s; the %s not given can only add to it", ma(rl.known), limit, plural(len(rl.missing), "figure"))
	default:
		rr.Status = StatusNotEstablished
		rr.Detail = fmt.Sprintf("known load %s mA is within the %s, but it depends on %s not given", ma(rl.known), limit, plural(len(rl.missing), "figure"))
	}
	return rr
}

// ownInputFigure is the note on a regulator whose own conversion figure is
// missing: its output budget may pass, yet its input rail cannot.
func ownInputFigure(rail Rail) string {
	switch {
	case rail.SourceKind == KindLDO && rail.QuiescentMA == nil:
		return "; what it draws from " + *rail.InputRail + " is unknown until quiescent_ma is given"
	case rail.SourceKind == KindSwitching && rail.Efficiency == nil:
		return "; what it draws from " + *rail.InputRail + " is unknown until efficiency is given"
	}
	return ""
}

// summarize gives the overall status (fail if any rail fails, else
// not_established if any rail is, else pass) and a one-line summary that
// names the rails behind it.
func summarize(rep *Report) (string, string) {
	var over, broken, unknown []string
	for _, r := range rep.Rails {
		if r.overAllowance {
			over = append(over, r.Name)
		}
		if b := brokenRules(r); b != "" {
			broken = append(broken, b)
		}
		if r.Status == StatusNotEstablished {
			unknown = append(unknown, r.Name)
		}
	}
	n := len(rep.Rails)
	switch {
	case len(over) > 0 || len(broken) > 0:
		var parts []string
		if len(over) > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d rails over allowance (%s)", len(over), n, strings.Join(over, ", ")))
		}
		if len(broken) > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d rails break a topology rule (%s)", len(broken), n, strings.Join(broken, "; ")))
		}
		s := "power budget fails: " + strings.Join(parts, "; ")
		if len(unknown) > 0 {
			s += fmt.Sprintf("; %d not established (%s)", len(unknown), strings.Join(unknown, ", "))
		}
		return StatusFail, s
	case len(unknown) > 0:
		return StatusNotEstablished, fmt.Sprintf("power budget not established: %d of %d rails depend on figures not given (%s); give the %d listed in missing",
			len(unknown), n, strings.Join(unknown, ", "), len(rep.Missing))
	default:
		return StatusPass, fmt.Sprintf("power budget passes: all %d rails within %s of their rated output", n, pct(rep.Derating.MaxUtilization))
	}
}

func ptr(v float64) *float64 { return &v }

// ma formats a current for a detail line, to 0.001 mA.
func ma(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func pct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// plural is "1 figure" or "3 figures".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
