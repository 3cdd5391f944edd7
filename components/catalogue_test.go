package components

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/ledger/pgtest"
)

// The test catalogue: 200 rows, 50 in each of four categories. Row i is
// in cats[i%4]; within its category it is the j-th row, j = i/4, 0..49,
// and its figures follow j:
//
//	v_out      [3.3, 5, 12, 1.8, 5][j%5] V           (v_out == 5 V: 20 rows of 50)
//	i_out      [0.5, 1, 2, 3, 5][(j/5)%5] A, written in mA when j is even
//	v_in_min   4.5 + j%3 V, v_in_max [17, 28, 36, 60][j%4] V
//	efficiency 0.80 + 0.01*(j%15), absent when j%7 == 0 (8 rows of 50)
//	kind       assembly when j%3 == 0 (17 rows), else part
//	price      0.5 + 0.1*j USD, absent when j%11 == 0
var (
	testCats  = []string{"buck_converter", "ldo", "boost_converter", "motor_driver"}
	testVouts = []float64{3.3, 5, 12, 1.8, 5}
	testIouts = []float64{0.5, 1, 2, 3, 5}
	testVmax  = []float64{17, 28, 36, 60}
	testMfrs  = []string{"Texas Instruments", "Analog Devices", "STMicroelectronics", "onsemi", "Monolithic Power"}
)

// testCSV writes the 200-row catalogue.
func testCSV() string {
	var b strings.Builder
	b.WriteString("mpn,manufacturer,category,kind,description,v_in_min[V],v_in_max[V],v_out[V],i_out[A],efficiency,price[USD],image_url,footprint,cad_model_url\n")
	for i := 0; i < 200; i++ {
		j := i / 4
		kind := "part"
		if j%3 == 0 {
			kind = "assembly"
		}
		iout := fmt.Sprintf("%g", testIouts[(j/5)%5])
		if j%2 == 0 {
			iout = fmt.Sprintf("%g mA", testIouts[(j/5)%5]*1000)
		}
		eff := ""
		if j%7 != 0 {
			eff = fmt.Sprintf("0.%d", 80+j%15)
		}
		price := ""
		if j%11 != 0 {
			price = fmt.Sprintf("%.2f", 0.5+0.1*float64(j))
		}
		fmt.Fprintf(&b, "MF%03d,%s,%s,%s,\"%s row %d, %s\",%g,%g,%g,%s,%s,%s,https://img.example/MF%03d.png,SOT-23-%d,https://cad.example/MF%03d.step\n",
			i, testMfrs[i%5], testCats[i%4], kind, testCats[i%4], i, kind, 4.5+float64(j%3), testVmax[j%4], testVouts[j%5], iout, eff, price,
			i, 5+j%2, i)
	}
	return b.String()
}

// eachStore runs a test on a fresh SQLite store and a fresh PostgreSQL
// store, loaded with the test catalogue.
func eachStore(t *testing.T, run func(t *testing.T, st Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "data", "knowledge.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		load(t, st)
		run(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := OpenPostgres(context.Background(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		load(t, st)
		run(t, st)
	})
}

func load(t *testing.T, st Store) {
	t.Helper()
	rows, refused, err := LoadCSV(strings.NewReader(testCSV()), "cat.csv")
	if err != nil || len(refused) > 0 || len(rows) != 200 {
		t.Fatalf("load: %d rows, refused %v, %v", len(rows), refused, err)
	}
	out, err := st.Put(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o != Added {
			t.Fatalf("row %d: %s on first load", i, o)
		}
	}
}

func search(t *testing.T, st Store, category string, filters ...string) Answer {
	t.Helper()
	q := Query{Category: category, Limit: MaxLimit}
	for _, s := range filters {
		f, err := ParseFilter(s)
		if err != nil {
			t.Fatal(err)
		}
		q.Filters = append(q.Filters, f)
	}
	a, err := Search(context.Background(), st, q)
	if err != nil {
		t.Fatalf("%s %v: %v", category, filters, err)
	}
	return a
}

func TestCatalogueOperators(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		for _, c := range []struct {
			filters []string
			want    int
		}{
			{[]string{"v_out==5 V"}, 20},
			{[]string{"v_out==5000 mV"}, 20},
			{[]string{"v_out = 5"}, 20},
			{[]string{"v_out!=5 V"}, 30},
			{[]string{"v_out<5 V"}, 20},
			{[]string{"v_out<=5 V"}, 40},
			{[]string{"v_out>5V"}, 10},
			{[]string{"v_out>=5 V"}, 30},
			{[]string{"v_out=4.9..5.1 V"}, 20},
			{[]string{"v_out=1.7..3.4 V"}, 20},
			{[]string{"efficiency>0.9"}, 9},
			{[]string{"efficiency>=0.9"}, 12},
			{[]string{"efficiency>90 %"}, 9},
			{[]string{"v_out==5 V", "i_out>=2 A"}, 12},
			{[]string{"v_in_min<=5 V", "v_in_max>=30 V"}, 8},
		} {
			a := search(t, st, "buck_converter", c.filters...)
			if a.Matched != c.want || len(a.Rows) != c.want {
				t.Errorf("%v: matched %d (%d rows), want %d", c.filters, a.Matched, len(a.Rows), c.want)
			}
			if a.Considered != 50 {
				t.Errorf("%v: considered %d, want the category's 50", c.filters, a.Considered)
			}
			for _, r := range a.Rows {
				if r.Category != "buck_converter" {
					t.Errorf("%v: row %s of %s", c.filters, r.MPN, r.Category)
				}
			}
		}
	})
}

