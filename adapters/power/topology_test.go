package power

import (
	"fmt"
	"strings"
	"testing"
)

// chain is a budget of one supply feeding one regulator, each well within
// its rating (10 mA of 500), so only the regulator's topology rule can
// decide the status.
func chain(t *testing.T, vin float64, regulator string) *Report {
	t.Helper()
	return budget(t, fmt.Sprintf(`{
		"rails": [
			{"name": "IN", "voltage_v": %g, "source_kind": "supply", "rated_output_ma": 500},
			%s
		],
		"loads": [{"name": "U1", "rail": "OUT", "current_ma": 10}]
	}`, vin, regulator))
}

func wantCheck(t *testing.T, r RailReport, rule, status, says string) {
	t.Helper()
	if len(r.Checks) != 1 || r.Checks[0].Rule != rule || r.Checks[0].Status != status || !strings.Contains(r.Checks[0].Detail, says) {
		t.Fatalf("rail %s checks %+v, want one %s %s saying %q", r.Name, r.Checks, rule, status, says)
	}
}

// The case: a 5 V LDO fed from a 3.3 V rail. An LDO only drops
// voltage, so its output must be below its input by its dropout: headroom
// 3.3 - 5 = -1.7 V against the default 0.3 V fails ldo_dropout, and the
// budget with it, though every current is within its allowance.
func TestLDOAboveItsInputFails(t *testing.T) {
	rep := chain(t, 3.3, `{"name": "OUT", "voltage_v": 5, "source_kind": "ldo", "input_rail": "IN", "quiescent_ma": 1, "rated_output_ma": 500}`)
	out := rail(t, rep, "OUT")
	wantStatus(t, out, StatusFail)
	wantCheck(t, out, RuleLDODropout, CheckFail,
		"ldo_dropout fails: an LDO's output must be below its input by at least its dropout; 5 V from 3.3 V (rail IN) has headroom -1.7 V, dropout 0.3 V (the default: dropout_v not given)")
	if out.DropoutV == nil || *out.DropoutV != DefaultDropoutV || out.DropoutDefaulted == nil || !*out.DropoutDefaulted {
		t.Fatalf("dropout used %v defaulted %v, want 0.3 and true", out.DropoutV, out.DropoutDefaulted)
	}
	wantStatus(t, rail(t, rep, "IN"), StatusPass)
	if rep.Status != StatusFail || rep.Summary != "power budget fails: 1 of 2 rails break a topology rule (OUT: ldo_dropout)" {
		t.Fatalf("status %s, summary %q", rep.Status, rep.Summary)
	}
	if !strings.Contains(out.Detail, "ldo_dropout fails") {
		t.Fatalf("detail %q does not name the rule", out.Detail)
	}
}

// 3.3 V from 3.6 V: headroom 0.3 V. With dropout_v 0.5 it fails
// (0.3 < 0.5); with the default 0.3 V it passes at the limit (3.6 - 3.3 is
// 0.2999999999999998 in float64, within voltSlack) but warns that the pass
// rests on the default, since a 1117-class LDO would need 1.3 V.
func TestLDOHeadroomAgainstDropout(t *testing.T) {
	rep := chain(t, 3.6, `{"name": "OUT", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "IN", "quiescent_ma": 1, "rated_output_ma": 500, "dropout_v": 0.5}`)
	out := rail(t, rep, "OUT")
	wantStatus(t, out, StatusFail)
	wantCheck(t, out, RuleLDODropout, CheckFail, "3.3 V from 3.6 V (rail IN) has headroom 0.3 V, dropout 0.5 V")
	if *out.DropoutDefaulted {
		t.Fatal("dropout_v 0.5 given, reported as defaulted")
	}

	rep = chain(t, 3.6, `{"name": "OUT", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "IN", "quiescent_ma": 1, "rated_output_ma": 500}`)
	wantCheck(t, rail(t, rep, "OUT"), RuleLDODropout, CheckPass, "ldo_dropout passes: 3.3 V from 3.6 V (rail IN) has headroom 0.3 V, at least the dropout 0.3 V (the default: dropout_v not given)")
	want := "rail OUT: ldo_dropout passes only on the default dropout_v 0.3 V (headroom 0.3 V); a 1117-class LDO needs up to 1.3 V: give the part's dropout at this load in dropout_v"
	if rep.Status != StatusPass || len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Fatalf("status %s, warnings %q; want pass and %q", rep.Status, rep.Warnings, want)
	}
	if !strings.HasSuffix(rep.Summary, "; 1 warning (see warnings)") {
		t.Fatalf("summary %q does not point at the warning", rep.Summary)
	}

	// 3.3 V from 5 V has 1.7 V of headroom: enough for any common LDO, so
	// the default decides nothing and there is nothing to warn about.
	rep = chain(t, 5, `{"name": "OUT", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "IN", "quiescent_ma": 1, "rated_output_ma": 500}`)
	wantCheck(t, rail(t, rep, "OUT"), RuleLDODropout, CheckPass, "headroom 1.7 V")
	if rep.Status != StatusPass || len(rep.Warnings) != 0 {
		t.Fatalf("status %s, warnings %q; want pass and none", rep.Status, rep.Warnings)
	}
}

