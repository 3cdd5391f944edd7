package component

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// testCatalogue: three buck converters meet "12 V to 5 V at 2 A"
// (BK-MOD-1, an assembly; TPS54331 and LMR33630, parts), two do not
// (BK-MOD-2 gives 1 A, MP1584 3.3 V); one LDO; no boost converter; line
// 9 is refused for its kind.
const testCatalogue = `mpn,manufacturer,category,kind,v_in_min[V],v_in_max[V],v_out[V],i_out[A],efficiency,price[USD],image_url,footprint,cad_model_url
BK-MOD-1,Pololu,buck_converter,assembly,6,36,5,2.5,0.9,11.95,https://img.example/bk1.png,,https://cad.example/bk1.step
BK-MOD-2,Pololu,buck_converter,assembly,4,15,5,1,0.88,6.95,,,
TPS54331,Texas Instruments,buck_converter,part,3.5,28,5,3000 mA,0.9,1.20,https://img.example/tps54331.png,SOIC-8,
LMR33630,Texas Instruments,buck_converter,part,3.8,36,5,3,0.92,2.10,,VQFN-12,
MP1584,Monolithic Power,buck_converter,part,4.5,28,3.3,3,0.9,0.80,,SOT-23-8,
AP2112K-3.3,Diodes,ldo,part,2.5,6,3.3,600 mA,,0.15,,SOT-23-5,
XX1,Acme,buck_converter,gadget,4,20,5,2,0.9,1.00,,,
`

// boostDatasheet is a two-page datasheet; its parameter table is on page 2.
var boostDatasheet = []knowledge.Page{
	{Number: 1, Text: "TPS61023 datasheet\nTexas Instruments\nFeatures and applications for portable products"},
	{Number: 2, Text: "TPS61023 synchronous boost converter\nInput voltage range 0.5 V to 5.5 V\nOutput voltage 5 V\n" +
		"Output current 1 A from a single-cell Li-ion battery"},
}

type fixture struct {
	reg *adapters.Registry
	a   *Adapter
	kb  knowledge.Store
	cat components.Store
	dir string
	src knowledge.Source
}

// newFixture is the adapter over a catalogue and a knowledge base sharing
// one SQLite file, as in the data dir, with the datasheet ingested and the
// catalogue file under a read root.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "data", "knowledge.db")
	kb, err := knowledge.OpenSQLite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kb.Close() })
	cat, err := components.OpenSQLite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	sum := sha256.Sum256([]byte(boostDatasheet[0].Text + boostDatasheet[1].Text))
	src, _, err := kb.BeginSource(ctx, knowledge.Source{SHA256: hex.EncodeToString(sum[:]), Origin: "/data/tps61023.pdf",
		Title: "TPS61023", Format: "pdf", Tags: map[string]string{"mpn": "TPS61023"}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range boostDatasheet {
		chunks := knowledge.ChunkPage(src.ID, p)
		n += len(chunks)
		if err := kb.PutChunks(ctx, chunks); err != nil {
			t.Fatal(err)
		}
	}
	if err := kb.FinishSource(ctx, src.ID, len(boostDatasheet), n); err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(dir, "catalogues")
	if err := os.MkdirAll(files, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(files, "regulators.csv"), []byte(testCatalogue), 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Catalogue: cat, Knowledge: kb, Files: workspace.New(filepath.Join(dir, "data"), files)})
	reg := adapters.NewRegistry()
	if err := reg.Register(a); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return &fixture{reg: reg, a: a, kb: kb, cat: cat, dir: dir, src: src}
}

// call validates the arguments against the tool's schema, as the server
// does, then calls the tool and decodes its answer into out.
func (f *fixture) call(t *testing.T, ctx context.Context, tool, args string, out any) error {
	t.Helper()
	if err := f.reg.ValidateArguments(tool, []byte(args)); err != nil {
		return err
	}
	res, err := f.a.Call(ctx, tool, json.RawMessage(args))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(res.Data, out); err != nil {
		t.Fatalf("%s answer: %v\n%s", tool, err, res.Data)
	}
	return nil
}

func (f *fixture) mustCall(t *testing.T, tool, args string, out any) {
	t.Helper()
	if err := f.call(t, context.Background(), tool, args, out); err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
}

