//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/knowledge/datasheettest"
)

// knowledgeCatalogue is the catalogue the scenario indexes: six rows, of
// which the parametric query (buck_converter, v_out == 5 V, i_out >= 2000
// mA, efficiency > 0.9) keeps BK-A and BK-M, and the intent "step 12V down
// to 5V at 2A" keeps BK-A (a part) and BK-M (a module), each on its side.
// BK-B gives too little current, BK-C the wrong voltage, BK-D too little
// efficiency and an input that stops at 10 V.
const knowledgeCatalogue = `mpn,manufacturer,category,kind,description,price,currency,v_in_min[V],v_in_max[V],v_out[V],i_out[A],efficiency
BK-A,Acme Power,buck_converter,part,3 A synchronous buck,1.20,USD,4.5,28,5,3,0.93
BK-B,Acme Power,buck_converter,part,1.5 A buck,0.80,USD,4.5,28,5,1.5,0.95
BK-C,Acme Power,buck_converter,part,3.3 V buck,1.10,USD,4.5,28,3.3,3,0.92
BK-D,Acme Power,buck_converter,part,low-voltage buck,0.90,USD,4.5,10,5,2,0.88
BK-M,Rotorworks,buck_converter,assembly,5 V 3 A buck module for flight controllers,4.50,USD,6,24,5,3,0.91
LD-1,Acme Power,ldo,part,1 A LDO,0.30,USD,2.5,12,3.3,1,
`

// knowledgeRun is what knowledge_client.mjs saw.
type knowledgeRun struct {
	Tools    []string `json:"tools"`
	Ingested []struct {
		SourceID       string `json:"source_id"`
		Title          string `json:"title"`
		Pages          int    `json:"pages"`
		Chunks         int    `json:"chunks"`
		AlreadyIndexed bool   `json:"already_indexed"`
	} `json:"ingested"`
	Again struct {
		SourceID       string `json:"source_id"`
		AlreadyIndexed bool   `json:"already_indexed"`
	} `json:"again"`
	Search struct {
		Hits []struct {
			SourceID string `json:"source_id"`
			Page     int    `json:"page"`
			Snippet  string `json:"snippet"`
		} `json:"hits"`
		SearchMode string `json:"search_mode"`
		Ranking    string `json:"ranking"`
	} `json:"search"`
	Nothing struct {
		Hits []any  `json:"hits"`
		Note string `json:"note"`
	} `json:"nothing"`
	Extract struct {
		MPN     string `json:"mpn"`
		Figures []struct {
			Name          string
			Min, Typ, Max *float64
			Unit          string
			Page          int
		} `json:"figures"`
		ResolvedBy string `json:"resolved_by"`
	} `json:"extract"`
	BOM struct {
		Lines []struct {
			Ref                        string `json:"ref"`
			Matched                    bool   `json:"matched"`
			Manufacturer               string `json:"manufacturer"`
			Reason                     string `json:"reason"`
			PurchaseUnitFilterDegraded bool   `json:"purchase_unit_filter_degraded"`
			Source                     *struct {
				ID string `json:"id"`
			} `json:"source"`
		} `json:"lines"`
		PurchaseUnitFilterDegraded bool `json:"purchase_unit_filter_degraded"`
	} `json:"bom"`
	Indexed struct {
		RowsRead int   `json:"rows_read"`
		Added    int   `json:"added"`
		Refused  []any `json:"refused"`
	} `json:"indexed"`
	Parametric catalogueRows `json:"parametric"`
	Empty      struct {
		Rows    []any  `json:"rows"`
		Message string `json:"message"`
	} `json:"empty"`
	Intent struct {
		BuyComplete    []catalogueRow `json:"buy_complete"`
		BuildFromParts []catalogueRow `json:"build_from_parts"`
	} `json:"intent"`
	BadUnit         toolError `json:"badUnit"`
	SourcesResource struct {
		Count  int    `json:"count"`
		Search string `json:"search"`
	} `json:"sourcesResource"`
	SourceResource struct {
		Source struct {
			ID   string            `json:"id"`
			Tags map[string]string `json:"tags"`
		} `json:"source"`
		Chunks []struct {
			Page int `json:"page"`
		} `json:"chunks"`
	} `json:"sourceResource"`
}

type catalogueRow struct {
	MPN    string `json:"mpn"`
	Source string `json:"source"`
}

type catalogueRows struct {
	Rows []catalogueRow `json:"rows"`
}

func mpns(rows []catalogueRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.MPN)
	}
	return out
}

