package twin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A system architecture is the project's subsystems and the interfaces
// between them, each interface carrying typed quantities (a unit, and the
// value a prediction gave it): what a built unit's measurements are taken
// against. A project has one, as it has one prd; committing again is its
// next revision. A URDF import records through the same recorder.

// SystemArchitectureItemType is the item type of a project's architecture.
const SystemArchitectureItemType = "system_architecture"

// InterfaceKinds are the kinds of interface between two subsystems.
var InterfaceKinds = []string{"mechanical", "electrical", "data", "thermal", "fluid"}

// ArchitectureSubsystem is one subsystem. HierarchyNode, when given, is
// the product-hierarchy position it is (any node ref); a commit stores it
// as the resolved node's KEY@n, or its id for a record.
type ArchitectureSubsystem struct {
	Name          string `json:"name" jsonschema:"the subsystem's name, unique in the architecture (arm, base, controller)"`
	Description   string `json:"description,omitempty"`
	HierarchyNode string `json:"hierarchy_node,omitempty" jsonschema:"the product-hierarchy position this subsystem is: KEY, KEY@n or a node id"`
	// Inertial is the rigid body's mass properties, when known (a URDF
	// link's <inertial>).
	Inertial *LinkInertial `json:"inertial,omitempty" jsonschema:"the subsystem's mass properties as a rigid body, when known (a URDF link's inertial)"`
}

// InterfaceQuantity is a typed quantity an interface carries. A prediction
// is Predicted (a number in Unit), or PredictedBy (the evidence that
// predicted it, whose value and band are read from it), or both when they
// agree; none is never made up.
type InterfaceQuantity struct {
	Name        string   `json:"name" jsonschema:"what is carried or measured (tip_deflection, supply_current)"`
	Unit        string   `json:"unit" jsonschema:"its unit (mm, N, A, W, degC...)"`
	Predicted   *float64 `json:"predicted,omitempty" jsonschema:"the predicted value, in unit"`
	PredictedBy string   `json:"predicted_by,omitempty" jsonschema:"node id of the evidence that predicted it (twin.evaluate_metric's, or any with a value and unit)"`
}

// ArchitectureInterface is a typed connection between two subsystems.
type ArchitectureInterface struct {
	Name       string              `json:"name" jsonschema:"the interface's name, unique in the architecture (shoulder mount, CAN bus)"`
	From       string              `json:"from" jsonschema:"the subsystem it leaves (a subsystem name)"`
	To         string              `json:"to" jsonschema:"the subsystem it reaches (a subsystem name)"`
	Kind       string              `json:"kind" jsonschema:"mechanical, electrical, data, thermal or fluid"`
	Quantities []InterfaceQuantity `json:"quantities,omitempty"`
	// Joint is the kinematic joint a mechanical interface is, when it is
	// one (a URDF joint).
	Joint *InterfaceJoint `json:"joint,omitempty" jsonschema:"the kinematic joint this mechanical interface is, when it is one (a URDF joint)"`
}

// ArchitectureWrite is a system architecture to commit.
type ArchitectureWrite struct {
	ProjectID string
	// Name is the item's name; "System architecture" when empty.
	Name, Description string
	Subsystems        []ArchitectureSubsystem
	Interfaces        []ArchitectureInterface
	// ImportedFrom and NotImported say where an imported architecture
	// came from and what of that file it does not hold.
	ImportedFrom *ArchitectureSource
	NotImported  []NotImported
	WriteInfo
}