type rowOut struct {
	MPN          string         `json:"mpn"`
	Manufacturer string         `json:"manufacturer"`
	Category     string         `json:"category"`
	Kind         string         `json:"kind"`
	Source       string         `json:"source"`
	ImageURL     string         `json:"image_url"`
	Footprint    string         `json:"footprint"`
	CADModelURL  string         `json:"cad_model_url"`
	AcceptedBy   string         `json:"accepted_by"`
	Candidate    map[string]any `json:"candidate"`
}

func mpns(rows []rowOut) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.MPN)
	}
	return strings.Join(s, ",")
}

func code(err error) protocol.Code {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return 0
}

func (f *fixture) index(t *testing.T) {
	t.Helper()
	var rep struct {
		Added, Replaced, Unchanged int
		RowsRead                   int                  `json:"rows_read"`
		Refused                    []components.Refused `json:"refused"`
		ByCategory                 map[string]int       `json:"by_category"`
	}
	path := filepath.Join(f.dir, "catalogues", "regulators.csv")
	f.mustCall(t, ToolIndexCatalog, `{"file_path": "`+path+`"}`, &rep)
	if rep.Added != 6 || rep.RowsRead != 7 || len(rep.Refused) != 1 || rep.ByCategory["buck_converter"] != 5 {
		t.Fatalf("first index: %+v", rep)
	}
	if r := rep.Refused[0]; r.Source != path+"#L8" || r.MPN != "XX1" || !strings.Contains(r.Reason, "gadget") {
		t.Errorf("refused %+v", r)
	}
	f.mustCall(t, ToolIndexCatalog, `{"file_path": "`+path+`"}`, &rep)
	if rep.Added != 0 || rep.Unchanged != 6 {
		t.Fatalf("second index of the same file: %+v", rep)
	}
}

func TestManifestsAndAnnotations(t *testing.T) {
	f := newFixture(t)
	want := map[string]adapters.Annotations{
		ToolSearchParametric: {ReadOnly: true, Idempotent: true},
		ToolSearchIntent:     {ReadOnly: true, Idempotent: true},
		ToolIndexCatalog:     {Idempotent: true},
		ToolAcceptFigures:    {HumanAuthority: true, Idempotent: true},
	}
	for _, m := range f.a.Manifests() {
		ann, declared := adapters.AnnotationsFor(m.ToolID)
		if !declared || ann != want[m.ToolID] {
			t.Errorf("%s: annotations %+v (declared %v)", m.ToolID, ann, declared)
		}
		delete(want, m.ToolID)
	}
	if len(want) != 0 {
		t.Errorf("tools not served: %v", want)
	}
	h, err := f.a.Health(context.Background())
	if err != nil || h.Status != "healthy" || !strings.Contains(h.Version, "SQLite") {
		t.Errorf("health %+v %v", h, err)
	}
}

