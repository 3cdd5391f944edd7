package calculix

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Block is one nodal result block of a CalculiX .frd file: a field
// (DISP, STRESS, NDTEMP, ...) at one step, its components by node.
type Block struct {
	Name       string
	Step       int
	Value      float64 // the step's time, or a mode's frequency in Hz
	Components []string
	Values     map[int][]float64
}

// ReadFRD parses the ASCII .frd CalculiX writes: the node coordinates and
// every nodal result block. Fields are fixed-width: " -1", a node id in 10
// columns, then values 12 columns each. Naming fields (DISP, STRESS) keeps
// only those blocks and skips the node coordinates, which a solve already
// has from its mesh: parsing the rest would add to every solve's time.
func ReadFRD(path string, fields ...string) (nodes map[int][3]float64, blocks []*Block, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	nodes = map[int][3]float64{}
	var cur *Block
	inNodes, inElements := false, false
	skipping := false // inside a block no one asked for
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		switch {
		case skipping && !strings.HasPrefix(l, " -3"):
		case strings.HasPrefix(l, "    2C"):
			inNodes = len(fields) == 0
			skipping = !inNodes
		case strings.HasPrefix(l, "    3C"):
			inNodes, inElements = false, true
		case strings.HasPrefix(l, "  100C"):
			cur = &Block{Values: map[int][]float64{}}
			f := strings.Fields(l)
			if len(f) > 2 {
				cur.Value, _ = strconv.ParseFloat(f[2], 64)
			}
			cur.Step = len(blocks) + 1
			if len(f) > 1 {
				if n, err := strconv.Atoi(f[1]); err == nil {
					cur.Step = n
				}
			}
		case strings.HasPrefix(l, " -4") && cur != nil:
			f := strings.Fields(l)
			if len(f) > 1 {
				cur.Name = f[1]
			}
			if len(fields) > 0 && !slices.Contains(fields, cur.Name) {
				cur, skipping = nil, true
			}
		case strings.HasPrefix(l, " -5") && cur != nil:
			f := strings.Fields(l)
			if len(f) > 1 && !strings.Contains(l, "ALL") {
				cur.Components = append(cur.Components, f[1])
			}
		case inElements && !strings.HasPrefix(l, " -3"):
			// Element connectivity: not needed, the mesh has it.
		case strings.HasPrefix(l, " -1"):
			id, vals, perr := fixedWidth(l)
			if perr != nil {
				return nil, nil, fmt.Errorf("%s line %d: %v", path, line, perr)
			}
			if inNodes && cur == nil {
				if len(vals) >= 3 {
					nodes[id] = [3]float64{vals[0], vals[1], vals[2]}
				}
			} else if cur != nil {
				cur.Values[id] = vals
			}
		case strings.HasPrefix(l, " -3"):
			skipping = false
			if cur != nil {
				blocks = append(blocks, cur)
				cur = nil
			}
			inNodes, inElements = false, false
		}
	}
	return nodes, blocks, sc.Err()
}

func fixedWidth(l string) (int, []float64, error) {
	if len(l) < 13 {
		return 0, nil, fmt.Errorf("short data line %q", l)
	}
	id, err := strconv.Atoi(strings.TrimSpace(l[3:13]))
	if err != nil {
		return 0, nil, fmt.Errorf("bad node id in %q", l)
	}
	var vals []float64
	for i := 13; i+12 <= len(l); i += 12 {
		v, err := strconv.ParseFloat(strings.TrimSpace(l[i:i+12]), 64)
		if err != nil {
			return 0, nil, fmt.Errorf("bad value %q", l[i:i+12])
		}
		vals = append(vals, v)
	}
	return id, vals, nil
}

// Find returns the last block named name (the final increment), or nil.
func Find(blocks []*Block, name string) *Block {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Name == name {
			return blocks[i]
		}
	}
	return nil
}

// Magnitude is the largest vector length over the first three components,
// and the node it is at.
func (b *Block) Magnitude() (float64, int, [3]float64) {
	best, at := -1.0, 0
	var vec [3]float64
	for id, v := range b.Values {
		if len(v) < 3 {
			continue
		}
		m := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		if m > best || (m == best && id < at) {
			best, at, vec = m, id, [3]float64{v[0], v[1], v[2]}
		}
	}
	return best, at, vec
}

// VonMises is the von Mises stress at each node of a STRESS block
// (components SXX SYY SZZ SXY SYZ SZX).
func (b *Block) VonMises() map[int]float64 {
	out := make(map[int]float64, len(b.Values))
	for id, s := range b.Values {
		if len(s) < 6 {
			continue
		}
		out[id] = vonMises(s)
	}
	return out
}

// Scalar returns the first component at each node (NDTEMP's T).
func (b *Block) Scalar() map[int]float64 {
	out := make(map[int]float64, len(b.Values))
	for id, v := range b.Values {
		if len(v) > 0 {
			out[id] = v[0]
		}
	}
	return out
}

// extreme is a field's maximum or minimum and where it is.
type extreme struct {
	Value float64
	Node  int
}

func maxOf(field map[int]float64) extreme {
	e := extreme{Value: math.Inf(-1)}
	for id, v := range field {
		if v > e.Value || (v == e.Value && id < e.Node) {
			e = extreme{v, id}
		}
	}
	return e
}

func minOf(field map[int]float64) extreme {
	e := extreme{Value: math.Inf(1)}
	for id, v := range field {
		if v < e.Value || (v == e.Value && id < e.Node) {
			e = extreme{v, id}
		}
	}
	return e
}

var eigenRow = regexp.MustCompile(`^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$`)

// ReadFrequencies reads the eigenvalue table of a *FREQUENCY step from the
// .dat file: the frequencies in cycles per time (Hz), lowest mode first.
func ReadFrequencies(datPath string) ([]float64, error) {
	b, err := os.ReadFile(datPath)
	if err != nil {
		return nil, err
	}
	text := string(b)
	i := strings.Index(text, "E I G E N V A L U E   O U T P U T")
	if i < 0 {
		return nil, fmt.Errorf("%s has no eigenvalue output", datPath)
	}
	var freqs []float64
	started := false
	for _, l := range strings.Split(text[i:], "\n")[1:] {
		m := eigenRow.FindStringSubmatch(l)
		if m == nil {
			if started && strings.TrimSpace(l) != "" {
				break
			}
			continue
		}
		hz, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return nil, fmt.Errorf("eigenvalue row %q: %v", l, err)
		}
		started = true
		freqs = append(freqs, hz)
	}
	if len(freqs) == 0 {
		return nil, fmt.Errorf("%s lists no modes", datPath)
	}
	return freqs, nil
}
