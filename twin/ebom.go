package twin

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// The engineering BOM is derived from the product hierarchy, never kept
// beside it: the BOM items positions are INSTANCE_OF, each counted as many
// times as the quantities down CONTAINS multiply to. A BOM item's own
// quantity property is not used: how many the product holds is the
// hierarchy's to say.

// The EBOM's views.
const (
	EBOMFlat         = "flat"
	EBOMHierarchical = "hierarchical"
)

// EBOMViews are the views EBOM gives.
var EBOMViews = []string{EBOMFlat, EBOMHierarchical}

// EBOMLine is one BOM item revision and how many of it the product holds.
type EBOMLine struct {
	ItemRef      string `json:"item_ref"`
	Name         string `json:"name"`
	MPN          string `json:"mpn"`
	Manufacturer string `json:"manufacturer,omitempty"`
	Category     string `json:"category,omitempty"`
	// Quantity is the total over every position (flat), or this
	// position's total quantity (hierarchical).
	Quantity        int      `json:"total_quantity"`
	UnitCostUSD     *float64 `json:"unit_cost_usd,omitempty"`
	ExtendedCostUSD *float64 `json:"extended_cost_usd,omitempty"`
	// CostNoData says why a line has no cost.
	CostNoData string `json:"cost_no_data,omitempty"`
	// Positions are the refs of the positions it is an instance at
	// (flat view).
	Positions []string `json:"positions,omitempty"`
}

// EBOMPosition is one position of the hierarchical EBOM.
type EBOMPosition struct {
	Name  string `json:"name"`
	Ref   string `json:"ref"`
	Level string `json:"level"`
	// Quantity is how many its parent holds, TotalQuantity how many one
	// root holds.
	Quantity      int            `json:"quantity"`
	TotalQuantity int            `json:"total_quantity"`
	BOMItem       *EBOMLine      `json:"bom_item,omitempty"`
	Children      []EBOMPosition `json:"children,omitempty"`
}

// EngineeringBOM is a project's engineering BOM in one view.
type EngineeringBOM struct {
	ProjectID string         `json:"project_id"`
	View      string         `json:"view"`
	Category  string         `json:"category,omitempty"`
	Lines     []EBOMLine     `json:"lines,omitempty"`
	Tree      []EBOMPosition `json:"tree,omitempty"`
	// TotalCostUSD is the cost of every line, only when each has one;
	// otherwise CostNoData names the lines without and
	// KnownPartialCostUSD sums the rest.
	TotalCostUSD        *float64 `json:"total_cost_usd,omitempty"`
	KnownPartialCostUSD *float64 `json:"known_partial_cost_usd,omitempty"`
	CostNoData          []string `json:"cost_no_data,omitempty"`
	Note                string   `json:"note,omitempty"`
}

// MarshalJSON always gives the view's own list, empty when there is none
// ("lines" for flat, "tree" for hierarchical), and never the other's.
func (b EngineeringBOM) MarshalJSON() ([]byte, error) {
	type plain EngineeringBOM
	out := struct {
		plain
		Lines *[]EBOMLine     `json:"lines,omitempty"`
		Tree  *[]EBOMPosition `json:"tree,omitempty"`
	}{plain: plain(b)}
	if b.View == EBOMHierarchical {
		tree := append([]EBOMPosition{}, b.Tree...)
		out.Tree = &tree
	} else {
		lines := append([]EBOMLine{}, b.Lines...)
		out.Lines = &lines
	}
	return json.Marshal(out)
}