func TestSearchParametric(t *testing.T) {
	f := newFixture(t)
	f.index(t)
	var ans struct {
		Matched int      `json:"matched"`
		Rows    []rowOut `json:"rows"`
		Message string   `json:"message"`
	}
	// A string filter and a structured one in mA: i_out >= 2 A.
	f.mustCall(t, ToolSearchParametric, `{"category": "buck_converter", "filters": ["v_out==5 V",
		{"name": "i_out", "op": ">=", "value": 2000, "unit": "mA"}]}`, &ans)
	if ans.Matched != 3 || mpns(ans.Rows) != "TPS54331,LMR33630,BK-MOD-1" {
		t.Fatalf("matched %d: %s", ans.Matched, mpns(ans.Rows))
	}
	tps := ans.Rows[0]
	if tps.Source != filepath.Join(f.dir, "catalogues", "regulators.csv")+"#L4" || tps.Footprint != "SOIC-8" ||
		tps.ImageURL != "https://img.example/tps54331.png" || tps.Kind != "part" {
		t.Errorf("TPS54331 row %+v", tps)
	}
	specs, _ := tps.Candidate["specs"].(map[string]any)
	iout, _ := specs["i_out"].(map[string]any)
	cost, _ := specs["unit_cost"].(map[string]any)
	if tps.Candidate["mpn"] != "TPS54331" || iout["value"] != 3000.0 || iout["unit"] != "mA" || cost["value"] != 1.2 ||
		cost["unit"] != "USD" || specs["category"] != "buck_converter" || specs["efficiency"] != 0.9 {
		t.Errorf("candidate %v", tps.Candidate)
	}
	if bk := ans.Rows[2]; bk.CADModelURL != "https://cad.example/bk1.step" || bk.Kind != "assembly" {
		t.Errorf("BK-MOD-1 %+v", bk)
	}

	f.mustCall(t, ToolSearchParametric, `{"category": "ldo", "filters": ["v_out==5 V"]}`, &ans)
	if ans.Matched != 0 || !strings.Contains(ans.Message, "ldo") || !strings.Contains(ans.Message, "v_out == 5 V") {
		t.Errorf("empty answer %d %q", ans.Matched, ans.Message)
	}
	err := f.call(t, context.Background(), ToolSearchParametric, `{"category": "buck_converter", "filters": ["i_out>=2 V"]}`, &ans)
	if code(err) != protocol.InvalidParams || !strings.Contains(err.Error(), "i_out") || !strings.Contains(err.Error(), "current") {
		t.Errorf("a voltage against i_out: %v", err)
	}
	err = f.call(t, context.Background(), ToolSearchParametric, `{"category": "buck_converter", "filters": ["i_out>>2"]}`, &ans)
	if code(err) != protocol.InvalidParams || !strings.Contains(err.Error(), "filters[0]") {
		t.Errorf("an unreadable filter: %v", err)
	}
	if err := f.call(t, context.Background(), ToolSearchParametric, `{"filters": [5]}`, &ans); err == nil {
		t.Errorf("a number as a filter passed the schema")
	}
}

type intentOut struct {
	Intent struct {
		Categories []string            `json:"categories"`
		Bounds     []components.Filter `json:"bounds"`
		Leftover   []string            `json:"leftover"`
	} `json:"intent"`
	Queries []struct {
		Category string `json:"category"`
		Kind     string `json:"kind"`
		Matched  int    `json:"matched"`
		Message  string `json:"message"`
	} `json:"queries"`
	BuyComplete      []rowOut `json:"buy_complete"`
	BuildFromParts   []rowOut `json:"build_from_parts"`
	FallbackPassages []struct {
		Category string `json:"category"`
		Query    string `json:"query"`
		SourceID string `json:"source_id"`
		Page     int    `json:"page"`
		Snippet  string `json:"snippet"`
	} `json:"fallback_passages"`
	FallbackFor []string `json:"fallback_for"`
	SearchMode  string   `json:"search_mode"`
	Notes       []string `json:"notes"`
}

func TestSearchIntentSplitsByKind(t *testing.T) {
	f := newFixture(t)
	f.index(t)
	var ans intentOut
	f.mustCall(t, ToolSearchIntent, `{"goal": "step 12V down to 5V at 2A for a flight controller"}`, &ans)
	if strings.Join(ans.Intent.Categories, ",") != "buck_converter" || len(ans.Intent.Bounds) != 4 ||
		strings.Join(ans.Intent.Leftover, " ") != "flight controller" {
		t.Errorf("intent %+v", ans.Intent)
	}
	if mpns(ans.BuyComplete) != "BK-MOD-1" || mpns(ans.BuildFromParts) != "TPS54331,LMR33630" {
		t.Errorf("buy_complete %s, build_from_parts %s", mpns(ans.BuyComplete), mpns(ans.BuildFromParts))
	}
	for _, r := range ans.BuyComplete {
		if r.Kind != "assembly" {
			t.Errorf("%s of kind %s in buy_complete", r.MPN, r.Kind)
		}
	}
	for _, r := range ans.BuildFromParts {
		if r.Kind != "part" {
			t.Errorf("%s of kind %s in build_from_parts", r.MPN, r.Kind)
		}
	}
	if len(ans.FallbackPassages) != 0 || len(ans.FallbackFor) != 0 || len(ans.Queries) != 2 || ans.Queries[0].Kind != "assembly" ||
		ans.Queries[0].Matched != 1 || ans.Queries[1].Kind != "part" || ans.Queries[1].Matched != 2 {
		t.Errorf("queries %+v, fallback %v", ans.Queries, ans.FallbackFor)
	}
	// limit applies to each half: the cheap parts do not crowd out the assembly.
	f.mustCall(t, ToolSearchIntent, `{"goal": "step 12V down to 5V at 2A for a flight controller", "limit": 1}`, &ans)
	if mpns(ans.BuyComplete) != "BK-MOD-1" || mpns(ans.BuildFromParts) != "TPS54331" {
		t.Errorf("limit 1: buy_complete %s, build_from_parts %s", mpns(ans.BuyComplete), mpns(ans.BuildFromParts))
	}
}

