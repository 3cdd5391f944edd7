package flow

import (
	"context"
	"slices"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/protocol"
)

// gap is a tool a phase needs that this server does not serve.
type gap struct {
	Phase      string `json:"phase"`
	Tool       string `json:"tool"`
	Severity   string `json:"severity"` // high: the phase has no served tool; medium otherwise
	Workaround string `json:"workaround"`
}

// phaseCoverage is one phase's tools, served or not.
type phaseCoverage struct {
	Phase     string   `json:"phase"`
	Served    []string `json:"served"`
	NotServed []string `json:"not_served"`
}

// coverage holds a flow's phases against the served tools.
func coverage(f flows.Flow, served []string) ([]phaseCoverage, []gap) {
	cov := []phaseCoverage{}
	gaps := []gap{}
	for _, p := range f.Phases {
		c := phaseCoverage{Phase: p.Name, Served: []string{}, NotServed: []string{}}
		for _, t := range p.Tools {
			if slices.Contains(served, t) {
				c.Served = append(c.Served, t)
			} else {
				c.NotServed = append(c.NotServed, t)
			}
		}
		for _, t := range c.NotServed {
			g := gap{Phase: p.Name, Tool: t, Severity: "medium",
				Workaround: "do this part outside MetaForge and record its result with twin.record_evidence or twin.record_document"}
			if len(c.Served) == 0 {
				g.Severity = "high"
			}
			gaps = append(gaps, g)
		}
		cov = append(cov, c)
	}
	return cov, gaps
}

func (s *Service) servedTools() []string {
	var out []string
	if s.Catalog != nil {
		for _, m := range s.Catalog.Manifests() {
			out = append(out, m.ToolID)
		}
	}
	return out
}

func capabilities(ctx context.Context, s *Service, a capabilitiesArgs) (any, error) {
	f, err := flows.Template(a.Flow)
	if err != nil {
		return nil, protocol.Invalid("%v", err)
	}
	cov, gaps := coverage(f, s.servedTools())
	return map[string]any{"flow": f.ID, "phases": cov, "gaps": gaps}, nil
}

func lifecycle(ctx context.Context, s *Service, a runIDArgs) (any, error) {
	st, facts, err := runAndFacts(ctx, s, a)
	if err != nil {
		return nil, err
	}
	var phases []map[string]any
	for i, ps := range st.Phases {
		row := map[string]any{"phase": ps.Name, "execution": ps.Status, "attempt": ps.Attempt,
			"eligible": i == st.PhaseIndex && ps.Status == flows.PhaseWaitingForClient, "gate": ps.Gate.Status}
		if ps.Gate.Result != nil {
			row["gate_result"] = ps.Gate.Result.Status
		}
		phases = append(phases, row)
	}
	stale := []string{}
	for _, r := range facts.Requirements {
		if r.Status == "stale" {
			stale = append(stale, r.Name)
		}
	}
	verdict, blocking := flows.Completion(facts)
	out := map[string]any{"run_id": st.RunID, "project_id": st.ProjectID, "status": st.Status, "phases": phases,
		"requirements": facts.Requirements, "stale_requirements": stale, "verdict": verdict, "blocking": blocking}
	if f, err := flows.Template(st.FlowID); err == nil {
		_, out["gaps"] = coverage(f, s.servedTools())
	}
	return out, nil
}