// EBOM derives the EBOM from every root of the project's hierarchy:
// view flat merges one line per BOM item revision, view hierarchical is
// the tree with per-position quantities. A category keeps only the BOM
// items whose specs (or properties) give that category, ignoring case.
func EBOM(ctx context.Context, s Store, projectID, view, category string) (EngineeringBOM, error) {
	category = strings.TrimSpace(category)
	switch view {
	case EBOMFlat, EBOMHierarchical:
	case "":
		view = EBOMFlat
	default:
		return EngineeringBOM{}, Refusef("view %q is not one of %s", view, strings.Join(EBOMViews, ", "))
	}
	if _, err := s.GetProject(ctx, projectID); err != nil {
		return EngineeringBOM{}, err
	}
	roots, err := HierarchyRoots(ctx, s, projectID)
	if err != nil {
		return EngineeringBOM{}, err
	}
	out := EngineeringBOM{ProjectID: projectID, View: view, Category: category}
	lines := map[string]*EBOMLine{}
	for _, r := range roots {
		t, err := readTree(ctx, s, r)
		if err != nil {
			return EngineeringBOM{}, err
		}
		if pos, keep := ebomBranch(t, category, lines); keep {
			out.Tree = append(out.Tree, pos)
		}
	}
	refs := make([]string, 0, len(lines))
	for ref := range lines {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	known := 0.0
	for _, ref := range refs {
		l := lines[ref]
		l.ExtendedCostUSD = extended(l.UnitCostUSD, l.Quantity)
		if l.ExtendedCostUSD == nil {
			out.CostNoData = append(out.CostNoData, ref)
		} else {
			known += *l.ExtendedCostUSD
		}
		out.Lines = append(out.Lines, *l)
	}
	known = units.RoundSig(known, 12)
	if len(out.CostNoData) > 0 {
		out.KnownPartialCostUSD = &known
	} else if len(refs) > 0 {
		out.TotalCostUSD = &known
	}
	if view == EBOMFlat {
		out.Tree = nil
	} else {
		out.Lines = nil
	}
	switch {
	case len(roots) == 0:
		out.Note = "no product hierarchy is recorded: twin.record_hierarchy_node records positions, and instance_of links them to BOM items"
	case len(refs) == 0 && category != "":
		out.Note = "no BOM item in the hierarchy has category " + category
	case len(refs) == 0:
		out.Note = "no position of the hierarchy is an instance_of a BOM item (twin.realize_hierarchy_node links one)"
	}
	return out, nil
}

// ebomBranch is a position's branch of the hierarchical EBOM, adding its
// BOM items to lines; keep is false when nothing in it matches category.
func ebomBranch(t *treeNode, category string, lines map[string]*EBOMLine) (EBOMPosition, bool) {
	level, _ := t.node.Properties["level"].(string)
	pos := EBOMPosition{Name: t.node.Name, Ref: t.node.Ref(), Level: level, Quantity: t.quantity, TotalQuantity: t.total}
	keep := false
	if t.instanceOf != nil && (category == "" || strings.EqualFold(categoryOf(*t.instanceOf), category)) {
		line := ebomLine(*t.instanceOf, t.total)
		line.ExtendedCostUSD = extended(line.UnitCostUSD, line.Quantity)
		pos.BOMItem, keep = &line, true
		merged, ok := lines[line.ItemRef]
		if !ok {
			merged = &EBOMLine{ItemRef: line.ItemRef, Name: line.Name, MPN: line.MPN, Manufacturer: line.Manufacturer,
				Category: line.Category, UnitCostUSD: line.UnitCostUSD, CostNoData: line.CostNoData}
			lines[line.ItemRef] = merged
		}
		merged.Quantity += t.total
		merged.Positions = append(merged.Positions, t.node.Ref())
	}
	for _, c := range t.children {
		if cp, ok := ebomBranch(c, category, lines); ok {
			pos.Children = append(pos.Children, cp)
			keep = true
		}
	}
	return pos, keep || category == ""
}

// ebomLine is a BOM item revision as a line of quantity.
func ebomLine(bom Node, quantity int) EBOMLine {
	str := func(k string) string { v, _ := bom.Properties[k].(string); return v }
	l := EBOMLine{ItemRef: bom.Ref(), Name: bom.Name, MPN: str("mpn"), Manufacturer: str("manufacturer"), Category: categoryOf(bom),
		Quantity: quantity}
	if v, ok, reason := UnitCost(bom); ok {
		l.UnitCostUSD = &v
	} else {
		l.CostNoData = reason
	}
	return l
}

// categoryOf is a BOM item's category: its specs' category, else its
// properties'.
func categoryOf(bom Node) string {
	specs, _ := bom.Properties["specs"].(map[string]any)
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if c, isText := specs[k].(string); isText && MetricKey(k) == "category" {
			return strings.TrimSpace(c)
		}
	}
	c, _ := bom.Properties["category"].(string)
	return strings.TrimSpace(c)
}

// extended is quantity times a unit cost, nil when the cost is unknown.
func extended(unit *float64, quantity int) *float64 {
	if unit == nil {
		return nil
	}
	v := units.RoundSig(*unit*float64(quantity), 12)
	return &v
}