// TestSearchIntentFallsBackToTheKnowledgeBase: with no boost converter in
// the catalogue, the datasheet's page naming one is found by full text;
// once a person accepts its figures, the catalogue answers instead.
func TestSearchIntentFallsBackToTheKnowledgeBase(t *testing.T) {
	f := newFixture(t)
	f.index(t)
	goal := `{"goal": "boost a 3.7V battery up to 5V at 1A"}`
	var ans intentOut
	f.mustCall(t, ToolSearchIntent, goal, &ans)
	if len(ans.BuyComplete)+len(ans.BuildFromParts) != 0 || strings.Join(ans.FallbackFor, ",") != "boost_converter" ||
		ans.SearchMode != "fulltext" {
		t.Fatalf("answer %+v", ans)
	}
	if len(ans.FallbackPassages) == 0 {
		t.Fatalf("no fallback passage; notes %v", ans.Notes)
	}
	p := ans.FallbackPassages[0]
	if p.SourceID != f.src.ID || p.Page != 2 || p.Category != "boost_converter" || p.Query != "boost converter" ||
		!strings.Contains(p.Snippet, "**boost**") {
		t.Errorf("passage %+v", p)
	}
	if !strings.Contains(ans.Queries[0].Message, "boost_converter") {
		t.Errorf("the empty query says %q", ans.Queries[0].Message)
	}

	// Nothing anywhere: the note says what was searched.
	f.mustCall(t, ToolSearchIntent, `{"goal": "motor driver for a 12V motor at 3A"}`, &ans)
	if len(ans.FallbackPassages) != 0 || !strings.Contains(strings.Join(ans.Notes, " "), "no passage naming motor_driver") {
		t.Errorf("motor driver: passages %v notes %v", ans.FallbackPassages, ans.Notes)
	}

	// A person accepts the datasheet's figures; the catalogue now has the part.
	accept := `{"mpn": "TPS61023", "manufacturer": "Texas Instruments", "category": "boost_converter", "kind": "part",
		"source_id": "` + f.src.ID + `", "figures": [{"name": "v_in_min", "value": 0.5, "unit": "V", "page": 2},
		{"name": "v_in_max", "value": 5.5, "unit": "V", "page": 2}, {"name": "v_out", "value": 5, "unit": "V", "page": 2},
		{"name": "i_out", "value": 1000, "unit": "mA", "page": 2}]}`
	ctx := adapters.WithCallInfo(context.Background(), adapters.CallInfo{ApprovedBy: "alice"})
	var acc struct {
		Outcome string `json:"outcome"`
		Row     rowOut `json:"row"`
	}
	if err := f.call(t, ctx, ToolAcceptFigures, accept, &acc); err != nil {
		t.Fatal(err)
	}
	if acc.Outcome != components.Added || acc.Row.Source != "knowledge:"+f.src.ID+"#page=2" || acc.Row.AcceptedBy != "alice" {
		t.Fatalf("accepted %+v", acc)
	}
	f.mustCall(t, ToolSearchIntent, goal, &ans)
	if mpns(ans.BuildFromParts) != "TPS61023" || len(ans.FallbackPassages) != 0 {
		t.Errorf("after accepting: parts %s, passages %d", mpns(ans.BuildFromParts), len(ans.FallbackPassages))
	}
}

