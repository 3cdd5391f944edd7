package twin_test

import (
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// System budgets held against the product hierarchy's roll-up: mass,
// cost, power and heat, and an allocation to a branch held against that
// branch times how many of it the product holds.
func testSystemBudgets(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Budgets")
	power := func(peak, avg, diss float64) *twin.Power {
		return &twin.Power{PeakW: &peak, AverageW: &avg, DissipationW: &diss}
	}
	robot := g.position(twin.HierarchyNodeWrite{Name: "Robot", Level: "product"})
	arm := g.position(twin.HierarchyNodeWrite{Name: "Arm", Level: "assembly", Parent: robot.Item.Key, Quantity: ptr(2)})
	g.position(twin.HierarchyNodeWrite{Name: "Motor", Level: "part", Parent: arm.Item.Key, Power: power(40, 10, 5),
		RealizedBy: g.commit("cad_model", "Motor body", map[string]any{"mass_kg": 0.5}).ID,
		InstanceOf: g.bom("Motor", "M-40", map[string]any{"unit_cost": "$30.00"}).ID})
	g.position(twin.HierarchyNodeWrite{Name: "Controller", Level: "part", Parent: robot.Item.Key, Power: power(12, 6, 6),
		RealizedBy: g.commit("cad_model", "Controller box", map[string]any{"mass_kg": 0.2}).ID,
		InstanceOf: g.bom("Controller", "C-1", map[string]any{"unit_cost": "$50.00"}).ID})
	budget := func(name, metric, unit string, total float64, allocations ...any) {
		t.Helper()
		props := map[string]any{"metric": metric, "unit": unit, "system_total": total}
		if len(allocations) > 0 {
			props["allocations"] = allocations
		}
		if _, err := twin.RecordEntity(bg, s, twin.EntityWrite{ProjectID: g.p.ID, EntityType: "budget", Name: name, Properties: props}); err != nil {
			t.Fatal(err)
		}
	}
	// By hand: mass 2 x 0.5 + 0.2 = 1.2 kg; cost 2 x 30 + 50 = 110 USD;
	// peak 2 x 40 + 12 = 92 W; dissipation 2 x 5 + 6 = 16 W; the arms'
	// peak 2 x 40 = 80 W against the 70 W allocated to them.
	budget("Mass", "mass", "g", 1500)
	budget("Cost", "cost", "USD", 100)
	budget("Peak power", "peak_power", "W", 100,
		map[string]any{"target": arm.Item.Key, "amount": 70.0}, map[string]any{"target": "HN-CONTROLLER", "amount": 20.0})
	budget("Heat", "dissipation", "W", 20)
	budget("Volume", "volume", "L", 10, 3.0, 4.0)

	statuses, err := twin.HoldBudgets(bg, s, g.p.ID)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]twin.BudgetStatus{}
	for _, b := range statuses {
		by[b.Name] = b
	}
	for _, want := range []struct {
		name, status string
		used         float64
		source       string
	}{
		{"Mass", twin.StatusPass, 1200, "the product hierarchy's rolled-up mass of HN-ROBOT@1"},
		{"Cost", twin.StatusFail, 110, "the product hierarchy's rolled-up cost of HN-ROBOT@1"},
		{"Peak power", twin.StatusFail, 92, "the product hierarchy's rolled-up peak_power of HN-ROBOT@1"},
		{"Heat", twin.StatusPass, 16, "the product hierarchy's rolled-up dissipation of HN-ROBOT@1"},
		{"Volume", twin.StatusPass, 7, "the sum of its 2 allocations: what was planned, not what the product uses"},
	} {
		b := by[want.name]
		if b.Status != want.status || b.Used == nil || math.Abs(*b.Used-want.used) > 1e-9 || b.Source != want.source {
			t.Errorf("budget %s = %s, used %v from %q; want %s, %g from %q (%s)", want.name, b.Status, b.Used, b.Source, want.status, want.used, want.source, b.Detail)
		}
	}
	pp := by["Peak power"]
	if len(pp.Allocations) != 2 || pp.Allocations[0].Status != twin.StatusFail || pp.Allocations[0].Actual == nil || *pp.Allocations[0].Actual != 80 ||
		pp.Allocations[1].Status != twin.StatusPass || *pp.Allocations[1].Actual != 12 ||
		pp.Detail != "over its allocation: Arm (HN-ARM@1 x2): 80 of 70 W" {
		t.Fatalf("peak power allocations = %+v (%s)", pp.Allocations, pp.Detail)
	}
	if v := by["Volume"].Allocations; len(v) != 2 || v[0].Status != twin.StatusNoData || !strings.Contains(v[0].Detail, "not checked") {
		t.Errorf("bare allocations of a metric the roll-up has not = %+v", v)
	}

	// G3 reads the same: two budgets over, named.
	gates, err := twin.MaturityGates(bg, s, g.p.ID)
	if err != nil {
		t.Fatal(err)
	}
	c := checkOf(t, gates[0], "budgets_held")
	if c.Status != twin.GateFail || len(c.Failing) != 2 || !strings.Contains(c.Failing[0], `budget "Cost": 110 of 100 USD`) {
		t.Errorf("G3 budgets = %+v", c)
	}

	// A motor without a power figure: the peak is no_data, naming it, and
	// the budget falls back to what was planned.
	g.position(twin.HierarchyNodeWrite{Name: "Fan", Level: "part", Parent: robot.Item.Key})
	statuses, err = twin.HoldBudgets(bg, s, g.p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range statuses {
		if b.Name == "Heat" && (b.Status != twin.StatusNoData || !strings.Contains(strings.Join(b.Missing, "; "), "Fan (HN-FAN@1)")) {
			t.Errorf("heat with a fan of unknown power = %s %v", b.Status, b.Missing)
		}
		if b.Name == "Peak power" && (b.Source != "the sum of its 2 allocations: what was planned, not what the product uses" || b.Status != twin.StatusFail) {
			t.Errorf("peak power with a fan of unknown power = %s from %q (%s)", b.Status, b.Source, b.Detail)
		}
	}
}
