package flows

// recordingTools say which tool records each twin node type, so a gate that
// lacks a deliverable can say how to record it.
var recordingTools = map[string]string{
	"constraint_set":      "twin.record_constraint_set",
	"decision":            "twin.record_decision",
	"cad_model":           "twin.commit_geometry",
	"evidence":            "twin.record_evidence",
	"component_selection": "twin.record_component_selection",
	"concept_option":      "twin.record_engineering_entity",
	"risk":                "twin.record_engineering_entity",
	"waiver":              "twin.record_engineering_entity",
	"release_package":     "twin.create_release_package",
	"verification_case":   "twin.record_engineering_entity",
}

// RecordingTool is the tool that records a node of nodeType in the twin;
// an unknown type is recorded as an engineering entity.
func RecordingTool(nodeType string) string {
	if t, ok := recordingTools[nodeType]; ok {
		return t
	}
	return "twin.record_engineering_entity"
}