func TestAcceptFiguresChecksItsCitations(t *testing.T) {
	f := newFixture(t)
	f.index(t)
	ctx := context.Background()
	var out map[string]any
	page3 := `{"mpn": "TPS61023", "manufacturer": "TI", "category": "boost_converter", "kind": "part", "source_id": "` + f.src.ID + `",
		"figures": [{"name": "v_out", "value": 5, "unit": "V", "page": 3}]}`
	if err := f.call(t, ctx, ToolAcceptFigures, page3, &out); code(err) != protocol.InvalidParams || !strings.Contains(err.Error(), "pages 1 to 2") {
		t.Errorf("page 3 of a 2-page source: %v", err)
	}
	unknown := strings.Replace(page3, f.src.ID, "src-0000000000000000", 1)
	if err := f.call(t, ctx, ToolAcceptFigures, unknown, &out); code(err) != protocol.InvalidParams || !strings.Contains(err.Error(), "not a knowledge source") {
		t.Errorf("an unknown source: %v", err)
	}
	if rows, _ := f.cat.Rows(ctx, "boost_converter"); len(rows) != 0 {
		t.Errorf("a refused call wrote %d rows", len(rows))
	}
	// Accepting figures for a part the catalogue has keeps its media.
	over := `{"mpn": "tps54331", "manufacturer": "texas instruments", "category": "buck_converter", "kind": "part", "source_id": "` + f.src.ID + `",
		"figures": [{"name": "v_out", "value": 5, "unit": "V", "page": 2}]}`
	var acc struct {
		Outcome          string   `json:"outcome"`
		ReplacedSource   string   `json:"replaced_source"`
		KeptFromPrevious []string `json:"kept_from_previous"`
		Row              rowOut   `json:"row"`
	}
	if err := f.call(t, ctx, ToolAcceptFigures, over, &acc); err != nil {
		t.Fatal(err)
	}
	if acc.Outcome != components.Replaced || !strings.HasSuffix(acc.ReplacedSource, "regulators.csv#L4") ||
		strings.Join(acc.KeptFromPrevious, ",") != "price,image_url,footprint" || acc.Row.Footprint != "SOIC-8" {
		t.Errorf("accepted over a catalogue row: %+v", acc)
	}
}

func TestIndexCatalogInlineAndRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var rep struct {
		Added   int                  `json:"added"`
		Refused []components.Refused `json:"refused"`
	}
	f.mustCall(t, ToolIndexCatalog, `{"rows": [
		{"mpn": "M1", "manufacturer": "Acme", "category": "Motor Driver", "kind": "assembly", "figures": [{"name": "i_out", "value": 3, "unit": "A"}]},
		{"mpn": "M2", "manufacturer": "Acme", "category": "motor_driver", "kind": "part", "figures": [{"name": "i_out", "value": 3, "unit": "furlong"}]}]}`, &rep)
	if rep.Added != 1 || len(rep.Refused) != 1 || rep.Refused[0].Source != "inline#/1" || !strings.Contains(rep.Refused[0].Reason, "furlong") {
		t.Errorf("inline %+v", rep)
	}
	if r, err := f.cat.Row(ctx, "M1", "Acme"); err != nil || r.Category != "motor_driver" || r.Source != "inline#/0" {
		t.Errorf("M1 %+v %v", r, err)
	}
	outside := filepath.Join(f.dir, "elsewhere.csv")
	os.WriteFile(outside, []byte(testCatalogue), 0o644)
	if err := f.call(t, ctx, ToolIndexCatalog, `{"file_path": "`+outside+`"}`, &rep); code(err) != protocol.InvalidParams && code(err) != protocol.ToolExecutionError {
		t.Errorf("a file outside the read roots: %v", err)
	}
	bad := filepath.Join(f.dir, "catalogues", "bad.csv")
	os.WriteFile(bad, []byte("part,maker\nX,Y\n"), 0o644)
	if err := f.call(t, ctx, ToolIndexCatalog, `{"file_path": "`+bad+`"}`, &rep); code(err) != protocol.InvalidParams || !strings.Contains(err.Error(), "lacks mpn") {
		t.Errorf("a file that is not a catalogue: %v", err)
	}
	if cats, _ := f.cat.Categories(ctx); len(cats) != 1 {
		t.Errorf("categories after refusals %v", cats)
	}
}
