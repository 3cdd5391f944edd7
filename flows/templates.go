package flows

import (
	"fmt"
	"strings"
)

// templateBuilders build each template afresh, sorted by ID: a caller gets
// its own slices and may change them without touching anyone else's copy.
var templateBuilders = []struct {
	id    string
	build func() Flow
}{
	{"design_v1", designV1},
	{"hardware_v1", hardwareV1},
	{"mech_v1", mechV1},
}

// Templates returns every flow template, sorted by ID, as fresh copies.
func Templates() []Flow {
	out := make([]Flow, len(templateBuilders))
	for i, t := range templateBuilders {
		out[i] = t.build()
	}
	return out
}

// Template returns a fresh copy of the template id; an unknown id is an
// error naming the templates there are.
func Template(id string) (Flow, error) {
	for _, t := range templateBuilders {
		if t.id == id {
			return t.build(), nil
		}
	}
	return Flow{}, fmt.Errorf("no flow template %q; the templates are %s", id, strings.Join(TemplateIDs(), ", "))
}

// TemplateIDs lists the template IDs, sorted.
func TemplateIDs() []string {
	out := make([]string, len(templateBuilders))
	for i, t := range templateBuilders {
		out[i] = t.id
	}
	return out
}
