package protocol

import "testing"

// Every code has a name that maps back to it, and a constant message.
func TestTaxonomyIsOneTable(t *testing.T) {
	for c, name := range codeNames {
		if got, ok := CodeByName(name); !ok || got != c {
			t.Errorf("CodeByName(%q) = %d %v, want %d", name, got, ok, c)
		}
		if codeMessages[c] == "" {
			t.Errorf("%s has no message", name)
		}
	}
	if ToolTimeout != -32006 || ResourceNotFound != -32002 || AuthDenied != -32007 || ToolExecutionError.Message() != "Tool execution failed" {
		t.Error("the error taxonomy's codes changed; clients branch on them")
	}
}
