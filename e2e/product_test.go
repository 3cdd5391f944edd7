//go:build unix

package e2e

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// figure is a roll-up figure as the client saw it.
type figure struct {
	Value           *float64 `json:"value"`
	KnownPartialSum *float64 `json:"known_partial_sum"`
	NoData          []struct {
		Name string `json:"name"`
	} `json:"no_data"`
}

// product is what product_client.mjs saw.
type product struct {
	Servo struct {
		Selected   string `json:"selected"`
		Meets      bool   `json:"meets"`
		Decision   string `json:"decision"`
		Candidates []struct {
			MPN    string  `json:"mpn"`
			Passes float64 `json:"passes"`
			NoData float64 `json:"noData"`
		} `json:"candidates"`
	} `json:"servo"`
	Before, After struct {
		Mass    figure `json:"mass"`
		Cost    figure `json:"cost"`
		Budgets []struct {
			Name        string   `json:"name"`
			Status      string   `json:"status"`
			Used        *float64 `json:"used"`
			Allocations []struct {
				Actual *float64 `json:"actual"`
				Status string   `json:"status"`
			} `json:"allocations"`
		} `json:"budgets"`
	}
	Realized struct {
		Revision float64 `json:"revision"`
	} `json:"realized"`
	BOM struct {
		Status int `json:"status"`
		Body   struct {
			View  string `json:"view"`
			Lines []struct {
				Name     string   `json:"name"`
				MPN      string   `json:"mpn"`
				Category string   `json:"category"`
				Quantity int      `json:"total_quantity"`
				Unit     *float64 `json:"unit_cost_usd"`
				Extended *float64 `json:"extended_cost_usd"`
			} `json:"lines"`
			Total *float64 `json:"total_cost_usd"`
		} `json:"body"`
	} `json:"bom"`
	Checklist []string `json:"checklist"`
	Harness   struct {
		Total   float64            `json:"total"`
		Lengths map[string]float64 `json:"lengths"`
	} `json:"harness"`
	Plan        []string `json:"plan"`
	Calibration struct {
		Samples int     `json:"samples"`
		Banded  bool    `json:"banded"`
		Mean    float64 `json:"mean"`
		StdDev  float64 `json:"std_dev"`
		Low     float64 `json:"low"`
		High    float64 `json:"high"`
	} `json:"calibration"`
	Ended    map[string]any  `json:"ended"`
	AfterEnd json.RawMessage `json:"afterEnd"`
}

