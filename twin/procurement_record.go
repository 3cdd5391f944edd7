package twin

import (
	"fmt"
	"math"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A procurement record: the parts bought (or to buy), from whom, how
// many, at what price and lead time, under which purchase order. Every
// price is in the record's one currency (USD unless given): there are no
// exchange rates here, so a record never mixes currencies. Each line is
// linked to the project's BOM item for its MPN when there is one; the
// result names the MPNs no BOM item has.

// DefaultCurrency is a procurement record's currency when none is given.
const DefaultCurrency = "USD"

// ProcurementLine is one part bought from one supplier.
type ProcurementLine struct {
	MPN          string   `json:"mpn" jsonschema:"the manufacturer part number"`
	Supplier     string   `json:"supplier" jsonschema:"who it is bought from (Digi-Key, Mouser, the manufacturer)"`
	Quantity     int      `json:"quantity" jsonschema:"how many"`
	UnitPrice    *float64 `json:"unit_price" jsonschema:"price per unit in the record's currency, at this quantity"`
	LeadTimeDays *int     `json:"lead_time_days" jsonschema:"days from order to delivery; 0 for stock on hand"`
	PO           string   `json:"po,omitempty" jsonschema:"the purchase order number, once one is placed"`
}

// ProcurementRecord is the content of a procurement record.
type ProcurementRecord struct {
	Currency string            `json:"currency,omitempty" jsonschema:"the ISO 4217 code every unit_price is in (USD when not given)"`
	Lines    []ProcurementLine `json:"lines" jsonschema:"one line per part per supplier (per purchase order)"`
}

// currency is the record's currency.
func (p ProcurementRecord) currency() string {
	if c := strings.TrimSpace(p.Currency); c != "" {
		return strings.ToUpper(c)
	}
	return DefaultCurrency
}

// DocumentType implements TypedDocument.
func (ProcurementRecord) DocumentType() string { return "procurement_record" }

// Check implements TypedDocument: a three-letter currency; at least one
// line; each with MPN, supplier, a quantity of at least one, a price of
// at least zero and a lead time of at least zero days; no line twice.
func (p ProcurementRecord) Check() error {
	if c := p.currency(); len(c) != 3 || strings.IndexFunc(c, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return Refusef("currency %q: give the ISO 4217 code (USD, EUR, GBP) every unit_price is in", p.Currency)
	}
	if len(p.Lines) == 0 {
		return Refusef("lines is empty: give one line per part bought (mpn, supplier, quantity, unit_price, lead_time_days, po)")
	}
	seen := map[string]int{}
	for i, l := range p.Lines {
		switch {
		case blank(l.MPN):
			return Refusef("lines[%d].mpn is blank: give the manufacturer part number", i)
		case blank(l.Supplier):
			return Refusef("lines[%d] (%s): supplier is blank: say who it is bought from", i, l.MPN)
		case l.Quantity < 1:
			return Refusef("lines[%d] (%s): quantity %d; a line buys at least one", i, l.MPN, l.Quantity)
		case l.UnitPrice == nil || math.IsNaN(*l.UnitPrice) || math.IsInf(*l.UnitPrice, 0) || *l.UnitPrice < 0:
			return Refusef("lines[%d] (%s): unit_price must be a number >= 0 in %s", i, l.MPN, p.currency())
		case l.LeadTimeDays == nil || *l.LeadTimeDays < 0:
			return Refusef("lines[%d] (%s): lead_time_days must be given, >= 0 (0 for stock on hand)", i, l.MPN)
		}
		key := strings.ToUpper(strings.TrimSpace(l.MPN)) + "\x00" + strings.ToLower(strings.TrimSpace(l.Supplier)) + "\x00" + strings.TrimSpace(l.PO)
		if j, dup := seen[key]; dup {
			return Refusef("lines[%d] and lines[%d] both buy %s from %s on the same po; merge them into one line", j, i, l.MPN, l.Supplier)
		}
		seen[key] = i
	}
	return nil
}

// extended is a line's quantity times its unit price.
func (l ProcurementLine) extended() float64 {
	return units.RoundSig(float64(l.Quantity)**l.UnitPrice, 12)
}

// Markdown implements TypedDocument.
func (p ProcurementRecord) Markdown(title string) string {
	var b strings.Builder
	cur := p.currency()
	fmt.Fprintf(&b, "# %s\n\nProcurement record; prices in %s.\n\n| MPN | Supplier | Quantity | Unit price | Extended | Lead time (days) | PO |\n"+
		"| --- | --- | --- | --- | --- | --- | --- |\n", title, cur)
	for _, l := range p.Lines {
		po := strings.TrimSpace(l.PO)
		if po == "" {
			po = "not placed"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %d | %s |\n", mdCell(l.MPN), mdCell(l.Supplier), l.Quantity, units.Format(*l.UnitPrice),
			units.Format(l.extended()), *l.LeadTimeDays, mdCell(po))
	}
	s := p.Summary()
	fmt.Fprintf(&b, "\nTotal: %s %s. Longest lead time: %s days.\n", units.Format(s["total"].(float64)), cur, units.Format(s["longest_lead_time_days"].(float64)))
	return b.String()
}

// Summary implements TypedDocument: the total (sum of quantity x unit
// price), the longest lead time and the parts it belongs to, and the
// lines with no purchase order yet.
func (p ProcurementRecord) Summary() map[string]any {
	total, longest := 0.0, -1
	slowest, unplaced := []any{}, []any{}
	for _, l := range p.Lines {
		total += l.extended()
		switch d := *l.LeadTimeDays; {
		case d > longest:
			longest, slowest = d, []any{strings.TrimSpace(l.MPN)}
		case d == longest:
			slowest = append(slowest, strings.TrimSpace(l.MPN))
		}
		if blank(l.PO) {
			unplaced = append(unplaced, strings.TrimSpace(l.MPN))
		}
	}
	return map[string]any{"lines": float64(len(p.Lines)), "currency": p.currency(), "total": units.RoundSig(total, 12),
		"longest_lead_time_days": float64(max(longest, 0)), "longest_lead_time_mpns": slowest, "lines_without_po": unplaced}
}

// Concerns implements TypedDocument: its parts are linked by MPN (MPNs).
func (ProcurementRecord) Concerns() []string { return nil }

// MPNs are the record's parts, once each, in line order.
func (p ProcurementRecord) MPNs() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range p.Lines {
		m := strings.TrimSpace(l.MPN)
		if !seen[strings.ToUpper(m)] {
			seen[strings.ToUpper(m)] = true
			out = append(out, m)
		}
	}
	return out
}
