package kicad

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"
)

// A partition maps each pin ("REF/pin") to an opaque net id. Two netlists
// agree when they group the pins alike, whatever their nets are called.
type partitionMap map[string]string

func partition(each func(yield func(pin, net string))) partitionMap {
	p := partitionMap{}
	each(func(pin, net string) { p[pin] = net })
	return p
}

func netPartition(nets []Net) partitionMap {
	p := partitionMap{}
	for _, n := range nets {
		for _, pin := range n.Pins {
			p[pin.Reference+"/"+pin.Pin] = n.Name
		}
	}
	return p
}

// multiPinGroups are the nets joining two or more pins, each as its sorted
// pins: a pin on its own is left out, since a board leaves an unconnected
// pad on no net while a schematic gives it a net of its own.
func multiPinGroups(p partitionMap) map[string]bool {
	byNet := map[string][]string{}
	for pin, net := range p {
		byNet[net] = append(byNet[net], pin)
	}
	out := map[string]bool{}
	for _, pins := range byNet {
		if len(pins) > 1 {
			sort.Strings(pins)
			out[strings.Join(pins, " ")] = true
		}
	}
	return out
}

// comparePartitions says how got groups pins differently from want, or "".
func comparePartitions(got, want partitionMap) string {
	g, w := multiPinGroups(got), multiPinGroups(want)
	var extra, missing []string
	for k := range g {
		if !w[k] {
			extra = append(extra, k)
		}
	}
	for k := range w {
		if !g[k] {
			missing = append(missing, k)
		}
	}
	if len(extra) == 0 && len(missing) == 0 {
		return ""
	}
	sort.Strings(extra)
	sort.Strings(missing)
	return fmt.Sprintf("%d of %d nets differ from the %d expected:\n  got only:  %s\n  want only: %s",
		len(extra), len(g), len(w), firstFew(extra), firstFew(missing))
}

func firstFew(l []string) string {
	if len(l) > 6 {
		return strings.Join(l[:6], "\n             ") + fmt.Sprintf("\n             ... (%d more)", len(l)-6)
	}
	return strings.Join(l, "\n             ")
}

func execPython(script string, args ...string) (string, error) {
	out, err := exec.Command(DefaultPython, append([]string{"-c", script}, args...)...).CombinedOutput()
	return string(out), err
}