// Check refuses an architecture with no subsystem, a blank or repeated
// name, an interface naming a subsystem the architecture lacks or joining
// one to itself, an unknown kind, a unit that does not parse, or a
// quantity named twice on one interface, saying what to fix; before
// anything is read.
func (w ArchitectureWrite) Check() error {
	if len(w.Subsystems) == 0 {
		return Refusef("subsystems is empty: list the subsystems (name, description) the interfaces connect")
	}
	names := map[string]string{}
	var all []string
	for i, sub := range w.Subsystems {
		name := strings.TrimSpace(sub.Name)
		if name == "" {
			return Refusef("subsystems[%d] has no name; name every subsystem", i)
		}
		if first, dup := names[strings.ToLower(name)]; dup {
			return Refusef("two subsystems are named %q (and %q); subsystem names are unique in an architecture", name, first)
		}
		names[strings.ToLower(name)] = name
		all = append(all, name)
		if err := sub.Inertial.check(); err != nil {
			return refusalAbout("subsystem "+strconv.Quote(name), err)
		}
	}
	seen := map[string]bool{}
	for i, in := range w.Interfaces {
		name := strings.TrimSpace(in.Name)
		if name == "" {
			return Refusef("interfaces[%d] has no name; name every interface", i)
		}
		if seen[strings.ToLower(name)] {
			return Refusef("two interfaces are named %q; interface names are unique in an architecture", name)
		}
		seen[strings.ToLower(name)] = true
		for _, end := range []struct{ field, sub string }{{"from", in.From}, {"to", in.To}} {
			if _, ok := names[strings.ToLower(strings.TrimSpace(end.sub))]; !ok {
				return Refusef("interface %q: %s %q is not a subsystem of this architecture (its subsystems are %s); name one of them, or add it to subsystems",
					name, end.field, end.sub, strings.Join(all, ", "))
			}
		}
		if strings.EqualFold(strings.TrimSpace(in.From), strings.TrimSpace(in.To)) {
			return Refusef("interface %q goes from %q to itself; an interface connects two subsystems", name, in.From)
		}
		if !slices.Contains(InterfaceKinds, in.Kind) {
			return Refusef("interface %q: kind %q is not one of %s", name, in.Kind, strings.Join(InterfaceKinds, ", "))
		}
		if in.Joint != nil && in.Kind != "mechanical" {
			return Refusef("interface %q is a joint but its kind is %s; a joint is a mechanical interface", name, in.Kind)
		}
		if err := in.Joint.check(); err != nil {
			return refusalAbout("interface "+strconv.Quote(name), err)
		}
		qs := map[string]bool{}
		for j, q := range in.Quantities {
			qn := strings.TrimSpace(q.Name)
			if qn == "" {
				return Refusef("interface %q: quantities[%d] has no name; name what it carries (tip_deflection)", name, j)
			}
			if qs[MetricKey(qn)] {
				return Refusef("interface %q: two quantities are named %q; keep one", name, qn)
			}
			qs[MetricKey(qn)] = true
			if strings.TrimSpace(q.Unit) == "" {
				return Refusef("interface %q, quantity %q has no unit; give the unit it is measured in (mm, N, V, W, degC)", name, qn)
			}
			if _, err := units.Dimension(q.Unit); err != nil {
				return Refusef("interface %q, quantity %q: unit %q does not parse (%v); write a unit such as mm, N, V, A, W, degC or Pa", name, qn, q.Unit, err)
			}
			if q.Predicted != nil && (math.IsNaN(*q.Predicted) || math.IsInf(*q.Predicted, 0)) {
				return Refusef("interface %q, quantity %q: predicted is not a finite number", name, qn)
			}
		}
	}
	return nil
}

// Architecture is a committed system architecture revision.
type Architecture struct {
	Node         Node
	Subsystems   []ArchitectureSubsystem
	Interfaces   []ArchitectureInterface
	ImportedFrom *ArchitectureSource
	NotImported  []NotImported
}

// Quantity finds an interface quantity by names (ignoring case; spaces and
// hyphens read as underscores), or refuses naming what the architecture
// has.
func (a Architecture) Quantity(iface, quantity string) (ArchitectureInterface, InterfaceQuantity, error) {
	var ifaces []string
	for _, in := range a.Interfaces {
		if MetricKey(in.Name) != MetricKey(iface) {
			ifaces = append(ifaces, in.Name)
			continue
		}
		var qs []string
		for _, q := range in.Quantities {
			if MetricKey(q.Name) == MetricKey(quantity) {
				return in, q, nil
			}
			qs = append(qs, q.Name)
		}
		if len(qs) == 0 {
			return in, InterfaceQuantity{}, Refusef("interface %q of %s carries no quantities; commit the architecture again with the quantity %q on it",
				in.Name, a.Node.Ref(), quantity)
		}
		return in, InterfaceQuantity{}, Refusef("interface %q of %s has no quantity %q (it has %s)", in.Name, a.Node.Ref(), quantity, strings.Join(qs, ", "))
	}
	if len(ifaces) == 0 {
		return ArchitectureInterface{}, InterfaceQuantity{}, Refusef("%s records no interfaces; commit the architecture again with interface %q", a.Node.Ref(), iface)
	}
	return ArchitectureInterface{}, InterfaceQuantity{}, Refusef("%s has no interface %q (it has %s)", a.Node.Ref(), iface, strings.Join(ifaces, ", "))
}

