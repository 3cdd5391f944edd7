package flows

import (
	"fmt"
	"regexp"
)

// identifier is the shape of phase names and deliverable types: they are
// keys in run state and twin queries, so they stay plain.
var identifier = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// gateName names the gate closing the n-th phase (1-based): "G2-concept",
// with no space, so it sits in a URL path and a command line as it is.
func gateName(n int, phase string) string { return fmt.Sprintf("G%d-%s", n, phase) }

// phaseNames lists a flow's phase names in order, for messages.
func phaseNames(f Flow) []string {
	out := make([]string, len(f.Phases))
	for i, p := range f.Phases {
		out[i] = p.Name
	}
	return out
}