// A buck steps down, a boost steps up: 1.8 V buck from 5 V and 12 V boost
// from 5 V pass; a 12 V "buck" from 5 V and a 1.8 V "boost" from 5 V fail,
// naming the rule. buck_boost and inverting may go either way.
func TestSwitchingDirection(t *testing.T) {
	sw := func(v float64, topology string) string {
		return fmt.Sprintf(`{"name": "OUT", "voltage_v": %g, "source_kind": "switching", "input_rail": "IN", "efficiency": 0.9, "rated_output_ma": 500, "topology": %q}`, v, topology)
	}
	for _, c := range []struct {
		v              float64
		topology, rule string
		status, says   string
	}{
		{1.8, TopologyBuck, RuleBuckStepsDown, CheckPass, "buck_steps_down passes: 1.8 V from 5 V (rail IN) steps down"},
		{12, TopologyBuck, RuleBuckStepsDown, CheckFail, "buck_steps_down fails: a buck's output must be below its input, and 12 V from 5 V (rail IN) is not; if the regulator steps up, give topology boost or buck_boost"},
		{5, TopologyBuck, RuleBuckStepsDown, CheckFail, "buck_steps_down fails"},
		{12, TopologyBoost, RuleBoostStepsUp, CheckPass, "boost_steps_up passes: 12 V from 5 V (rail IN) steps up"},
		{1.8, TopologyBoost, RuleBoostStepsUp, CheckFail, "boost_steps_up fails: a boost's output must be above its input, and 1.8 V from 5 V (rail IN) is not; if the regulator steps down, give topology buck or buck_boost"},
		{12, TopologyBuckBoost, RuleSwitchingDirection, CheckPass, "either way"},
		{3.3, TopologyBuckBoost, RuleSwitchingDirection, CheckPass, "either way"},
		{12, TopologyInverting, RuleSwitchingDirection, CheckPass, "inverting"},
	} {
		rep := chain(t, 5, sw(c.v, c.topology))
		out := rail(t, rep, "OUT")
		wantCheck(t, out, c.rule, c.status, c.says)
		want := map[string]string{CheckPass: StatusPass, CheckFail: StatusFail}[c.status]
		if out.Status != want || rep.Status != want || len(rep.Warnings) != 0 {
			t.Fatalf("%g V %s from 5 V: rail %s, budget %s, warnings %q; want %s and none", c.v, c.topology, out.Status, rep.Status, rep.Warnings, want)
		}
		if c.status == CheckFail && !strings.Contains(rep.Summary, "break a topology rule (OUT: "+c.rule+")") {
			t.Fatalf("summary %q does not name %s", rep.Summary, c.rule)
		}
	}
}

// A switching rail with no topology is not a silent pass: its direction is
// not_checked and warnings says so, beside a budget that passes.
func TestSwitchingWithoutTopologyWarns(t *testing.T) {
	rep := chain(t, 5, `{"name": "OUT", "voltage_v": 12, "source_kind": "switching", "input_rail": "IN", "efficiency": 0.9, "rated_output_ma": 500}`)
	wantCheck(t, rail(t, rep, "OUT"), RuleSwitchingDirection, CheckNotChecked, "topology is not given")
	want := "rail OUT: topology not given, so the direction of its conversion (12 V from 5 V (rail IN)) was not checked; give topology buck, boost, buck_boost or inverting"
	if rep.Status != StatusPass || len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Fatalf("status %s, warnings %q; want pass and %q", rep.Status, rep.Warnings, want)
	}
	if rep.Summary != "power budget passes: all 2 rails within 80.0% of their rated output; 1 warning (see warnings)" {
		t.Fatalf("summary %q", rep.Summary)
	}
	if len(rail(t, rep, "IN").Checks) != 0 {
		t.Fatal("a supply has checks")
	}
}

// A rule broken on a rail whose own budget is over allowance too: both
// are said, and the rail fails once.
func TestOverAllowanceAndBrokenRule(t *testing.T) {
	rep := budget(t, `{
		"rails": [
			{"name": "IN", "voltage_v": 3.3, "source_kind": "supply", "rated_output_ma": 500},
			{"name": "OUT", "voltage_v": 5, "source_kind": "ldo", "input_rail": "IN", "quiescent_ma": 1, "rated_output_ma": 100}
		],
		"loads": [{"name": "U1", "rail": "OUT", "current_ma": 90}]
	}`)
	if rep.Summary != "power budget fails: 1 of 2 rails over allowance (OUT); 1 of 2 rails break a topology rule (OUT: ldo_dropout)" {
		t.Fatalf("summary %q", rep.Summary)
	}
}

// dropout_v and topology belong to one kind of rail each, and take only
// sensible values.
func TestTopologyFieldsInvalid(t *testing.T) {
	for _, c := range []struct{ regulator, want string }{
		{`{"name": "OUT", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "IN", "dropout_v": 0.3}`, `rails[1].dropout_v is for an ldo rail, and "OUT" is switching: leave dropout_v out, or give source_kind ldo`},
		{`{"name": "OUT", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "IN", "topology": "buck"}`, `rails[1].topology is for a switching rail, and "OUT" is ldo: leave topology out, or give source_kind switching`},
		{`{"name": "OUT", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "IN", "dropout_v": -0.1}`, `rails[1].dropout_v is -0.1: give the LDO's dropout in volts, 0 V or more`},
		{`{"name": "OUT", "voltage_v": 3.3, "source_kind": "switching", "input_rail": "IN", "topology": "flyback"}`, `rails[1].topology "flyback" is not known: give buck, boost, buck_boost or inverting`},
	} {
		req, err := decodeRequest([]byte(`{"rails": [{"name": "IN", "voltage_v": 5, "source_kind": "supply"}, ` + c.regulator + `], "loads": []}`))
		if err != nil {
			t.Fatal(err)
		}
		_, err = CheckBudget(req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.regulator, err, c.want)
		}
	}
}
