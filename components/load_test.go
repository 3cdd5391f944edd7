package components

import (
	"strings"
	"testing"
)

func TestLoadCSVRefusesBadRowsByReason(t *testing.T) {
	csv := "mpn,manufacturer,category,kind,v_out[V],i_out[A],price\n" +
		"A1,Acme,Buck Converter,part,3300 mV,2,$1.20\n" + // line 2: loads; category and cell unit normalised
		"A2,Acme,buck_converter,gizmo,5,2,\n" + // line 3: bad kind
		"A3,Acme,buck_converter,part,5 A,2,\n" + // line 4: a current in a voltage column
		"A4,,buck_converter,part,5,2,\n" + // line 5: no manufacturer
		"a1,ACME,buck_converter,part,5,2,\n" + // line 6: A1 again
		"A5,Acme,buck_converter,assembly,5,7 furlongs,\n" + // line 7: unknown unit
		"A6,Acme,ldo,part,,,2.5 EUR\n" // line 8: loads, no figures
	rows, refused, err := LoadCSV(strings.NewReader(csv), "c.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].MPN != "A1" || rows[1].MPN != "A6" {
		t.Fatalf("rows %+v", rows)
	}
	a1 := rows[0]
	if v, _ := a1.Figure("v_out"); a1.Category != "buck_converter" || v.Value != 3300 || v.Unit != "mV" || v.SI != 3.3 ||
		*a1.Price != 1.2 || a1.Currency != "USD" || a1.Source != "c.csv#L2" {
		t.Errorf("A1 %+v v_out %+v", a1, v)
	}
	if *rows[1].Price != 2.5 || rows[1].Currency != "EUR" || len(rows[1].Figures) != 0 {
		t.Errorf("A6 %+v", rows[1])
	}
	want := map[string]string{"c.csv#L3": "kind \"gizmo\"", "c.csv#L4": "is a current, but the column is in V",
		"c.csv#L5": "manufacturer is empty", "c.csv#L6": "already at c.csv#L2", "c.csv#L7": "furlongs"}
	if len(refused) != len(want) {
		t.Fatalf("refused %+v", refused)
	}
	for _, r := range refused {
		if !strings.Contains(r.Reason, want[r.Source]) || want[r.Source] == "" {
			t.Errorf("%s refused for %q, want it to say %q", r.Source, r.Reason, want[r.Source])
		}
	}
}

func TestLoadCSVRefusesABadHeader(t *testing.T) {
	for csv, want := range map[string]string{
		"mpn,manufacturer,category,v_out[V]\n":            "lacks kind",
		"mpn,manufacturer,category,kind,v_out[parsecs]\n": "parsecs",
		"mpn,manufacturer,category,kind,v_out,v_out\n":    "twice",
		"": "empty",
	} {
		if _, _, err := LoadCSV(strings.NewReader(csv), "h.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want it to say %q", csv, err, want)
		}
	}
}

func TestLoadJSONBothFigureForms(t *testing.T) {
	doc := `{"rows": [
	  {"mpn": "J1", "manufacturer": "Acme", "category": "ldo", "kind": "part", "price": "$0.40",
	   "figures": {"v_out": "3.3 V", "i_out": {"value": 150, "unit": "mA"}, "efficiency": 0.6}},
	  {"mpn": "J2", "manufacturer": "Acme", "category": "ldo", "kind": "module", "price": 3, "currency": "GBP",
	   "figures": [{"name": "v_out", "value": 1.8, "unit": "V"}, {"name": "I Out", "value": 0.3, "unit": "A"}]},
	  {"mpn": "J3", "manufacturer": "Acme", "category": "ldo", "kind": "part", "colour": "red"},
	  {"mpn": "J4", "manufacturer": "Acme", "category": "ldo", "kind": "part", "figures": {"v_out": "2.7-5.5 V"}}
	]}`
	rows, refused, err := LoadJSON(strings.NewReader(doc), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || len(refused) != 2 {
		t.Fatalf("rows %+v refused %+v", rows, refused)
	}
	if i, _ := rows[0].Figure("i_out"); i.SI != 0.15 || rows[0].Source != "c.json#/0" || *rows[0].Price != 0.4 || rows[0].Currency != "USD" {
		t.Errorf("J1 %+v", rows[0])
	}
	if i, ok := rows[1].Figure("i_out"); !ok || i.SI != 0.3 || rows[1].Kind != KindAssembly || rows[1].Currency != "GBP" {
		t.Errorf("J2 %+v", rows[1])
	}
	if refused[0].Source != "c.json#/2" || !strings.Contains(refused[0].Reason, "colour") ||
		refused[1].Source != "c.json#/3" || !strings.Contains(refused[1].Reason, "range") {
		t.Errorf("refused %+v", refused)
	}
	if _, _, err := LoadJSON(strings.NewReader(`{"parts": 3}`), "bad.json"); err == nil || !strings.Contains(err.Error(), "array of rows") {
		t.Errorf("not a catalogue: %v", err)
	}
}

func TestParseFilterForms(t *testing.T) {
	for in, want := range map[string]string{
		"v_out==5 V": "v_out == 5 V", "efficiency>0.9": "efficiency > 0.9", "i_out>=2A": "i_out >= 2 A",
		"I-Out ≤ 500mA": "i_out <= 500 mA", "v_out=4.9..5.1 V": "v_out=4.9..5.1 V", "v_out = 4900 mV..5.1 V": "v_out=4.9..5.1 V",
		"f_sw != 2.2 MHz": "f_sw != 2.2 MHz",
	} {
		f, err := ParseFilter(in)
		if err != nil || f.String() != want {
			t.Errorf("%q read as %q (%v), want %q", in, f.String(), err, want)
		}
	}
	for in, want := range map[string]string{"v_out": "write name op value", "v_out>=5 parsecs": "parsecs",
		"v_out=5.1..4.9 V": "empty", "v_out>=4..5 V": "range is written", "v_out==2.7-5.5 V": "range"} {
		if _, err := ParseFilter(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want it to say %q", in, err, want)
		}
	}
}
