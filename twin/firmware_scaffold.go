package twin

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A firmware scaffold is the starting point of an assembly's motor
// firmware, derived, never authored: a CAN node id per moving joint in
// bring-up order (a placeholder scheme, 1 upwards, the same every time for
// the same joints), the recorded pin mapping as a CSV, and a C header
// carrying both. Nothing in it is invented: a figure the twin does not
// hold is written as absent.

// PinMapping is a connector's pins and the nets they are on, as
// kicad.get_pin_mapping reports it and a document records it.
type PinMapping struct {
	Reference string     `json:"reference"`
	Pins      []PinOnNet `json:"pins"`
}

// PinOnNet is one pin and its net.
type PinOnNet struct {
	Pin     string `json:"pin"`
	PinName string `json:"pin_name,omitempty"`
	Net     string `json:"net"`
}

// CANNode is a moving joint's place on the CAN bus.
type CANNode struct {
	Joint Joint
	CANID int
}

// Scaffold is a recorded firmware scaffold: the pin map and the header,
// each the next revision of its document item.
type Scaffold struct {
	Assembly, PinMappingNode Node
	Nodes                    []CANNode
	// Fixed are the fixed joints: no actuator, so no node on the bus.
	Fixed                  []string
	CSV, Header            string
	PinMap, HeaderDocument Node
}

// ScaffoldWrite asks for a firmware scaffold.
type ScaffoldWrite struct {
	ProjectID, AssemblyRef, PinMappingRef string
	Author, IdempotencyKey                string
}

// ReadPinMapping reads the pin mapping a document records: its text is
// kicad.get_pin_mapping's result.
func ReadPinMapping(n Node) (PinMapping, error) {
	text, _ := n.Properties["text"].(string)
	var pm PinMapping
	if err := json.Unmarshal([]byte(text), &pm); err != nil || strings.TrimSpace(pm.Reference) == "" || len(pm.Pins) == 0 {
		return PinMapping{}, Refusef("%s (%s %q) does not record a pin mapping: record kicad.get_pin_mapping's result "+
			"(reference and pins [{pin, pin_name, net}]) as a document's text with twin.record_document, and pass that document", n.RefOrID(), n.Type, n.Name)
	}
	for i, p := range pm.Pins {
		if strings.TrimSpace(p.Pin) == "" || strings.TrimSpace(p.Net) == "" {
			return PinMapping{}, Refusef("%s: pins[%d] needs both pin and net", n.RefOrID(), i)
		}
	}
	return pm, nil
}

// CreateFirmwareScaffold derives an assembly's firmware scaffold from its
// joints in bring-up order and a recorded pin mapping, and records the pin
// map and the header together (both or neither), DEPENDS_ON the assembly
// and the pin mapping revisions. A cyclic joint graph is refused as the
// bring-up checklist refuses it.
func CreateFirmwareScaffold(ctx context.Context, s Store, w ScaffoldWrite) (Scaffold, error) {
	a, err := AssemblyJoints(ctx, s, w.ProjectID, w.AssemblyRef)
	if err != nil {
		return Scaffold{}, err
	}
	steps, err := BuildOrder(a.Joints)
	if err != nil {
		return Scaffold{}, err
	}
	pmNode, err := ResolveRef(ctx, s, w.ProjectID, w.PinMappingRef)
	if err != nil {
		return Scaffold{}, fmt.Errorf("pin_mapping_ref %s: %w", w.PinMappingRef, err)
	}
	pm, err := ReadPinMapping(pmNode)
	if err != nil {
		return Scaffold{}, err
	}
	out := Scaffold{Assembly: a.Node, PinMappingNode: pmNode}
	for _, st := range steps {
		if st.Joint.Type == "fixed" {
			out.Fixed = append(out.Fixed, st.Joint.Name)
			continue
		}
		out.Nodes = append(out.Nodes, CANNode{Joint: st.Joint, CANID: len(out.Nodes) + 1})
	}
	if out.CSV, err = pinMapCSV(pm); err != nil {
		return Scaffold{}, err
	}
	sources := a.Node.RefOrID() + " and " + pmNode.RefOrID()
	out.Header = firmwareHeader(a.Node.Name, sources, pm, out.Nodes)

	links := []Link{{Type: EdgeDependsOn, To: a.Node.ID, Properties: map[string]any{"ref": a.Node.Ref(), "as": "assembly"}},
		{Type: EdgeDependsOn, To: pmNode.ID, Properties: map[string]any{"ref": pmNode.Ref(), "as": "pin_mapping"}}}
	doc := func(kind, title, text, key string) RevisionWrite {
		// The shape twin.RecordDocument records a document in.
		return RevisionWrite{ProjectID: w.ProjectID, ItemType: "document", Name: title, Author: w.Author,
			ChangeReason: "derived from " + sources,
			Properties:   map[string]any{"document_type": kind, "title": title, "text": text},
			Links:        links, IdempotencyKey: key}
	}
	var pinKey, headerKey string
	if w.IdempotencyKey != "" {
		pinKey, headerKey = w.IdempotencyKey+"/pinmap", w.IdempotencyKey+"/header"
	}
	nodes, err := s.CommitRevisions(ctx, []RevisionWrite{
		doc("pinmap", a.Node.Name+" pin map", out.CSV, pinKey),
		doc("firmware_source", a.Node.Name+" firmware header", out.Header, headerKey),
	})
	if err != nil {
		return Scaffold{}, err
	}
	out.PinMap, out.HeaderDocument = nodes[0], nodes[1]
	return out, nil
}

