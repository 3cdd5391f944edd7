package kicad

// The rules of KiCad 6's electrical-rule check, as eeschema 6.0 ships
// them: pin electrical types, the pin-conflict matrix, and each check's
// settings key and default severity. Written from KiCad 6.0's
// eeschema/erc_settings.cpp (ERC_SETTINGS::m_defaultPinMap and the
// constructor's m_Severities defaults), eeschema/erc_item.cpp (the keys)
// and eeschema/erc.cpp (the pin type sets); the demos' own .kicad_pro
// files, written by KiCad 6, hold the same matrix and severities.

// Pin electrical types, in KiCad's ELECTRICAL_PINTYPE order, which is
// the order of the matrix's rows and columns and of a .kicad_pro pin_map.
const (
	ptInput = iota
	ptOutput
	ptBidi
	ptTriState
	ptPassive
	ptFree // "free" in the file: not internally connected (PT_NIC)
	ptUnspecified
	ptPowerIn
	ptPowerOut
	ptOpenCollector
	ptOpenEmitter
	ptNoConnect
	pinTypeCount
)

// pinTypeTokens are the pin types as a .kicad_sch writes them.
var pinTypeTokens = [pinTypeCount]string{
	"input", "output", "bidirectional", "tri_state", "passive", "free",
	"unspecified", "power_in", "power_out", "open_collector", "open_emitter", "no_connect",
}

// pinTypeNames are KiCad's display names for them (its reports say
// "Pins of type Output and Output are connected").
var pinTypeNames = [pinTypeCount]string{
	"Input", "Output", "Bidirectional", "Tri-state", "Passive", "Free",
	"Unspecified", "Power input", "Power output", "Open collector", "Open emitter", "Unconnected",
}

// pinTypeOf reads a file token; an unknown one is unspecified, as
// KiCad's parser would not load it at all.
func pinTypeOf(token string) int {
	for i, t := range pinTypeTokens {
		if t == token {
			return i
		}
	}
	return ptUnspecified
}

// A cell of the pin-conflict matrix (KiCad's PIN_ERROR; a .kicad_pro
// pin_map stores these numbers).
const (
	pinOK = iota
	pinWarning
	pinError
)

