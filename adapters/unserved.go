package adapters

// UnservedTool is a tool the spec defines that this build does not serve,
// and why: health lists them, so an agent looking for one learns it is
// missing on purpose and what it would take, instead of finding nothing.
type UnservedTool struct {
	ToolID string `json:"tool_id"`
	Reason string `json:"reason"`
}
