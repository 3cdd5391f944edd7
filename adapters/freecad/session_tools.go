package freecad

// SessionEngine runs the editing sessions.
type SessionEngine interface{}

// sessionTools are the session tools: see the CadSession workflow.
func (a *Adapter) sessionTools() []tool { return nil }
