package twin_test

import (
	"math"
	"testing"

	"github.com/metaforge/metaforge/internal/units"
	"github.com/metaforge/metaforge/twin"
)

// A margin is a difference of rounded values and carries no residue of
// the conversion: 3.6 V - 3300 mV is 0.3 V.
func TestMarginRounding(t *testing.T) {
	lim := 3.6
	c := twin.Constraint{Operator: "<=", Limit: &lim}
	v, _ := units.Convert(3300, "mV", "V")
	ok, m, pct := c.Judge(v)
	if !ok || m == nil || *m != 0.3 || pct == nil || math.Abs(*pct-8.33333333333) > 1e-9 {
		t.Errorf("3300 mV against <= 3.6 V: satisfied %v, margin %v, pct %v; want true, 0.3, 8.333...", ok, deref64(m), deref64(pct))
	}
	eq := 3.3
	ok, m, pct = twin.Constraint{Operator: "==", Limit: &eq}.Judge(v)
	if !ok || m != nil || pct != nil {
		t.Errorf("3300 mV == 3.3 V: satisfied %v, margin %v, pct %v; want true with no margin", ok, m, pct)
	}
	zero := 0.0
	ok, m, pct = twin.Constraint{Operator: ">", Limit: &zero}.Judge(0)
	if ok || m == nil || *m != 0 || pct != nil {
		t.Errorf("0 > 0: satisfied %v, margin %v, pct %v; want false, 0, no pct (limit 0)", ok, deref64(m), pct)
	}
}

func deref64(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