// defaultPinMap is KiCad 6's default pin-conflict matrix: the level of
// connecting a pin of the row's type to one of the column's.
var defaultPinMap = [pinTypeCount][pinTypeCount]int{
	//            I  O  Bi 3S Pas Free UnS PwrI PwrO OC OE NC
	ptInput:         {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2},
	ptOutput:        {0, 2, 0, 1, 0, 0, 1, 0, 2, 2, 2, 2},
	ptBidi:          {0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 2},
	ptTriState:      {0, 1, 0, 0, 0, 0, 1, 1, 2, 1, 1, 2},
	ptPassive:       {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2},
	ptFree:          {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2},
	ptUnspecified:   {1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 2},
	ptPowerIn:       {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 2},
	ptPowerOut:      {0, 2, 1, 2, 0, 0, 1, 0, 2, 2, 2, 2},
	ptOpenCollector: {0, 2, 0, 1, 0, 0, 1, 0, 2, 0, 0, 2},
	ptOpenEmitter:   {0, 2, 1, 1, 0, 0, 1, 0, 2, 0, 0, 2},
	ptNoConnect:     {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
}

// drivingTypes drive an ordinary input; drivingPowerTypes drive a net
// that has a power input; drivenTypes need a driver (erc.cpp's
// DrivingPinTypes, DrivingPowerPinTypes, DrivenPinTypes).
var (
	drivingTypes      = map[int]bool{ptOutput: true, ptPowerOut: true, ptPassive: true, ptTriState: true, ptBidi: true}
	drivingPowerTypes = map[int]bool{ptPowerOut: true}
	drivenTypes       = map[int]bool{ptInput: true, ptPowerIn: true}
)

// Severities, as KiCad writes them in a .kicad_pro and its reports.
const (
	sevError   = "error"
	sevWarning = "warning"
	sevIgnore  = "ignore"
)

// ERC rule keys: KiCad's settings keys, the "type" of a kicad-cli report.
const (
	rulePinToPin          = "pin_to_pin"
	rulePinNotConnected   = "pin_not_connected"
	rulePinNotDriven      = "pin_not_driven"
	rulePowerPinNotDriven = "power_pin_not_driven"
	ruleNoConnectConn     = "no_connect_connected"
	ruleNoConnectDangling = "no_connect_dangling"
	ruleLabelDangling     = "label_dangling"
	ruleGlobalLabel       = "global_label_dangling"
	ruleSimilarLabels     = "similar_labels"
	ruleMultipleNetNames  = "multiple_net_names"
	ruleWireDangling      = "wire_dangling"
	ruleHierLabelMismatch = "hier_label_mismatch"
	ruleDuplicateSheet    = "duplicate_sheet_names"
	ruleDuplicateRef      = "duplicate_reference"
	ruleUnannotated       = "unannotated"
	ruleExtraUnits        = "extra_units"
	ruleUnitValue         = "unit_value_mismatch"
	ruleUnitFootprint     = "different_unit_footprint"
	ruleUnitNet           = "different_unit_net"
)

// ercRule is one check: its key, KiCad 6's default severity and title.
type ercRule struct {
	key, severity, title string
}

// ercRules are the checks this checker runs, in KiCad's order. pin_to_pin
// has no severity of its own: each conflict takes its matrix cell's
// (error or warning), and the key's setting can only ignore them all.
var ercRules = []ercRule{
	{rulePinNotConnected, sevError, "Pin not connected"},
	{rulePinNotDriven, sevError, "Input pin not driven by any Output pins"},
	{rulePowerPinNotDriven, sevError, "Input Power pin not driven by any Output Power pins"},
	{rulePinToPin, "", "Conflict problem between pins"},
	{ruleNoConnectConn, sevWarning, "A pin with a \u201cno connection\u201d flag is connected"},
	{ruleNoConnectDangling, sevWarning, "Unconnected \"no connection\" flag"},
	{ruleLabelDangling, sevError, "Label not connected to anything"},
	{ruleGlobalLabel, sevWarning, "Global label not connected anywhere else in the schematic"},
	{ruleSimilarLabels, sevWarning, "Labels are similar (lower/upper case difference only)"},
	{ruleMultipleNetNames, sevWarning, "More than one name given to this bus or net"},
	{ruleWireDangling, sevError, "Wires not connected to anything"},
	{ruleHierLabelMismatch, sevError, "Mismatch between hierarchical labels and sheet pins"},
	{ruleDuplicateSheet, sevError, "Duplicate sheet names within a given sheet"},
	{ruleDuplicateRef, sevError, "Duplicate reference designators"},
	{ruleUnannotated, sevError, "Symbol is not annotated"},
	{ruleExtraUnits, sevError, "Symbol has more units than are defined"},
	{ruleUnitValue, sevError, "Units of same symbol have different values"},
	{ruleUnitFootprint, sevError, "Different footprint assigned in another unit of the symbol"},
	{ruleUnitNet, sevError, "Different net assigned to a shared pin in another unit of the symbol"},
}

// ercRulesNotRun are KiCad 6 checks this checker does not make, and why;
// the result lists them so a clean result is not read as more than it is.
var ercRulesNotRun = []string{
	"bus_definition_conflict, bus_entry_needed, bus_label_syntax, bus_to_bus_conflict, bus_to_net_conflict, net_not_bus_member: buses are not followed",
	"lib_symbol_issues: needs the symbol library tables of the machine that runs KiCad",
	"unresolved_variable: text variables are not expanded",
}

// ruleTitle is the rule's title, or the key when it has none.
func ruleTitle(key string) string {
	for _, r := range ercRules {
		if r.key == key {
			return r.title
		}
	}
	return key
}
