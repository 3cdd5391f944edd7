package spice

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Plot is one analysis in an ngspice rawfile. Real holds each variable's
// values for a real plot; for a complex plot (AC) Real and Imag hold the two
// parts. Variable 0 is the scale (time, frequency, the swept source), except
// in an operating point, whose one point has no scale.
type Plot struct {
	Title    string
	Plotname string
	Complex  bool
	Vars     []Variable
	Real     [][]float64 // [variable][point]
	Imag     [][]float64 // [variable][point], complex plots only
	Points   int
}

// Variable is one vector of a plot: its name ("v(out)") and ngspice's type
// for it ("voltage", "current", "time", "frequency").
type Variable struct {
	Name string
	Type string
}

// ParseRawfile reads every plot of an ngspice rawfile, ASCII ("Values:") or
// binary ("Binary:", little-endian float64), real or complex. A binary plot
// cut short (ngspice killed mid-write) keeps the whole points it has.
func ParseRawfile(data []byte) ([]Plot, error) {
	var plots []Plot
	rest := data
	for len(bytes.TrimSpace(rest)) > 0 {
		p, next, err := parsePlot(rest)
		if err != nil {
			return plots, err
		}
		plots = append(plots, p)
		rest = next
	}
	if len(plots) == 0 {
		return nil, fmt.Errorf("rawfile holds no plot")
	}
	return plots, nil
}

// parsePlot reads one plot's header and data and returns what follows it.
func parsePlot(data []byte) (Plot, []byte, error) {
	var p Plot
	nvars, npoints := -1, -1
	pos := 0
	readLine := func() (string, bool) {
		if pos >= len(data) {
			return "", false
		}
		end := bytes.IndexByte(data[pos:], '\n')
		var line []byte
		if end < 0 {
			line, pos = data[pos:], len(data)
		} else {
			line, pos = data[pos:pos+end], pos+end+1
		}
		return strings.TrimRight(string(line), "\r"), true
	}
	for {
		line, ok := readLine()
		if !ok {
			return p, nil, fmt.Errorf("rawfile header ends before its data")
		}
		key, val, _ := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "title":
			p.Title = val
		case "plotname":
			p.Plotname = val
		case "flags":
			p.Complex = strings.Contains(strings.ToLower(val), "complex")
		case "no. variables":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return p, nil, fmt.Errorf("rawfile: bad variable count %q", val)
			}
			nvars = n
		case "no. points":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return p, nil, fmt.Errorf("rawfile: bad point count %q", val)
			}
			npoints = n
		case "variables":
			if nvars < 0 {
				return p, nil, fmt.Errorf("rawfile: variables listed before their count")
			}
			for i := 0; i < nvars; i++ {
				vl, ok := readLine()
				if !ok {
					return p, nil, fmt.Errorf("rawfile: variable list ends after %d of %d", i, nvars)
				}
				f := strings.Fields(vl)
				if len(f) < 3 {
					return p, nil, fmt.Errorf("rawfile: bad variable line %q", vl)
				}
				p.Vars = append(p.Vars, Variable{Name: f[1], Type: f[2]})
			}
		case "values", "binary":
			if nvars < 0 || npoints < 0 || len(p.Vars) != nvars {
				return p, nil, fmt.Errorf("rawfile: data before a complete header")
			}
			p.Real = make([][]float64, nvars)
			if p.Complex {
				p.Imag = make([][]float64, nvars)
			}
			if strings.EqualFold(strings.TrimSpace(key), "binary") {
				rest, err := p.readBinary(data[pos:], npoints)
				return p, rest, err
			}
			rest, err := p.readASCII(data[pos:], npoints)
			return p, rest, err
		}
	}
}

func (p *Plot) readBinary(data []byte, npoints int) ([]byte, error) {
	width := 8
	if p.Complex {
		width = 16
	}
	row := width * len(p.Vars)
	have := len(data) / row
	n := min(npoints, have)
	off := 0
	for i := 0; i < n; i++ {
		for v := range p.Vars {
			p.Real[v] = append(p.Real[v], math.Float64frombits(binary.LittleEndian.Uint64(data[off:])))
			off += 8
			if p.Complex {
				p.Imag[v] = append(p.Imag[v], math.Float64frombits(binary.LittleEndian.Uint64(data[off:])))
				off += 8
			}
		}
	}
	p.Points = n
	if n < npoints {
		return nil, nil // cut short: what follows is a partial point
	}
	return data[off:], nil
}

func (p *Plot) readASCII(data []byte, npoints int) ([]byte, error) {
	// ngspice ends every value line with a newline; a file that does not
	// was cut short, and its last number may be cut too: drop it.
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data = data[:i+1]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	consumed := 0
	// Track how far the scanner got so a following plot can be parsed.
	split := func(d []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanWords(d, atEOF)
		consumed += adv
		return adv, tok, err
	}
	sc.Split(split)
	for i := 0; i < npoints; i++ {
		if !sc.Scan() {
			return nil, nil // cut short: keep the whole points read
		}
		if _, err := strconv.Atoi(sc.Text()); err != nil {
			return nil, fmt.Errorf("rawfile: point %d: bad index %q", i, sc.Text())
		}
		for v := range p.Vars {
			if !sc.Scan() {
				p.trim() // cut short inside a point: keep the whole ones
				return nil, nil
			}
			tok := sc.Text()
			if p.Complex {
				re, im, ok := strings.Cut(tok, ",")
				if !ok {
					return nil, fmt.Errorf("rawfile: point %d: complex value %q has no imaginary part", i, tok)
				}
				r, err1 := strconv.ParseFloat(re, 64)
				m, err2 := strconv.ParseFloat(im, 64)
				if err1 != nil || err2 != nil {
					return nil, fmt.Errorf("rawfile: point %d: bad complex value %q", i, tok)
				}
				p.Real[v] = append(p.Real[v], r)
				p.Imag[v] = append(p.Imag[v], m)
				continue
			}
			r, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				return nil, fmt.Errorf("rawfile: point %d: bad value %q", i, tok)
			}
			p.Real[v] = append(p.Real[v], r)
		}
		p.Points++
	}
	if consumed > len(data) {
		consumed = len(data)
	}
	return data[consumed:], nil
}

// trim drops the values of a partial last point.
func (p *Plot) trim() {
	for v := range p.Real {
		p.Real[v] = p.Real[v][:min(len(p.Real[v]), p.Points)]
		if p.Imag != nil {
			p.Imag[v] = p.Imag[v][:min(len(p.Imag[v]), p.Points)]
		}
	}
}
