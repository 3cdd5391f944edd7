package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	kb "github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// An MPN resolves to its datasheet, by its tag (letter case aside) or by
// its text, and every figure of its tables comes back with its page.
func TestExtractResolvesAndReadsFigures(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testExtractResolvesAndReadsFigures(t, newLibrary(t)) })
	t.Run("postgres", func(t *testing.T) { testExtractResolvesAndReadsFigures(t, newPostgresLibrary(t)) })
}

func testExtractResolvesAndReadsFigures(t *testing.T, lib *library) {
	ctx := context.Background()
	for _, tc := range []struct {
		mpn, sheet, by string
	}{
		// The buck converter's newest mpn-tagged source is the
		// application note: the datasheet is the one with a table.
		{"mfb2307", "MFB2307", ByTag},
		{"MFL1117", "MFL1117", ByTag},
		{"MFA358", "MFA358", BySearch},
	} {
		got, err := extract(ctx, lib.store, extractArgs{MPN: tc.mpn})
		if err != nil {
			t.Fatalf("%s: %v", tc.mpn, err)
		}
		d := lib.sheets[tc.sheet]
		if got.ResolvedBy != tc.by || got.Source.ID != lib.ids[tc.sheet] || got.Source.Title != d.Title || got.Source.Origin != d.Path {
			t.Errorf("%s: resolved_by %s to %+v, want %s to %s (%s)", tc.mpn, got.ResolvedBy, got.Source, tc.by, lib.ids[tc.sheet], d.Title)
		}
		if got.Source.Tags["manufacturer"] != d.Manufacturer {
			t.Errorf("%s: source tags %v, want manufacturer %s", tc.mpn, got.Source.Tags, d.Manufacturer)
		}
		if figureLines(got.Figures) != wantLines(d.Figures) {
			t.Errorf("%s figures:\n%s\nwant:\n%s", tc.mpn, figureLines(got.Figures), wantLines(d.Figures))
		}
		if got.Note != "" {
			t.Errorf("%s: note %q with %d figures", tc.mpn, got.Note, len(got.Figures))
		}
	}
	// Written out here as well: the LDO's dropout rows, page 2.
	got, err := extract(ctx, lib.store, extractArgs{MPN: "MFL1117"})
	if err != nil {
		t.Fatal(err)
	}
	var dropout []string
	for _, f := range got.Figures {
		if f.Name == "Dropout voltage" {
			dropout = append(dropout, figureLines([]kb.Figure{f}))
		}
	}
	want := "p2 \"Dropout voltage\" \"VDO\" \"IOUT = 100 mA\" min=- typ=1 max=1.1 \"V\"\n" +
		"p2 \"Dropout voltage\" \"VDO\" \"IOUT = 800 mA\" min=- typ=1.2 max=1.3 \"V\"\n"
	if strings.Join(dropout, "") != want {
		t.Errorf("dropout figures:\n%s\nwant:\n%s", strings.Join(dropout, ""), want)
	}
}

// An MPN nothing mentions is a refusal naming what to ingest, and so is
// one that only shares a word with a datasheet (MFA358-Q1 is not the
// MFA358); a source without a table answers no figures and says so.
func TestExtractRefusesWhatItCannotFind(t *testing.T) {
	lib := newLibrary(t)
	ctx := context.Background()
	for _, mpn := range []string{"MFZ9999", "MFA358-Q1"} {
		_, err := extract(ctx, lib.store, extractArgs{MPN: mpn})
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.ToolExecutionError || !strings.Contains(pe.Details, "knowledge.ingest") || !strings.Contains(pe.Details, "mpn="+mpn) {
			t.Errorf("%s: %v, want a refusal naming knowledge.ingest and mpn=%s", mpn, err, mpn)
		}
	}
	got, err := extract(ctx, lib.store, extractArgs{MPN: "MFB2307", SourceID: lib.ids["appnote"]})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResolvedBy != BySourceID || len(got.Figures) != 0 || !strings.Contains(got.Note, "no parameter table") {
		t.Errorf("application note: resolved_by %s, %d figures, note %q; want source_id, none, a note", got.ResolvedBy, len(got.Figures), got.Note)
	}
	for _, in := range []extractArgs{{MPN: "  "}, {MPN: "MFB2307", SourceID: "src-0000000000000000"}} {
		_, err := extract(ctx, lib.store, in)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
			t.Errorf("%+v: %v, want INVALID_PARAMS", in, err)
		}
	}
}

// Through the adapter: the declared schema decodes the arguments, the
// answer is the JSON an agent reads (an empty cell is null), unknown
// arguments are refused, and the tool is annotated read-only.
func TestExtractThroughAdapter(t *testing.T) {
	lib := newLibrary(t)
	a := New(Options{Store: lib.store})
	ctx := context.Background()
	res, err := a.Call(ctx, ToolExtract, json.RawMessage(`{"mpn": "MFA358"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MPN        string `json:"mpn"`
		ResolvedBy string `json:"resolved_by"`
		Source     struct {
			ID string `json:"id"`
		} `json:"source"`
		Figures []map[string]any `json:"figures"`
	}
	if err := json.Unmarshal(res.Data, &got); err != nil {
		t.Fatal(err)
	}
	if got.MPN != "MFA358" || got.ResolvedBy != "search" || got.Source.ID != lib.ids["MFA358"] || len(got.Figures) != 12 {
		t.Fatalf("answer %s", res.Data)
	}
	bias := got.Figures[3]
	if bias["name"] != "Input bias current" || bias["min"] != nil || bias["typ"] != -20.0 || bias["max"] != -250.0 || bias["unit"] != "nA" || bias["page"] != 2.0 || bias["symbol"] != "IIB" {
		t.Errorf("figure 4: %v, want Input bias current, min null, typ -20, max -250 nA, page 2", bias)
	}
	if _, err := a.Call(ctx, ToolExtract, json.RawMessage(`{"mpn": "MFA358", "datasheet": "x"}`)); err == nil {
		t.Error("an unknown argument was accepted")
	}
	if _, err := New(Options{}).Call(ctx, ToolExtract, json.RawMessage(`{"mpn": "MFA358"}`)); !errors.Is(err, errNoStore) && !strings.Contains(fmt.Sprint(err), "no knowledge base") {
		t.Errorf("without a store: %v, want TOOL_UNAVAILABLE", err)
	}
	if ann, ok := adapters.AnnotationsFor(ToolExtract); !ok || !ann.ReadOnly || !ann.Idempotent || ann.OpenWorld || ann.Destructive {
		t.Errorf("annotations %+v, want read-only, idempotent, not open-world", ann)
	}
}