// Issue 26 through the binary: an agent on the electronics profile (the
// TypeScript SDK over stdio, metaforge mcp beside metaforge serve on one
// data dir) ingests three real datasheet PDFs and finds, extracts and
// enriches from them, indexes a catalogue and finds parts by figures and
// by intent; then the REST reads and the /knowledge page in Chromium show
// the same sources.
func TestKnowledgeThroughMCP(t *testing.T) {
	began := time.Now()
	ports := freePorts(t, 3)
	srv := serve(t, ports[0], ports[1], ports[2])
	base := fmt.Sprintf("http://127.0.0.1:%d", ports[2])
	docs := filepath.Join(srv.dataDir, "workspace", "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	sheets := datasheettest.Write(t, docs)
	catalogue := filepath.Join(docs, "catalogue.csv")
	if err := os.WriteFile(catalogue, []byte(knowledgeCatalogue), 0o644); err != nil {
		t.Fatal(err)
	}
	type sheetIn struct {
		Path         string `json:"path"`
		MPN          string `json:"mpn"`
		Manufacturer string `json:"manufacturer"`
		Category     string `json:"category"`
		PurchaseUnit string `json:"purchase_unit"`
	}
	var in struct {
		Datasheets []sheetIn `json:"datasheets"`
		Catalogue  string    `json:"catalogue"`
	}
	units := []string{"reel", "tray", "tube"} // the LDO is not on a reel: its BOM line degrades
	for i, s := range sheets {
		in.Datasheets = append(in.Datasheets, sheetIn{s.Path, s.MPN, s.Manufacturer, s.Category, units[i]})
	}
	in.Catalogue = catalogue
	raw, _ := json.Marshal(in)

	args := []string{"knowledge_client.mjs", binary, "mcp", "--data-dir", srv.dataDir, "--no-worker", "--profile", "electronics"}
	cmd := command(t, 5*time.Minute, nodePath, args...)
	cmd.Env = append(cmd.Env, fmt.Sprintf("TEMPORAL_ADDRESS=127.0.0.1:%d", ports[0]), "E2E_KNOWLEDGE="+string(raw))
	var o knowledgeRun
	runClient(t, "node knowledge_client.mjs", cmd, 5*time.Minute, &o)
	t.Logf("the knowledge scenario took %s", time.Since(began).Round(time.Millisecond))

	for _, tool := range []string{"knowledge.ingest", "knowledge.search", "knowledge.extract", "knowledge.populate_bom",
		"component.search_parametric", "component.search_intent", "component.index_catalog", "component.accept_figures"} {
		if !slices.Contains(o.Tools, tool) {
			t.Errorf("the electronics profile lacks %s", tool)
		}
	}
	if len(o.Ingested) != 3 {
		t.Fatalf("ingested %d datasheets, want 3", len(o.Ingested))
	}
	for i, got := range o.Ingested {
		if got.AlreadyIndexed || got.Pages != sheets[i].Pages || got.Chunks < got.Pages || !strings.HasPrefix(got.SourceID, "src-") {
			t.Errorf("%s ingested as %+v; want %d pages, new", sheets[i].MPN, got, sheets[i].Pages)
		}
	}
	if !o.Again.AlreadyIndexed || o.Again.SourceID != o.Ingested[0].SourceID {
		t.Errorf("the same PDF again = %+v; want already indexed as %s", o.Again, o.Ingested[0].SourceID)
	}
	if len(o.Search.Hits) == 0 || o.Search.Hits[0].SourceID != o.Ingested[0].SourceID || o.Search.Hits[0].Page != datasheettest.TablePage ||
		!strings.Contains(o.Search.Hits[0].Snippet, "**") || o.Search.SearchMode != "fulltext" || o.Search.Ranking != "bm25" {
		t.Errorf("search for the buck's characteristics = %+v; want its page %d first, marked, full text by BM25", o.Search, datasheettest.TablePage)
	}
	if len(o.Nothing.Hits) != 0 || !strings.Contains(o.Nothing.Note, "op-amp") {
		t.Errorf("a search nothing matches = %+v; want no hits and a note naming the filter", o.Nothing)
	}

	// Every figure of the buck's tables, each on its page, nothing guessed.
	want := sheets[0].Figures
	if o.Extract.MPN != sheets[0].MPN || o.Extract.ResolvedBy != "tag" || len(o.Extract.Figures) != len(want) {
		t.Fatalf("extract %s = %d figures resolved by %q; want %d by tag", sheets[0].MPN, len(o.Extract.Figures), o.Extract.ResolvedBy, len(want))
	}
	same := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for i, f := range o.Extract.Figures {
		w := want[i]
		if f.Name != w.Name || f.Unit != w.Unit || f.Page != w.Page || !same(f.Min, w.Min) || !same(f.Typ, w.Typ) || !same(f.Max, w.Max) {
			t.Errorf("figure %d = %+v; want %+v", i, f, w)
		}
	}

	// U1 is on a reel: matched within the filter. U2's datasheet is tagged
	// tray: matched only once the filter is dropped, and flagged. U9 is
	// nowhere.
	if len(o.BOM.Lines) != 3 {
		t.Fatalf("populate_bom answered %d lines, want 3", len(o.BOM.Lines))
	}
	u1, u2, u9 := o.BOM.Lines[0], o.BOM.Lines[1], o.BOM.Lines[2]
	if !u1.Matched || u1.PurchaseUnitFilterDegraded || u1.Source == nil || u1.Source.ID != o.Ingested[0].SourceID || u1.Manufacturer != sheets[0].Manufacturer {
		t.Errorf("U1 = %+v; want matched to %s within the reel filter", u1, o.Ingested[0].SourceID)
	}
	if !u2.Matched || !u2.PurchaseUnitFilterDegraded || u2.Source == nil || u2.Source.ID != o.Ingested[1].SourceID {
		t.Errorf("U2 = %+v; want matched to %s with the filter degraded", u2, o.Ingested[1].SourceID)
	}
	if u9.Matched || u9.Reason == "" || !o.BOM.PurchaseUnitFilterDegraded {
		t.Errorf("U9 = %+v (answer degraded %v); want unmatched with a reason, and the answer flagged", u9, o.BOM.PurchaseUnitFilterDegraded)
	}

	if o.Indexed.RowsRead != 6 || o.Indexed.Added != 6 || len(o.Indexed.Refused) != 0 {
		t.Errorf("index_catalog = %+v; want 6 rows added", o.Indexed)
	}
	if got := mpns(o.Parametric.Rows); !slices.Equal(got, []string{"BK-A", "BK-M"}) {
		t.Errorf("parametric rows = %v; want [BK-A BK-M] (cheapest first)", got)
	}
	for _, r := range o.Parametric.Rows {
		if !strings.HasPrefix(r.Source, catalogue+"#L") {
			t.Errorf("row %s carries source %q; want its catalogue line", r.MPN, r.Source)
		}
	}
	if len(o.Empty.Rows) != 0 || !strings.Contains(o.Empty.Message, "v_out") {
		t.Errorf("an empty parametric answer = %+v; want it to name its filter", o.Empty)
	}
	if got := mpns(o.Intent.BuildFromParts); !slices.Equal(got, []string{"BK-A"}) {
		t.Errorf("intent build_from_parts = %v; want [BK-A]", got)
	}
	if got := mpns(o.Intent.BuyComplete); !slices.Equal(got, []string{"BK-M"}) {
		t.Errorf("intent buy_complete = %v; want [BK-M]", got)
	}
	if o.BadUnit.Error == nil || !strings.Contains(o.BadUnit.Error.Message, "v_out") {
		t.Errorf("a current filter on a voltage = %+v; want a refusal naming v_out", o.BadUnit)
	}

	if o.SourcesResource.Count != 3 || !strings.Contains(o.SourcesResource.Search, "BM25") {
		t.Errorf("metaforge://knowledge/sources = %+v", o.SourcesResource)
	}
	if o.SourceResource.Source.ID != o.Ingested[0].SourceID || o.SourceResource.Source.Tags["purchase_unit"] != "reel" || len(o.SourceResource.Chunks) == 0 {
		t.Errorf("metaforge://knowledge/sources/%s = %+v", o.Ingested[0].SourceID, o.SourceResource)
	}

	// The REST read and the page show what the agent ingested.
	token := operatorToken(t, srv.dataDir)
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/knowledge/sources?tag=purchase_unit=reel", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Sources []struct {
			ID string `json:"id"`
		} `json:"sources"`
	}
	err = json.NewDecoder(resp.Body).Decode(&listed)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(listed.Sources) != 1 || listed.Sources[0].ID != o.Ingested[0].SourceID {
		t.Errorf("GET /v1/knowledge/sources?tag=purchase_unit=reel = HTTP %d %+v (%v); want only %s", resp.StatusCode, listed, err, o.Ingested[0].SourceID)
	}

	node := start(t, "node knowledge_page.mjs", command(t, 3*time.Minute, nodePath, "knowledge_page.mjs", base+"/knowledge?token="+token, sheets[0].Title))
	if code := node.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("node knowledge_page.mjs exited %d:\n%s", code, tail(node.stderr.String(), 30))
	}
	var page struct {
		Rows       int      `json:"rows"`
		Mode       string   `json:"mode"`
		Detail     string   `json:"detail"`
		PageErrors []string `json:"pageErrors"`
	}
	if err := json.Unmarshal([]byte(nodeStdoutLine(t, node)), &page); err != nil {
		t.Fatal(err)
	}
	if page.Rows != 3 || !strings.Contains(page.Mode, "BM25") || !strings.Contains(page.Detail, "page 2") || len(page.PageErrors) != 0 {
		t.Errorf("/knowledge showed %+v; want 3 sources, the BM25 search named, the chosen source's passages by page, no errors", page)
	}
}