// CommitSystemArchitecture commits the project's system architecture as
// the next revision of its one architecture item: each subsystem's
// hierarchy node resolved and linked (RELATES_TO), each quantity's
// predicting evidence checked (it predicts that quantity, in a unit of the
// same dimension, agreeing with predicted when both are given) and linked
// (SUPPORTED_BY).
func CommitSystemArchitecture(ctx context.Context, s Store, w ArchitectureWrite) (Architecture, Item, error) {
	if err := w.Check(); err != nil {
		return Architecture{}, Item{}, err
	}
	p, err := s.GetProject(ctx, w.ProjectID)
	if err != nil {
		return Architecture{}, Item{}, err
	}
	info, err := architectureItem(ctx, s, p, w.WriteInfo)
	if err != nil {
		return Architecture{}, Item{}, err
	}
	a := Architecture{Subsystems: []ArchitectureSubsystem{}, Interfaces: []ArchitectureInterface{}}
	var links []Link
	canonical := map[string]string{}
	for _, sub := range w.Subsystems {
		sub.Name, sub.Description = strings.TrimSpace(sub.Name), strings.TrimSpace(sub.Description)
		canonical[strings.ToLower(sub.Name)] = sub.Name
		if ref := strings.TrimSpace(sub.HierarchyNode); ref != "" {
			n, err := ResolveRef(ctx, s, p.ID, ref)
			if err != nil {
				return Architecture{}, Item{}, fmt.Errorf("subsystem %q: hierarchy_node %s: %w", sub.Name, ref, err)
			}
			sub.HierarchyNode = n.RefOrID()
			links = append(links, Link{Type: EdgeRelatesTo, To: n.ID, Properties: map[string]any{"ref": n.RefOrID(), "subsystem": sub.Name}})
		}
		a.Subsystems = append(a.Subsystems, sub)
	}
	predicts := map[string][]any{} // evidence id -> "interface/quantity" it predicts
	var evidence []string
	for _, in := range w.Interfaces {
		in.Name, in.Kind = strings.TrimSpace(in.Name), strings.TrimSpace(in.Kind)
		in.From, in.To = canonical[strings.ToLower(strings.TrimSpace(in.From))], canonical[strings.ToLower(strings.TrimSpace(in.To))]
		qs := []InterfaceQuantity{}
		for _, q := range in.Quantities {
			q.Name, q.Unit, q.PredictedBy = strings.TrimSpace(q.Name), strings.TrimSpace(q.Unit), strings.TrimSpace(q.PredictedBy)
			if q.PredictedBy != "" {
				pr, err := PredictionOf(ctx, s, p.ID, q.PredictedBy, q.Name, q.Unit)
				if err != nil {
					return Architecture{}, Item{}, fmt.Errorf("interface %q, quantity %q: predicted_by: %w", in.Name, q.Name, err)
				}
				if q.Predicted != nil && !units.Equal(*q.Predicted, pr.Value) {
					return Architecture{}, Item{}, Refusef("interface %q, quantity %q: predicted %s %s disagrees with evidence %s, which predicts %s %s; "+
						"leave predicted out (the evidence carries the value) or name the evidence that predicted %s",
						in.Name, q.Name, units.Format(*q.Predicted), q.Unit, pr.EvidenceID, units.Format(pr.Value), q.Unit, units.Format(*q.Predicted))
				}
				q.PredictedBy = pr.EvidenceID
				if _, ok := predicts[pr.EvidenceID]; !ok {
					evidence = append(evidence, pr.EvidenceID)
				}
				predicts[pr.EvidenceID] = append(predicts[pr.EvidenceID], in.Name+"/"+q.Name)
			}
			qs = append(qs, q)
		}
		in.Quantities = qs
		a.Interfaces = append(a.Interfaces, in)
	}
	for _, id := range evidence {
		links = append(links, Link{Type: EdgeSupportedBy, To: id, Properties: map[string]any{"predicts": predicts[id]}})
	}
	props := map[string]any{"subsystem_count": len(a.Subsystems), "interface_count": len(a.Interfaces)}
	if props["subsystems"], err = jsonShaped(a.Subsystems); err != nil {
		return Architecture{}, Item{}, err
	}
	if props["interfaces"], err = jsonShaped(a.Interfaces); err != nil {
		return Architecture{}, Item{}, err
	}
	if d := strings.TrimSpace(w.Description); d != "" {
		props["description"] = d
	}
	if w.ImportedFrom != nil {
		a.ImportedFrom, a.NotImported = w.ImportedFrom, append([]NotImported{}, w.NotImported...)
		if props["imported_from"], err = jsonShaped(a.ImportedFrom); err != nil {
			return Architecture{}, Item{}, err
		}
		if props["not_imported"], err = jsonShaped(a.NotImported); err != nil {
			return Architecture{}, Item{}, err
		}
	}
	name := strings.TrimSpace(w.Name)
	if name == "" {
		name = "System architecture"
	}
	n, it, err := s.CommitRevision(ctx, info.Revision(p.ID, SystemArchitectureItemType, name, props, links))
	if err != nil {
		return Architecture{}, Item{}, err
	}
	a.Node = n
	return a, it, nil
}