// Issue 22 with the TypeScript SDK, as an agent on this machine drives
// it: the product's structure, rolled up and billed, built, wired and
// measured, each figure against a hand computation.
func TestProductStructureThroughMCP(t *testing.T) {
	began := time.Now()
	var o product
	runStdioAgent(t, "product_client.mjs", freePorts(t, 3), 10*time.Minute, &o)
	t.Logf("the product scenario took %s", time.Since(began).Round(time.Millisecond))

	near := func(what string, got *float64, want, tol float64) {
		t.Helper()
		switch {
		case got == nil:
			t.Errorf("%s is unknown, want %g", what, want)
		case math.Abs(*got-want) > tol:
			t.Errorf("%s = %.9g, want %.9g within %g", what, *got, want, tol)
		}
	}
	// The servo: the DS3225 gives 8.4 V against >= 7.4 V; the MG996R gives
	// no voltage, so it is no_data for it, never a pass.
	if o.Servo.Selected != "DS3225" || !o.Servo.Meets || !strings.HasPrefix(o.Servo.Decision, "DEC-") || len(o.Servo.Candidates) != 2 {
		t.Fatalf("servo selection = %+v", o.Servo)
	}
	for _, c := range o.Servo.Candidates {
		if c.MPN == "MG996R" && (c.Passes != 0 || c.NoData != 1) {
			t.Errorf("the candidate with no voltage = %+v, want no_data, not a pass", c)
		}
	}

	// Mass by hand from the boxes and densities (kg/mm^3): steel base
	// 100x100x10 at 7.85e-6 = 0.785; aluminium links 200x40x20 and
	// 150x30x20 at 2.7e-6 = 0.432 and 0.243. The servos have no model yet:
	// no_data, named, and only a partial sum. Then each is a 40x20x40
	// steel body, 0.2512 kg, two of them.
	const tolKg = 1e-6
	near("mass before, partial", o.Before.Mass.KnownPartialSum, 0.785+0.432+0.243, tolKg)
	if o.Before.Mass.Value != nil || len(o.Before.Mass.NoData) != 1 || o.Before.Mass.NoData[0].Name != "Servo" {
		t.Errorf("mass before the servo had a model = %+v, want no_data naming Servo", o.Before.Mass)
	}
	near("mass after", o.After.Mass.Value, 0.785+0.432+0.243+2*40*20*40*7.85e-6, tolKg)
	// Cost: three plates at $45.00 and two servos at $18.90.
	near("cost", o.After.Cost.Value, 3*45+2*18.90, 1e-9)
	// The mass budget: 1.9624 of 2.5 kg; but the two servos, 0.5024 kg,
	// are over the 0.4 kg allocated to them.
	if len(o.After.Budgets) != 1 || o.After.Budgets[0].Status != "fail" || len(o.After.Budgets[0].Allocations) != 1 ||
		o.After.Budgets[0].Allocations[0].Status != "fail" {
		t.Fatalf("budgets after = %+v", o.After.Budgets)
	}
	near("budget used", o.After.Budgets[0].Used, 0.785+0.432+0.243+2*40*20*40*7.85e-6, tolKg)
	near("servos against their allocation", o.After.Budgets[0].Allocations[0].Actual, 2*40*20*40*7.85e-6, tolKg)
	if o.Realized.Revision != 2 {
		t.Errorf("realising the servo position made revision %v, want 2", o.Realized.Revision)
	}

	// The EBOM over REST, line by line.
	b := o.BOM.Body
	if o.BOM.Status != 200 || b.View != "flat" || len(b.Lines) != 2 {
		t.Fatalf("GET /v1/bom = %d %+v", o.BOM.Status, b)
	}
	for _, want := range []struct {
		name, mpn, category string
		qty                 int
		unit                float64
	}{{"Joint servo", "DS3225", "actuator", 2, 18.90}, {"Machined plate", "AL-PLATE-01", "raw material", 3, 45}} {
		i := slices.IndexFunc(b.Lines, func(l struct {
			Name     string   `json:"name"`
			MPN      string   `json:"mpn"`
			Category string   `json:"category"`
			Quantity int      `json:"total_quantity"`
			Unit     *float64 `json:"unit_cost_usd"`
			Extended *float64 `json:"extended_cost_usd"`
		}) bool {
			return l.Name == want.name
		})
		if i < 0 {
			t.Errorf("no BOM line %s in %+v", want.name, b.Lines)
			continue
		}
		l := b.Lines[i]
		if l.MPN != want.mpn || l.Category != want.category || l.Quantity != want.qty {
			t.Errorf("BOM line %+v, want %+v", l, want)
		}
		near(want.name+" unit cost", l.Unit, want.unit, 1e-9)
		near(want.name+" extended cost", l.Extended, want.unit*float64(want.qty), 1e-9)
	}
	near("BOM total", b.Total, 3*45+2*18.90, 1e-9)

	// Bring-up: the shoulder before the elbow, whatever order they were
	// recorded in; cables along the chain: 60 and 60+200 mm, 4 wires each.
	if want := []string{"Step 1: attach Lower link to Base via shoulder (revolute joint)",
		"Step 2: attach Upper link to Lower link via elbow (revolute joint)"}; !slices.Equal(o.Checklist, want) {
		t.Errorf("checklist = %q, want %q", o.Checklist, want)
	}
	if o.Harness.Lengths["shoulder"] != 60 || o.Harness.Lengths["elbow"] != 260 || math.Abs(o.Harness.Total-4*(60+260)) > 1e-9 {
		t.Errorf("harness = %+v", o.Harness)
	}

	// A plan from the two test requirements, not the analysed one.
	if len(o.Plan) != 2 || !strings.Contains(strings.Join(o.Plan, "\n"), "acceptance: tip_deflection <= 0.5 mm") {
		t.Errorf("test plan = %q", o.Plan)
	}
	// Three measurements 0.31, 0.29, 0.33 mm: mean 0.31, sample standard
	// deviation sqrt((0 + 0.02^2 + 0.02^2) / 2) = 0.02, band 0.31 +/- 0.04.
	c := o.Calibration
	if c.Samples != 3 || !c.Banded || math.Abs(c.Mean-0.31) > 1e-12 || math.Abs(c.StdDev-0.02) > 1e-12 ||
		math.Abs(c.Low-0.27) > 1e-12 || math.Abs(c.High-0.35) > 1e-12 {
		t.Errorf("calibration = %+v", c)
	}
	// The narrative ended once; an event after it is refused.
	if o.Ended["status"] != "completed" || !strings.Contains(string(o.AfterEnd), "error") {
		t.Errorf("ended %v, then an event = %s", o.Ended, o.AfterEnd)
	}
}
