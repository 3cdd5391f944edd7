package kicad

import (
	"fmt"
	"math"
	"strings"
)

// How ERC violations name their place and items, as KiCad 6's reports do.

// mm turns KiCad's 0.1 µm schematic unit into millimetres.
func mm(iu int64) float64 { return float64(iu) / 10000 }

// pinItem describes a pin as KiCad 6 does: "Symbol U1 [74LVC1G04] Pin 4
// [, Output, Inverted]" (reference, library symbol, number, name, type,
// shape).
func pinItem(p *ercPin) ERCItem {
	name := visibleName(p.lp.name)
	return ERCItem{
		Kind: "pin", Reference: p.part.reference, Pin: p.lp.number, PinName: name, PinType: pinTypeTokens[p.kind],
		Description: fmt.Sprintf("Symbol %s [%s] Pin %s [%s, %s, %s]", p.part.reference, libItemName(p.part.sym.libID), p.lp.number, name, pinTypeNames[p.kind], pinShapeName(p.lp.shape)),
		XMM:         mm(p.at.x), YMM: mm(p.at.y),
	}
}

// pinShapeName is KiCad's display name of a pin's graphic style.
func pinShapeName(shape string) string {
	names := map[string]string{
		"line": "Line", "inverted": "Inverted", "clock": "Clock", "inverted_clock": "Inverted clock",
		"input_low": "Input low", "clock_low": "Clock low", "output_low": "Output low",
		"edge_clock_high": "Falling edge clock", "non_logic": "NonLogic",
	}
	if n, ok := names[shape]; ok {
		return n
	}
	return shape
}

var labelKinds = map[int][2]string{
	localLabel:  {"label", "Label"},
	globalLabel: {"global_label", "Global Label"},
	hierLabel:   {"hierarchical_label", "Hierarchical Label"},
}

func labelItem(l *ercLabel) ERCItem {
	k := labelKinds[l.kind]
	return ERCItem{Kind: k[0], Text: l.name, Description: fmt.Sprintf("%s '%s'", k[1], l.name), XMM: mm(l.at.x), YMM: mm(l.at.y)}
}

func sheetPinItem(p *ercSheetPin) ERCItem {
	return ERCItem{Kind: "sheet_pin", Text: p.name, Description: fmt.Sprintf("Hierarchical Sheet Pin '%s' of sheet %s", p.name, p.sheet.name), XMM: mm(p.at.x), YMM: mm(p.at.y)}
}

func symbolItem(p *part) ERCItem {
	return ERCItem{Kind: "symbol", Reference: p.reference, Description: fmt.Sprintf("Symbol %s [%s]", p.reference, libItemName(p.sym.libID)), XMM: mm(p.sym.at.x), YMM: mm(p.sym.at.y)}
}

// libItemName is the symbol's name in its library (R for Device:R).
func libItemName(libID string) string {
	if i := strings.LastIndexByte(libID, ':'); i >= 0 {
		return libID[i+1:]
	}
	return libID
}

// unitLetter is KiCad's name of a unit (1 is A, 27 is AA), which its
// duplicate message appends to the reference.
func unitLetter(unit int) string {
	if unit < 1 {
		return ""
	}
	s := ""
	for unit > 0 {
		unit--
		s = string(rune('A'+unit%26)) + s
		unit /= 26
	}
	return s
}

// wireText describes a wire as KiCad 6 does: "Horizontal Wire, length
// 5.08 mm".
func wireText(w [2]point) string {
	dir := "Wire"
	switch {
	case w[0].y == w[1].y:
		dir = "Horizontal Wire"
	case w[0].x == w[1].x:
		dir = "Vertical Wire"
	}
	return fmt.Sprintf("%s, length %.2f mm", dir, math.Hypot(mm(w[1].x)-mm(w[0].x), mm(w[1].y)-mm(w[0].y)))
}