// architectureItem makes a commit revise the project's one architecture:
// the one that exists (an item_key or supersedes naming another item is
// refused), else a new ARCH-<project> item (or the bare key given).
func architectureItem(ctx context.Context, s Store, p Project, info WriteInfo) (WriteInfo, error) {
	heads, err := HeadRevisions(ctx, s, p.ID, SystemArchitectureItemType)
	if err != nil {
		return info, err
	}
	out := info
	out.Supersedes = ""
	if len(heads) == 0 {
		if info.Supersedes != "" {
			return info, Refusef("supersedes %s: this project has no system architecture yet; leave supersedes out", info.Supersedes)
		}
		key, rev, err := ParseItemRef(info.ItemKey)
		switch {
		case info.ItemKey == "":
			out.ItemKey = NewItemKey(SystemArchitectureItemType, p.Name)
		case err != nil:
			return info, err
		case rev > 0:
			return info, Refusef("item_key %s: this project has no system architecture yet; pass a bare key, or leave item_key out", info.ItemKey)
		default:
			out.ItemKey = key
		}
		return out, nil
	}
	head := heads[0]
	if info.Supersedes != "" {
		n, err := s.GetNode(ctx, info.Supersedes)
		if err != nil || n.ProjectID != p.ID || n.ItemKey != head.ItemKey {
			return info, Refusef("supersedes %s is not a revision of this project's system architecture %s; leave it out: "+
				"a commit always revises the project's one architecture", info.Supersedes, head.Ref())
		}
	}
	if info.ItemKey == "" {
		out.ItemKey = head.ItemKey
		return out, nil
	}
	key, _, err := ParseItemRef(info.ItemKey)
	if err != nil {
		return info, err
	}
	if key != head.ItemKey {
		return info, Refusef("item_key %s: this project's system architecture is %s (head %s); a project has one, so pass %s or leave item_key out",
			info.ItemKey, head.ItemKey, head.Ref(), head.ItemKey)
	}
	return out, nil
}

// ReadArchitecture reads a system architecture revision.
func ReadArchitecture(n Node) (Architecture, error) {
	if n.Type != SystemArchitectureItemType {
		return Architecture{}, Refusef("%s is a %s, not a system architecture", n.Label(), n.Type)
	}
	a := Architecture{Node: n}
	if err := decodeProperty(n.Properties["subsystems"], &a.Subsystems); err != nil {
		return Architecture{}, fmt.Errorf("%s: its subsystems cannot be read: %w", n.Ref(), err)
	}
	if err := decodeProperty(n.Properties["interfaces"], &a.Interfaces); err != nil {
		return Architecture{}, fmt.Errorf("%s: its interfaces cannot be read: %w", n.Ref(), err)
	}
	for i := range a.Interfaces {
		if a.Interfaces[i].Quantities == nil { // stored without, as omitempty writes it
			a.Interfaces[i].Quantities = []InterfaceQuantity{}
		}
	}
	if err := decodeProperty(n.Properties["imported_from"], &a.ImportedFrom); err != nil {
		return Architecture{}, fmt.Errorf("%s: where it was imported from cannot be read: %w", n.Ref(), err)
	}
	if err := decodeProperty(n.Properties["not_imported"], &a.NotImported); err != nil {
		return Architecture{}, fmt.Errorf("%s: what was not imported cannot be read: %w", n.Ref(), err)
	}
	return a, nil
}

// SystemArchitecture reads the project's architecture: the revision ref
// names (KEY@n, KEY or a node id), or the head of its one architecture
// when ref is empty. None recorded is a refusal saying how to record one.
func SystemArchitecture(ctx context.Context, s Store, projectID, ref string) (Architecture, error) {
	if ref = strings.TrimSpace(ref); ref != "" {
		n, err := ResolveRef(ctx, s, projectID, ref)
		if err != nil {
			return Architecture{}, err
		}
		return ReadArchitecture(n)
	}
	heads, err := HeadRevisions(ctx, s, projectID, SystemArchitectureItemType)
	if err != nil {
		return Architecture{}, err
	}
	if len(heads) == 0 {
		return Architecture{}, Refusef("this project has no system architecture; record its subsystems and interfaces (with their quantities) " +
			"with twin.commit_system_architecture first")
	}
	return ReadArchitecture(heads[0])
}

// jsonShaped is v as JSON decodes it (maps, lists, float64): what both
// stores hand back, so a property reads the same from either.
func jsonShaped(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
}

// decodeProperty decodes a stored property (a JSON text, or JSON-shaped
// values) into out; nil leaves out as it is.
func decodeProperty(raw any, out any) error {
	var text []byte
	switch v := raw.(type) {
	case nil:
		return nil
	case string:
		text = []byte(v)
	default:
		var err error
		if text, err = json.Marshal(v); err != nil {
			return err
		}
	}
	return json.Unmarshal(text, out)
}
