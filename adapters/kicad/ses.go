package kicad

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// A Specctra session (.ses) is what Freerouting writes after routing: the
// board's whole routing (every wire and via that is not fixed) per net, in
// the DSN's coordinates (Y up) at the session's resolution. KiCad 6 reads it
// only from its GUI (ImportSpecctraSES needs a frame), so the adapter reads
// it here and has pcbnew add the copper (route.py's merge).

// session is a parsed .ses: its copper in KiCad's units (nanometres,
// Y down), ready for pcbnew.
type session struct {
	Tracks []sesTrack `json:"tracks"`
	Vias   []sesVia   `json:"vias"`
	// Areas counts the conduction areas (copper polygons) the session
	// lists; they are left out, as KiCad's own import leaves them: the
	// board's zones are refilled instead.
	Areas int `json:"-"`
}

// sesTrack is one straight segment of a wire.
type sesTrack struct {
	Net     string `json:"net"`
	Layer   string `json:"layer"`
	WidthNM int64  `json:"width_nm"`
	X1      int64  `json:"x1_nm"`
	Y1      int64  `json:"y1_nm"`
	X2      int64  `json:"x2_nm"`
	Y2      int64  `json:"y2_nm"`
}

// sesVia is one via, its size from the padstack the session names.
type sesVia struct {
	Net      string `json:"net"`
	Padstack string `json:"padstack"`
	X        int64  `json:"x_nm"`
	Y        int64  `json:"y_nm"`
	// DiameterNM is the copper's: the padstack's circle.
	DiameterNM int64 `json:"diameter_nm"`
	// DrillNM is the hole, read from KiCad's own padstack name
	// ("Via[0-1]_800:400_um"); 0 when the name does not say, and then
	// pcbnew uses the board's default via drill.
	DrillNM int64 `json:"drill_nm"`
	// TopLayer and BottomLayer are the padstack's outermost layers.
	TopLayer    string `json:"top_layer"`
	BottomLayer string `json:"bottom_layer"`
}

// sesPadstack is a via padstack of the session's library_out.
type sesPadstack struct {
	diameterNM            int64
	drillNM               int64
	topLayer, bottomLayer string
}

// unitNM is how many nanometres one unit of a Specctra resolution is.
var unitNM = map[string]float64{"inch": 25.4e6, "mil": 25400, "cm": 1e7, "mm": 1e6, "um": 1000}

// kicadViaName is the padstack name KiCad's DSN export gives a via:
// Via[<top>-<bottom>]_<diameter>:<drill>_um.
var kicadViaName = regexp.MustCompile(`^Via\[\d+-\d+\]_([0-9.]+):([0-9.]+)_um$`)

// parseSession reads a Specctra session file's routes: its resolution,
// its via padstacks and each net's wires and vias, converted to KiCad's
// nanometres with Y pointing down as KiCad's is.
func parseSession(text string) (*session, error) {
	root, err := parseSpecctra(text)
	if err != nil {
		return nil, err
	}
	if root.head() != "session" {
		return nil, fmt.Errorf("it is not a Specctra session: it starts with (%s, not (session", root.head())
	}
	routes := root.child("routes")
	if routes == nil {
		return &session{}, nil // nothing routed
	}
	scale, err := resolutionNM(routes.child("resolution"))
	if err != nil {
		return nil, err
	}
	pt := func(s string) (int64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a coordinate", s)
		}
		return int64(math.Round(v * scale)), nil
	}
	stacks := map[string]sesPadstack{}
	if lib := routes.child("library_out"); lib != nil {
		for _, ps := range lib.children("padstack") {
			p, err := padstackOf(ps, pt)
			if err != nil {
				return nil, err
			}
			stacks[ps.arg(0)] = p
		}
	}
	s := &session{Tracks: []sesTrack{}, Vias: []sesVia{}}
	network := routes.child("network_out")
	if network == nil {
		return s, nil
	}
	for _, net := range network.children("net") {
		name := net.arg(0)
		for _, w := range net.children("wire") {
			path := w.child("path")
			if path == nil {
				s.Areas++ // a polygon: a conduction area
				continue
			}
			tracks, err := wireTracks(name, path, pt)
			if err != nil {
				return nil, fmt.Errorf("net %s: %w", name, err)
			}
			s.Tracks = append(s.Tracks, tracks...)
		}
		for _, v := range net.children("via") {
			ps, ok := stacks[v.arg(0)]
			if !ok {
				return nil, fmt.Errorf("net %s: a via uses padstack %q, which the session's library_out does not define", name, v.arg(0))
			}
			x, err := pt(v.arg(1))
			if err != nil {
				return nil, fmt.Errorf("net %s: via: %w", name, err)
			}
			y, err := pt(v.arg(2))
			if err != nil {
				return nil, fmt.Errorf("net %s: via: %w", name, err)
			}
			s.Vias = append(s.Vias, sesVia{Net: name, Padstack: v.arg(0), X: x, Y: -y,
				DiameterNM: ps.diameterNM, DrillNM: ps.drillNM, TopLayer: ps.topLayer, BottomLayer: ps.bottomLayer})
		}
	}
	return s, nil
}

