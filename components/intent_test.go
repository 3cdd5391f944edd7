package components

import (
	"reflect"
	"strings"
	"testing"
)

func f(name, op string, v float64, unit string) Filter {
	return Filter{Name: name, Op: op, Value: v, Unit: unit}
}

// TestParseIntentPhrasings reads goals written in different ways into the
// categories and bounds written here.
func TestParseIntentPhrasings(t *testing.T) {
	for _, c := range []struct {
		goal     string
		cats     []string
		bounds   []Filter
		leftover []string
	}{
		{"step 12V down to 5V at 2A for a flight controller", []string{CatBuck},
			[]Filter{f("v_in_min", "<=", 12, "V"), f("v_in_max", ">=", 12, "V"), f("v_out", "==", 5, "V"), f("i_out", ">=", 2, "A")},
			[]string{"flight", "controller"}},
		{"12 V to 5 V, 500mA, for a sensor board", []string{CatBuck, CatLDO},
			[]Filter{f("v_in_min", "<=", 12, "V"), f("v_in_max", ">=", 12, "V"), f("v_out", "==", 5, "V"), f("i_out", ">=", 500, "mA")},
			[]string{"sensor", "board"}},
		{"An efficient regulator from 24V to 3.3V, 2 A output", []string{CatBuck},
			[]Filter{f("v_in_min", "<=", 24, "V"), f("v_in_max", ">=", 24, "V"), f("v_out", "==", 3.3, "V"), f("i_out", ">=", 2, "A"),
				f("efficiency", ">=", 90, "%")},
			[]string{}},
		{"low-noise LDO, 5V to 3.3V at 150mA with 50uA quiescent", []string{CatLDO},
			[]Filter{f("v_in_min", "<=", 5, "V"), f("v_in_max", ">=", 5, "V"), f("v_out", "==", 3.3, "V"), f("i_q", "<=", 50, "uA"),
				f("i_out", ">=", 150, "mA")},
			[]string{}},
		{"boost a 3.7V battery up to 5V, 10W, >90% efficiency", []string{CatBoost},
			[]Filter{f("v_in_min", "<=", 3.7, "V"), f("v_in_max", ">=", 3.7, "V"), f("v_out", "==", 5, "V"), f("p_out", ">=", 10, "W"),
				f("efficiency", ">", 90, "%")},
			[]string{}},
		{"motor driver for a 12V brushed motor at 3A", []string{CatMotor},
			[]Filter{f("i_out", ">=", 3, "A"), f("v_in_min", "<=", 12, "V"), f("v_in_max", ">=", 12, "V")},
			[]string{"brushed", "motor"}},
		{"3.3V LDO for 7-12V input", []string{CatLDO},
			[]Filter{f("v_in_min", "<=", 7, "V"), f("v_in_max", ">=", 12, "V"), f("v_out", "==", 3.3, "V")},
			[]string{}},
	} {
		t.Run(c.goal, func(t *testing.T) {
			it := ParseIntent(c.goal)
			if !reflect.DeepEqual(it.Categories, c.cats) {
				t.Errorf("categories %v, want %v", it.Categories, c.cats)
			}
			if !reflect.DeepEqual(it.Bounds, c.bounds) {
				t.Errorf("bounds\n got %v\nwant %v", it.Bounds, c.bounds)
			}
			if !reflect.DeepEqual(it.Leftover, c.leftover) {
				t.Errorf("leftover %q, want %q", it.Leftover, c.leftover)
			}
			if len(it.Read) == 0 {
				t.Errorf("nothing is shown as read")
			}
			if again := ParseIntent(c.goal); !reflect.DeepEqual(again, it) {
				t.Errorf("a second reading differs: %+v", again)
			}
			for _, b := range it.Bounds {
				if _, err := ParseFilter(b.String()); err != nil {
					t.Errorf("bound %s does not read back as a filter: %v", b, err)
				}
			}
		})
	}
}

func TestParseIntentShowsWhatItRead(t *testing.T) {
	it := ParseIntent("step 12V down to 5V at 2A for a flight controller")
	var got []string
	for _, r := range it.Read {
		got = append(got, r.Phrase+" => "+r.As)
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{"12v down to 5v => v_in_min <= 12 V, v_in_max >= 12 V, v_out == 5 V", "2a => i_out >= 2 A",
		"category buck_converter (steps down)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("read shows\n%s\nwithout %q", joined, want)
		}
	}
}