func TestCatalogueUnitNormalisation(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		inA := search(t, st, "ldo", "i_out>=2 A")
		inMA := search(t, st, "ldo", "i_out>=2000 mA")
		if inA.Matched != 30 || inMA.Matched != 30 {
			t.Fatalf("i_out>=2 A matched %d, i_out>=2000 mA %d; want 30 each", inA.Matched, inMA.Matched)
		}
		for i := range inA.Rows {
			if inA.Rows[i].MPN != inMA.Rows[i].MPN {
				t.Fatalf("row %d: %s against %s", i, inA.Rows[i].MPN, inMA.Rows[i].MPN)
			}
		}
		// Cells written "500 mA" and "0.5" in the i_out[A] column are the same figure.
		half := search(t, st, "ldo", "i_out==500 mA")
		if half.Matched != 10 {
			t.Fatalf("i_out==500 mA matched %d, want 10", half.Matched)
		}
		units := map[string]bool{}
		for _, r := range half.Rows {
			f, _ := r.Figure("i_out")
			if f.SI != 0.5 || f.SIUnit != "A" || f.Dimension != "current" {
				t.Errorf("%s: i_out %+v, want 0.5 A in SI", r.MPN, f)
			}
			units[fmt.Sprintf("%g %s", f.Value, f.Unit)] = true
		}
		if !units["500 mA"] || !units["0.5 A"] {
			t.Errorf("the figures as given are %v, want both 500 mA and 0.5 A kept", units)
		}
		if half.Filters[0].SIValue != 0.5 || half.Filters[0].SIUnit != "A" {
			t.Errorf("applied filter %+v, want 0.5 A", half.Filters[0])
		}
	})
}

func TestCatalogueRefusesAUnitOfTheWrongDimension(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		f, err := ParseFilter("i_out>=2 V")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Search(context.Background(), st, Query{Category: "buck_converter", Filters: []Filter{f}})
		if !errors.Is(err, ErrBadQuery) {
			t.Fatalf("err %v, want ErrBadQuery", err)
		}
		for _, want := range []string{"i_out", "voltage", "current (A)", "buck_converter"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
}

func TestCatalogueMissingFiguresAndEmptyAnswers(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		a := search(t, st, "boost_converter", "efficiency>0.5")
		if a.Matched != 42 || a.ExcludedMissing["efficiency"] != 8 {
			t.Errorf("efficiency>0.5: matched %d, excluded_missing %v; want 42 and 8", a.Matched, a.ExcludedMissing)
		}
		empty := search(t, st, "buck_converter", "v_out==7 V", "i_out>=1 A")
		if empty.Matched != 0 || len(empty.Rows) != 0 {
			t.Fatalf("v_out==7 V matched %d", empty.Matched)
		}
		for _, want := range []string{"buck_converter", "v_out == 7 V", "i_out >= 1 A"} {
			if !strings.Contains(empty.Message, want) {
				t.Errorf("empty answer %q does not name %q", empty.Message, want)
			}
		}
		unknown := search(t, st, "ldo", "noise<10 uV")
		if unknown.ExcludedMissing["noise"] != 50 || !strings.Contains(unknown.Message, "No row states noise") ||
			!strings.Contains(unknown.Message, "v_out") {
			t.Errorf("a figure no row states: %q, excluded %v", unknown.Message, unknown.ExcludedMissing)
		}
		none := search(t, st, "flux_capacitor", "v_out==5 V")
		if none.Considered != 0 || !strings.Contains(none.Message, "flux_capacitor") || !strings.Contains(none.Message, "boost_converter, buck_converter, ldo, motor_driver") {
			t.Errorf("an empty category: %q", none.Message)
		}
	})
}

