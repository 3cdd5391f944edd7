package flows

// Clone is a deep copy of f: no slice is shared, so changing the copy
// (patching, tailoring) never changes f or a template another caller holds.
func Clone(f Flow) Flow {
	out := f
	if f.Phases == nil {
		return out
	}
	out.Phases = make([]Phase, len(f.Phases))
	for i, p := range f.Phases {
		out.Phases[i] = clonePhase(p)
	}
	return out
}

func clonePhase(p Phase) Phase {
	out := p
	out.Deliverables = cloneStrings(p.Deliverables)
	out.Tools = cloneStrings(p.Tools)
	if p.Steps != nil {
		out.Steps = make([]Step, len(p.Steps))
		for i, s := range p.Steps {
			out.Steps[i] = s
			if s.Records != nil {
				out.Steps[i].Records = append([]EvidenceField{}, s.Records...)
			}
			if s.From != nil {
				out.Steps[i].From = append([]FromField{}, s.From...)
			}
		}
	}
	if p.Gate.Criteria != nil {
		out.Gate.Criteria = append([]Criterion{}, p.Gate.Criteria...)
	}
	return out
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}
