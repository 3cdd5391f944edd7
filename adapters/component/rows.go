package component

import (
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/twin"
)

// resultRow is a catalogue row as the tools return it: the row, with its
// source, and the same part as twin.select_component and
// twin.record_component_selection take a candidate, so a row found can be
// passed on as it is.
type resultRow struct {
	components.Row
	Candidate twin.ComponentCandidate `json:"candidate"`
}

// resultRows wraps rows for an answer.
func resultRows(rows []components.Row) []resultRow {
	out := make([]resultRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, resultRow{Row: r, Candidate: candidate(r)})
	}
	return out
}

// candidate is a row as a selection candidate: each figure as
// {value, unit} as the catalogue gave it, category, and unit_cost when the
// price is in USD (the BOM roll-up reads unit_cost in USD only).
func candidate(r components.Row) twin.ComponentCandidate {
	specs := map[string]any{"category": r.Category}
	for _, f := range r.Figures {
		if f.Unit == "" {
			specs[f.Name] = f.Value
			continue
		}
		specs[f.Name] = map[string]any{"value": f.Value, "unit": f.Unit}
	}
	if r.Price != nil && r.Currency == "USD" {
		specs["unit_cost"] = map[string]any{"value": *r.Price, "unit": "USD"}
	}
	return twin.ComponentCandidate{MPN: r.MPN, Manufacturer: r.Manufacturer, Description: r.Description,
		DatasheetURL: r.DatasheetURL, Specs: specs}
}