// resolutionNM is the size of one session unit in nanometres: (resolution
// um 10) is a tenth of a micrometre, 100 nm.
func resolutionNM(res *node) (float64, error) {
	if res == nil {
		return 0, fmt.Errorf("its routes have no (resolution unit n)")
	}
	per, ok := unitNM[strings.ToLower(res.arg(0))]
	n := res.num(1)
	if !ok || n <= 0 {
		return 0, fmt.Errorf("resolution (%s %s) is not a unit (inch, mil, cm, mm, um) and a positive count", res.arg(0), res.arg(1))
	}
	return per / n, nil
}

// padstackOf reads a via padstack: its circle's diameter, its outermost
// layers, and the drill when KiCad named it.
func padstackOf(ps *node, pt func(string) (int64, error)) (sesPadstack, error) {
	var p sesPadstack
	for _, sh := range ps.children("shape") {
		c := sh.child("circle")
		if c == nil {
			return p, fmt.Errorf("via padstack %q has a shape that is not a circle; only round vias can be made", ps.arg(0))
		}
		d, err := pt(c.arg(1))
		if err != nil {
			return p, fmt.Errorf("via padstack %q: %w", ps.arg(0), err)
		}
		if p.topLayer == "" {
			p.topLayer = c.arg(0)
		}
		p.bottomLayer = c.arg(0)
		p.diameterNM = max(p.diameterNM, d) // KiCad's vias are one size on every layer
	}
	if p.topLayer == "" {
		return p, fmt.Errorf("via padstack %q has no shape", ps.arg(0))
	}
	if m := kicadViaName.FindStringSubmatch(ps.arg(0)); m != nil {
		um, _ := strconv.ParseFloat(m[2], 64)
		p.drillNM = int64(math.Round(um * 1000))
	}
	return p, nil
}

// wireTracks splits a wire's path (layer, width, then corner coordinates)
// into its straight segments.
func wireTracks(net string, path *node, pt func(string) (int64, error)) ([]sesTrack, error) {
	layer := path.arg(0)
	width, err := pt(path.arg(1))
	if err != nil {
		return nil, fmt.Errorf("wire on %s: width: %w", layer, err)
	}
	var coords []int64
	for i := 2; i < len(path.list)-1; i++ {
		c, err := pt(path.arg(i))
		if err != nil {
			return nil, fmt.Errorf("wire on %s: %w", layer, err)
		}
		coords = append(coords, c)
	}
	if len(coords)%2 != 0 || len(coords) < 2 {
		return nil, fmt.Errorf("wire on %s has %d coordinates; a path needs x y pairs", layer, len(coords))
	}
	// One point: a wire whose corners all rounded to the same place
	// (Freerouting drops repeated points); it has no segment to make.
	var out []sesTrack
	for i := 0; i+3 < len(coords); i += 2 {
		out = append(out, sesTrack{Net: net, Layer: layer, WidthNM: width,
			X1: coords[i], Y1: -coords[i+1], X2: coords[i+2], Y2: -coords[i+3]})
	}
	return out, nil
}

// parseSpecctra parses Specctra's S-expressions: KiCad's reader would
// take backslashes as escapes, which Specctra has none of, and Specctra
// may declare its quote character ((string_quote ")), a lone quote).
func parseSpecctra(text string) (*node, error) {
	toks, err := specctraTokens(text)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 || toks[0] != "(" {
		return nil, fmt.Errorf("it does not start with '('")
	}
	i := 0
	var parse func() (*node, error)
	parse = func() (*node, error) {
		t := toks[i]
		i++
		if t != "(" {
			if t == ")" {
				return nil, fmt.Errorf("unexpected ')'")
			}
			return &node{atom: strings.TrimPrefix(t, "\x00"), quoted: strings.HasPrefix(t, "\x00")}, nil
		}
		n := &node{isList: true}
		for {
			if i >= len(toks) {
				return nil, fmt.Errorf("unexpected end of file: a list is not closed")
			}
			if toks[i] == ")" {
				i++
				return n, nil
			}
			c, err := parse()
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, c)
		}
	}
	return parse()
}

// specctraTokens splits the text into "(", ")" and atoms; a quoted atom
// is marked with a leading NUL so that a quoted "(" stays an atom.
func specctraTokens(s string) ([]string, error) {
	var toks []string
	quote := byte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
			// (string_quote X): X is the new quote character, alone.
			if c == '(' && strings.HasPrefix(s[i:], "string_quote") {
				j := i + len("string_quote")
				for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
					j++
				}
				if j < len(s) && j > i+len("string_quote") && s[j] != ')' {
					toks = append(toks, "string_quote", "\x00"+string(s[j]))
					quote = s[j]
					i = j + 1
				}
			}
		case c == quote:
			end := strings.IndexByte(s[i+1:], quote)
			if end < 0 {
				return nil, fmt.Errorf("a string starting at byte %d is not closed", i)
			}
			toks = append(toks, "\x00"+s[i+1:i+1+end])
			i += end + 2
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\r\n()", s[j]) < 0 && s[j] != quote {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}