// pinMapCSV is the pin mapping as a CSV table, in the order recorded.
func pinMapCSV(pm PinMapping) (string, error) {
	var buf bytes.Buffer
	wr := csv.NewWriter(&buf)
	rows := [][]string{{"reference", "pin", "pin_name", "net"}}
	for _, p := range pm.Pins {
		rows = append(rows, []string{pm.Reference, p.Pin, p.PinName, p.Net})
	}
	if err := wr.WriteAll(rows); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// firmwareHeader is an include-guarded C header: a define per pin (by its
// net) and one joint_config_t per moving joint, with no date in it, so the
// same twin gives the same bytes.
func firmwareHeader(assembly, sources string, pm PinMapping, nodes []CANNode) string {
	guard := "METAFORGE_" + cIdentifier(assembly) + "_FIRMWARE_H"
	var b strings.Builder
	fmt.Fprintf(&b, "/* %s firmware scaffold, derived by MetaForge from %s.\n", assembly, sources)
	b.WriteString(" * Regenerate with twin.create_firmware_scaffold rather than editing. CAN ids are placeholders in bring-up order. */\n")
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n", guard, guard)
	fmt.Fprintf(&b, "/* Connector %s: pin by net */\n", pm.Reference)
	used := map[string]int{}
	for _, p := range pm.Pins {
		name := "PIN_" + cIdentifier(p.Net)
		used[name]++
		if used[name] > 1 {
			name += "_" + strconv.Itoa(used[name])
		}
		value := strconv.Quote(p.Pin)
		if _, err := strconv.Atoi(p.Pin); err == nil {
			value = p.Pin
		}
		fmt.Fprintf(&b, "#define %s %s\n", name, value)
	}
	b.WriteString("\ntypedef struct {\n    const char *name;\n    uint8_t can_id;\n    uint8_t has_limits;\n" +
		"    float lower_limit;\n    float upper_limit;\n} joint_config_t;\n\n")
	fmt.Fprintf(&b, "#define JOINT_COUNT %d\n\n", len(nodes))
	if len(nodes) > 0 {
		b.WriteString("static const joint_config_t JOINTS[JOINT_COUNT] = {\n")
		for _, n := range nodes {
			hasLimits, lower, upper := 0, 0.0, 0.0
			if n.Joint.LowerLimit != nil && n.Joint.UpperLimit != nil {
				hasLimits, lower, upper = 1, *n.Joint.LowerLimit, *n.Joint.UpperLimit
			}
			fmt.Fprintf(&b, "    {%s, %d, %d, %sf, %sf},\n", strconv.Quote(n.Joint.Name), n.CANID, hasLimits, cFloat(lower), cFloat(upper))
		}
		b.WriteString("};\n\n")
	}
	fmt.Fprintf(&b, "#endif /* %s */\n", guard)
	return b.String()
}

// cIdentifier upper-cases a name into the tail of a C identifier (after a
// prefix: it may start with a digit): anything but a letter or digit
// becomes an underscore.
func cIdentifier(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(strings.TrimSpace(s)) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	id := strings.Trim(b.String(), "_")
	if id == "" {
		return "UNNAMED"
	}
	return id
}

// cFloat writes a float literal C reads back exactly as given.
func cFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 32)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
