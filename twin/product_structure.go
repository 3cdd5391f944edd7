package twin

import (
	"context"
	"fmt"
	"strings"
)

// ProductStructure is what a project's product is made of, as the
// hierarchy resource and the G3 mass budget read it: the roll-up of each
// root position of its product hierarchy; or, in a project with no
// hierarchy yet, its committed parts (each cad_model's head), listed and
// not rolled up, since nothing says how they go together.
type ProductStructure struct {
	Roots []Rollup `json:"roots"`
	// Parts are given only when no hierarchy is recorded.
	Parts []PartMass `json:"parts,omitempty"`
}

// PartMass is a committed part and its measured mass, or why it has none.
type PartMass struct {
	Ref    string   `json:"item_ref"`
	Name   string   `json:"name"`
	MassKg *float64 `json:"mass_kg,omitempty"`
	Source string   `json:"source,omitempty"`
	NoData string   `json:"no_data,omitempty"`
}

// ReadProductStructure rolls up every root of the project's hierarchy, or
// lists its parts when there is none.
func ReadProductStructure(ctx context.Context, s Store, projectID string) (ProductStructure, error) {
	roots, err := HierarchyRoots(ctx, s, projectID)
	if err != nil {
		return ProductStructure{}, err
	}
	out := ProductStructure{Roots: []Rollup{}}
	for _, r := range roots {
		ru, err := rollupOf(ctx, s, r)
		if err != nil {
			return ProductStructure{}, err
		}
		out.Roots = append(out.Roots, ru)
	}
	if len(roots) > 0 {
		return out, nil
	}
	parts, err := HeadRevisions(ctx, s, projectID, "cad_model")
	if err != nil {
		return ProductStructure{}, err
	}
	out.Parts = []PartMass{}
	for _, p := range parts {
		pm := PartMass{Ref: p.Ref(), Name: p.Name}
		if f := ownMass(&p); f.known {
			v := f.value
			pm.MassKg, pm.Source = &v, f.source
		} else {
			pm.NoData = f.reason
		}
		out.Parts = append(out.Parts, pm)
	}
	return out, nil
}

// Mass is the product's mass in kg and where it came from: the sum of the
// roots' rolled-up masses, or with no hierarchy the sum of the committed
// parts'. from is "" when it is not known; missing then names what gives
// no mass.
func (p ProductStructure) Mass() (kg float64, from string, missing []string) {
	if len(p.Roots) > 0 {
		for _, r := range p.Roots {
			m := r.Root.MassKg
			if m.Value != nil {
				kg += *m.Value
				continue
			}
			for _, g := range m.NoData {
				missing = append(missing, fmt.Sprintf("%s (%s): %s", g.Name, g.Ref, g.Reason))
			}
		}
		if len(missing) > 0 {
			return 0, "", missing
		}
		names := make([]string, len(p.Roots))
		for i, r := range p.Roots {
			names[i] = r.Root.Ref
		}
		return kg, "the product hierarchy's rolled-up mass of " + strings.Join(names, ", "), nil
	}
	for _, part := range p.Parts {
		if part.MassKg == nil {
			missing = append(missing, fmt.Sprintf("%s: %s", part.Ref, part.NoData))
			continue
		}
		kg += *part.MassKg
	}
	if len(missing) > 0 || len(p.Parts) == 0 {
		return 0, "", missing
	}
	return kg, "the sum of the committed parts' masses (no product hierarchy is recorded)", nil
}
