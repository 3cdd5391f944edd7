package twin_test

import (
	"testing"

	"github.com/metaforge/metaforge/twin"
)

// Load cases run on every store, with the other rules.
func testLoadCases(t *testing.T, s twin.Store) {
	g := newGraph(t, s, "Shelf")
	up, wall := twin.FaceSelector{Normal: [3]float64{0, 0, 1}}, twin.FaceSelector{Normal: [3]float64{-1, 0, 0}}
	ready := func(name, part string) twin.LoadCase {
		return twin.LoadCase{Name: name, Part: part, Fixture: &wall, LoadFace: &up, ForceN: limit(196.133),
			Source: twin.LoadSource{Kind: "requirement", Ref: "a 20 kg shelf"}}
	}
	// A load case on a part not committed yet: its KEY is kept.
	n, it, err := twin.RecordLoadCase(bg, s, twin.LoadCaseWrite{Project: g.p, Case: ready(" shelf ", "BRACKET")})
	if err != nil || it.ItemType != twin.ItemTypeLoadCase || n.Revision != 1 {
		t.Fatalf("record = %+v %+v %v", n, it, err)
	}
	// The same name revises it; a draft with no part is kept too.
	if n, _, err = twin.RecordLoadCase(bg, s, twin.LoadCaseWrite{Project: g.p, Case: ready("shelf", "BRACKET")}); err != nil || n.Revision != 2 {
		t.Fatalf("revise = %+v %v", n, err)
	}
	draft := twin.LoadCase{Name: "from the goal", ForceN: limit(500), Status: twin.LoadCaseDraft, Source: twin.LoadSource{Kind: "intent", Ref: "a 500 N side load"}}
	if _, _, err := twin.RecordLoadCase(bg, s, twin.LoadCaseWrite{Project: g.p, Case: draft}); err != nil {
		t.Fatalf("draft: %v", err)
	}
	cases, err := twin.LoadCases(bg, s, g.p.ID)
	if err != nil || len(cases) != 2 {
		t.Fatalf("load cases = %+v %v", cases, err)
	}
	for _, c := range cases {
		switch c.Name {
		case "shelf":
			if c.Ref != n.Ref() || c.Part != "BRACKET" || c.LoadFace == nil || c.LoadFace.Normal != up.Normal || *c.ForceN != 196.133 || c.Status != twin.LoadCaseReady {
				t.Errorf("shelf read back as %+v", c)
			}
		case "from the goal":
			if c.Status != twin.LoadCaseDraft || c.Part != "" {
				t.Errorf("draft read back as %+v", c)
			}
		}
	}
	// What cannot be solved as written is refused, naming what to fix.
	notCAD := g.commit("document", "notes", nil)
	for want, c := range map[string]twin.LoadCase{
		"Missing: part":                  {Name: "x", Fixture: &wall, LoadFace: &up, ForceN: limit(1), Source: twin.LoadSource{Kind: "hand_estimate"}},
		"Missing: load_face":             {Name: "x", Part: "BRACKET", Fixture: &wall, ForceN: limit(1), Source: twin.LoadSource{Kind: "hand_estimate"}},
		"Missing: force_n or":            {Name: "x", Part: "BRACKET", Fixture: &wall, LoadFace: &up, Source: twin.LoadSource{Kind: "hand_estimate"}},
		"not both":                       {Name: "x", Part: "BRACKET", Fixture: &wall, LoadFace: &up, ForceN: limit(1), PressureMPa: limit(1), Source: twin.LoadSource{Kind: "hand_estimate"}},
		"source.kind \"guess\"":          {Name: "x", Part: "BRACKET", Fixture: &wall, LoadFace: &up, ForceN: limit(1), Source: twin.LoadSource{Kind: "guess"}},
		"fixture.normal [0 0 0]":         {Name: "x", Part: "BRACKET", Fixture: &twin.FaceSelector{}, LoadFace: &up, ForceN: limit(1), Source: twin.LoadSource{Kind: "standard"}},
		"is a document, not a cad_model": {Name: "x", Part: notCAD.ItemKey, Fixture: &wall, LoadFace: &up, ForceN: limit(1), Source: twin.LoadSource{Kind: "standard"}},
	} {
		if _, _, err := twin.RecordLoadCase(bg, s, twin.LoadCaseWrite{Project: g.p, Case: c}); !refusal(err, want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}
