package kicad

import "testing"

func TestSpiceValue(t *testing.T) {
	for in, want := range map[string]string{"4k7": "4.7k", "4R7": "4.7", "2M2": "2.2M", "100n": "100n", "10k": "10k", "1.5K": "1.5K"} {
		if got := spiceValue(in); got != want {
			t.Errorf("spiceValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNaturalLess(t *testing.T) {
	if !naturalLess("R2", "R10") || naturalLess("R10", "R2") || !naturalLess("C9", "R1") || !naturalLess("U1A", "U1B") {
		t.Error("designators are not in natural order")
	}
}
