package flow

import (
	"context"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/twin"
)

// recordLoadCaseDrafts records the load cases a goal's loads imply as
// drafts in the project, for the requirements phase to complete with the
// part and its faces (twin.record_load_case, status ready). A load case of
// the same name already in the project is left as it is: a proposal never
// turns a completed case back into a draft.
func recordLoadCaseDrafts(ctx context.Context, s *Service, projectID string, drafts []flows.LoadCaseDraft) ([]string, error) {
	if len(drafts) == 0 {
		return nil, nil
	}
	p, err := s.Store.GetProject(ctx, projectID)
	if err != nil {
		return nil, err
	}
	existing, err := twin.LoadCases(ctx, s.Store, projectID)
	if err != nil {
		return nil, err
	}
	have := map[string]string{}
	for _, c := range existing {
		have[c.Name] = c.Ref
	}
	ci := adapters.CallInfoFrom(ctx)
	var refs []string
	for i, d := range drafts {
		if ref, ok := have[d.Name]; ok {
			refs = append(refs, ref)
			continue
		}
		c := twin.LoadCase{Name: d.Name, ForceN: d.ForceN, PressureMPa: d.PressureMPa, Status: twin.LoadCaseDraft,
			Source: twin.LoadSource{Kind: "intent", Ref: d.Text, Note: d.Conversion}}
		info := twin.WriteInfo{Author: ci.Caller}
		if ci.CallID != "" {
			info.IdempotencyKey = fmt.Sprintf("%s/load-case/%d", ci.CallID, i)
		}
		n, _, err := twin.RecordLoadCase(ctx, s.Store, twin.LoadCaseWrite{Project: p, Case: c, WriteInfo: info})
		if err != nil {
			return refs, fmt.Errorf("the goal's load %q could not be recorded as a draft load case: %w", d.Text, err)
		}
		refs = append(refs, n.Ref())
	}
	return refs, nil
}
