package simresults

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/metaforge/metaforge/twin"
)

// Result is one solver call a project's evidence names: the FEA results
// the /sim page lists and opens.
type Result struct {
	CallID string `json:"call_id"`
	ToolID string `json:"tool_id,omitempty"`
	// Name is the first evidence's name (a load case and its metric).
	Name       string    `json:"name"`
	Metrics    []Metric  `json:"metrics"`
	RecordedAt time.Time `json:"recorded_at"`
	// Stale is set when any of its evidence was computed against a
	// revision that is no longer its item's head.
	Stale bool `json:"stale"`
}

// Metric is one value recorded from a result, and the evidence holding it.
type Metric struct {
	EvidenceID string   `json:"evidence_id"`
	Name       string   `json:"name"`
	Metric     string   `json:"metric,omitempty"`
	Value      *float64 `json:"value,omitempty"`
	Unit       string   `json:"unit,omitempty"`
}

// Results is the answer of GET /v1/simulation/results.
type Results struct {
	ProjectID string   `json:"project_id"`
	Results   []Result `json:"results"`
	// WithoutField is simulation evidence that names no solver call (typed
	// in by hand, or imported): there is no field to draw for it.
	WithoutField []Metric `json:"without_field"`
	// Note says how results get here, for an empty list.
	Note string `json:"note,omitempty"`
}

// emptyNote tells a person with no results listed how to get one.
const emptyNote = "No FEA results in this project yet: record the evidence of a calculix.run_fea or calculix.run_thermal call with " +
	"twin.record_evidence (data.call_id = its _meta.callId, data.tool_id = the tool), or evaluate a metric with twin.evaluate_metric's tier 2"

// solverCallOf is the solver call an evidence's data names: solver_call_id
// (the evaluations' tier 2 and thermal runs), or call_id with tool_id a
// solver (a design flow's analysis step, or an agent's own record).
func solverCallOf(data map[string]any) (callID, toolID string) {
	str := func(k string) string { s, _ := data[k].(string); return strings.TrimSpace(s) }
	if id := str("solver_call_id"); id != "" {
		method := str("method")
		for _, t := range solverTools {
			if strings.HasPrefix(method, t) {
				toolID = t
			}
		}
		return id, toolID
	}
	if id, tool := str("call_id"), str("tool_id"); id != "" && slices.Contains(solverTools, tool) {
		return id, tool
	}
	return "", ""
}

// listResults gathers project's FEA results from its evidence, newest
// first.
func listResults(ctx context.Context, s twin.Store, projectID string) (Results, error) {
	if _, err := s.GetProject(ctx, projectID); err != nil {
		return Results{}, err
	}
	evs, err := s.NodesByType(ctx, projectID, "evidence")
	if err != nil {
		return Results{}, err
	}
	sort.Slice(evs, func(i, j int) bool {
		if !evs[i].CreatedAt.Equal(evs[j].CreatedAt) {
			return evs[i].CreatedAt.Before(evs[j].CreatedAt)
		}
		return evs[i].ID < evs[j].ID
	})
	out := Results{ProjectID: projectID, Results: []Result{}, WithoutField: []Metric{}}
	byCall := map[string]int{}
	for _, n := range evs {
		data, _ := n.Properties["data"].(map[string]any)
		m := Metric{EvidenceID: n.ID, Name: n.Name}
		m.Metric, _ = n.Properties["metric"].(string)
		m.Unit, _ = n.Properties["unit"].(string)
		if v, ok := n.Properties["value"].(float64); ok {
			m.Value = &v
		}
		callID, toolID := solverCallOf(data)
		if callID == "" {
			if kind, _ := n.Properties["kind"].(string); kind == "simulation" {
				out.WithoutField = append(out.WithoutField, m)
			}
			continue
		}
		f, err := twin.Staleness(ctx, s, n.ID)
		if err != nil {
			return Results{}, err
		}
		i, ok := byCall[callID]
		if !ok {
			i = len(out.Results)
			byCall[callID] = i
			out.Results = append(out.Results, Result{CallID: callID, ToolID: toolID, Name: n.Name, RecordedAt: n.CreatedAt})
		}
		r := &out.Results[i]
		r.Metrics = append(r.Metrics, m)
		r.Stale = r.Stale || f.Stale
		if r.ToolID == "" {
			r.ToolID = toolID
		}
	}
	slices.Reverse(out.Results)
	if len(out.Results) == 0 {
		out.Note = emptyNote
	}
	return out, nil
}
