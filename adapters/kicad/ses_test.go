package kicad

import (
	"strings"
	"testing"
)

// A session as Freerouting writes one, at (resolution um 10): one unit is
// 0.1 um = 100 nm, and Specctra's Y points up where KiCad's points down.
const sampleSession = `(session "demo"
  (base_design "demo")
  (placement (resolution um 10) (component "R" (place R1 1000 -2000 front 0)))
  (was_is)
  (routes
    (resolution um 10)
    (parser (string_quote ") (host_cad "KiCad's Pcbnew") (host_version "6.0.11"))
    (library_out
      (padstack "Via[0-1]_800:400_um"
        (shape (circle "F.Cu" 8000 0 0))
        (shape (circle "B.Cu" 8000 0 0))
        (attach off))
      (padstack custom_via
        (shape (circle In1.Cu 6000 0 0))
        (shape (circle In2.Cu 6000 0 0))))
    (network_out
      (net GND
        (wire (path F.Cu 2500 1000 -2000 31000 -2000 31000 -42000))
        (via "Via[0-1]_800:400_um" 31000 -42000)
        (wire (path B.Cu 2500 31000 -42000 11000 -42000) (type protect)))
      (net "/VPP{slash}MCLR (a b)"
        (wire (polygon F.Cu 0 0 0 100 0 100 100))
        (via custom_via -500 500)))))`

func TestParseSessionConvertsUnitsAndAxes(t *testing.T) {
	s, err := parseSession(sampleSession)
	if err != nil {
		t.Fatal(err)
	}
	// 1000 units x 100 nm = 100000 nm; Y is negated: -2000 units -> +200000 nm.
	want := []sesTrack{
		{Net: "GND", Layer: "F.Cu", WidthNM: 250000, X1: 100000, Y1: 200000, X2: 3100000, Y2: 200000},
		{Net: "GND", Layer: "F.Cu", WidthNM: 250000, X1: 3100000, Y1: 200000, X2: 3100000, Y2: 4200000},
		{Net: "GND", Layer: "B.Cu", WidthNM: 250000, X1: 3100000, Y1: 4200000, X2: 1100000, Y2: 4200000},
	}
	if len(s.Tracks) != len(want) {
		t.Fatalf("tracks %+v, want %+v", s.Tracks, want)
	}
	for i := range want {
		if s.Tracks[i] != want[i] {
			t.Errorf("track %d: %+v, want %+v", i, s.Tracks[i], want[i])
		}
	}
	wantVias := []sesVia{
		// KiCad's name says drill 400 um; the circle is 8000 x 100 nm = 0.8 mm.
		{Net: "GND", Padstack: "Via[0-1]_800:400_um", X: 3100000, Y: 4200000, DiameterNM: 800000, DrillNM: 400000, TopLayer: "F.Cu", BottomLayer: "B.Cu"},
		// A name KiCad did not make says no drill: pcbnew's default is used.
		{Net: "/VPP{slash}MCLR (a b)", Padstack: "custom_via", X: -50000, Y: -50000, DiameterNM: 600000, TopLayer: "In1.Cu", BottomLayer: "In2.Cu"},
	}
	if len(s.Vias) != len(wantVias) {
		t.Fatalf("vias %+v, want %+v", s.Vias, wantVias)
	}
	for i := range wantVias {
		if s.Vias[i] != wantVias[i] {
			t.Errorf("via %d: %+v, want %+v", i, s.Vias[i], wantVias[i])
		}
	}
	if s.Areas != 1 {
		t.Errorf("conduction areas %d, want the one polygon wire", s.Areas)
	}
}

func TestParseSessionResolutions(t *testing.T) {
	// One unit of (resolution mil 1) is 25.4 um; of (resolution mm 1000) 1 um.
	for _, c := range []struct {
		res    string
		coord  string
		wantNM int64
	}{{"mil 1", "10", 254000}, {"mm 1000", "2500", 2500000}, {"inch 1000", "1", 25400}, {"um 1", "3", 3000}} {
		text := `(session s (routes (resolution ` + c.res + `) (library_out) (network_out (net N (wire (path F.Cu ` + c.coord + ` 0 0 ` + c.coord + ` 0))))))`
		s, err := parseSession(text)
		if err != nil {
			t.Fatalf("%s: %v", c.res, err)
		}
		if tr := s.Tracks[0]; tr.WidthNM != c.wantNM || tr.X2 != c.wantNM {
			t.Errorf("resolution %s: width %d, x %d, want %d nm", c.res, tr.WidthNM, tr.X2, c.wantNM)
		}
	}
}

func TestParseSessionRefusals(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"not a session":   {`(pcb x (structure))`, "not a Specctra session"},
		"no resolution":   {`(session s (routes (network_out)))`, "resolution"},
		"bad unit":        {`(session s (routes (resolution furlong 1)))`, "resolution"},
		"odd coordinates": {`(session s (routes (resolution um 1) (network_out (net N (wire (path F.Cu 10 0 0 5))))))`, "pairs"},
		"no coordinates":  {`(session s (routes (resolution um 1) (network_out (net N (wire (path F.Cu 10))))))`, "pairs"},
		"unknown via":     {`(session s (routes (resolution um 1) (network_out (net N (via v1 0 0)))))`, "v1"},
		"square via":      {`(session s (routes (resolution um 1) (library_out (padstack sq (shape (rect F.Cu 0 0 1 1)))) (network_out)))`, "not a circle"},
		"unclosed":        {`(session s (routes`, "not closed"},
		"unclosed string": {`(session "s`, "not closed"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseSession(c.text)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// TestParseSessionSinglePointWire: Freerouting writes a wire whose corners
// all round to one point as a one-point path; it makes no track.
func TestParseSessionSinglePointWire(t *testing.T) {
	s, err := parseSession(`(session s (routes (resolution um 1) (network_out (net N (wire (path F.Cu 10 5 5)) (wire (path F.Cu 10 0 0 1 0))))))`)
	if err != nil || len(s.Tracks) != 1 || s.Tracks[0].X2 != 1000 {
		t.Errorf("tracks %+v, %v: want the one real segment", s, err)
	}
}

func TestParseSessionWithoutRoutes(t *testing.T) {
	s, err := parseSession(`(session s (placement) (was_is))`)
	if err != nil || len(s.Tracks) != 0 || len(s.Vias) != 0 {
		t.Errorf("session %+v, %v: want empty", s, err)
	}
}