func TestCatalogueRowsCarryTheirSourceAndMedia(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		r, err := st.Row(context.Background(), "mf011", "ANALOG DEVICES")
		if err != nil {
			t.Fatal(err)
		}
		// Row 11 is on line 13: the header is line 1, row 0 line 2.
		if r.MPN != "MF011" || r.Source != "cat.csv#L13" || r.ImageURL != "https://img.example/MF011.png" ||
			r.CADModelURL != "https://cad.example/MF011.step" || r.Footprint != "SOT-23-5" || r.Category != "motor_driver" {
			t.Errorf("row %+v", r)
		}
		if r.Price == nil || *r.Price != 0.7 || r.Currency != "USD" || r.Kind != KindPart || r.Description != "motor_driver row 11, part" {
			t.Errorf("price %v %s kind %s description %q", r.Price, r.Currency, r.Kind, r.Description)
		}
		if f, ok := r.Figure("v_in_max"); !ok || f.Value != 36 || f.Unit != "V" {
			t.Errorf("v_in_max %+v", f)
		}
		if time.Since(r.IndexedAt) > time.Hour || r.IndexedAt.IsZero() {
			t.Errorf("indexed_at %v", r.IndexedAt)
		}
		if _, err := st.Row(context.Background(), "MF011", "Texas Instruments"); !errors.Is(err, ErrNotFound) {
			t.Errorf("another manufacturer's MF011: %v", err)
		}
		cats, err := st.Categories(context.Background())
		if err != nil || len(cats) != 4 || cats["ldo"] != 50 {
			t.Errorf("categories %v %v", cats, err)
		}
	})
}

func TestCatalogueOrderLimitAndKind(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		a, err := Search(ctx, st, Query{Category: "motor_driver", Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if a.Matched != 50 || len(a.Rows) != 5 {
			t.Fatalf("limit 5: matched %d, %d rows", a.Matched, len(a.Rows))
		}
		all := search(t, st, "motor_driver")
		var prices []float64
		sawNone := false
		for _, r := range all.Rows {
			if r.Price == nil {
				sawNone = true
				continue
			}
			if sawNone {
				t.Fatalf("%s has a price after a row without one", r.MPN)
			}
			prices = append(prices, *r.Price)
		}
		if !sort.Float64sAreSorted(prices) || len(prices) != 45 || !sawNone {
			t.Errorf("prices %v", prices)
		}
		// The cheapest is j=1 (j=0 has no price): 0.6 USD.
		if *a.Rows[0].Price != 0.6 {
			t.Errorf("cheapest %v", *a.Rows[0].Price)
		}
		asm, err := Search(ctx, st, Query{Category: "motor_driver", Kind: "buy_complete", Limit: MaxLimit})
		if err != nil || asm.Matched != 17 || asm.Kind != KindAssembly {
			t.Errorf("assemblies: %d %v", asm.Matched, err)
		}
		if _, err := Search(ctx, st, Query{Category: "motor_driver", Limit: MaxLimit + 1}); !errors.Is(err, ErrBadQuery) {
			t.Errorf("limit over the maximum: %v", err)
		}
	})
}

// TestCatalogueReindexReplaces: indexing the same catalogue again changes
// nothing; a changed row with the same mpn and manufacturer replaces the
// indexed one.
func TestCatalogueReindexReplaces(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		rows, _, _ := LoadCSV(strings.NewReader(testCSV()), "cat.csv")
		out, err := st.Put(ctx, rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			if o != Unchanged {
				t.Fatalf("re-index: %s", o)
			}
		}
		changed, refused, err := LoadCSV(strings.NewReader("mpn,manufacturer,category,kind,v_out[V],i_out[A]\nmf000 , texas instruments,buck_converter,part,5,3\n"), "fix.csv")
		if err != nil || len(refused) > 0 {
			t.Fatal(err, refused)
		}
		if out, err = st.Put(ctx, changed); err != nil || out[0] != Replaced {
			t.Fatalf("replace: %v %v", out, err)
		}
		r, err := st.Row(ctx, "MF000", "Texas Instruments")
		if err != nil {
			t.Fatal(err)
		}
		if f, _ := r.Figure("i_out"); f.SI != 3 || len(r.Figures) != 2 || r.Source != "fix.csv#L2" {
			t.Errorf("replaced row %+v", r)
		}
		if all, _ := st.Rows(ctx, ""); len(all) != 200 {
			t.Errorf("%d rows after a replace, want 200", len(all))
		}
	})
}
