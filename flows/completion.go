package flows

import "fmt"

// Completion verdicts.
const (
	CompletedVerified   = "COMPLETED_VERIFIED"
	CompletedUnverified = "COMPLETED_UNVERIFIED"
)

// Completion is a project's completion verdict: COMPLETED_VERIFIED only when
// it has requirements and every one passes with current evidence. No data
// is not a pass: each requirement that does not pass is named in blocking.
func Completion(f Facts) (verdict string, blocking []string) {
	if len(f.Requirements) == 0 {
		return CompletedUnverified, []string{"no requirements are recorded, so nothing was verified: record them with twin.record_constraint_set"}
	}
	for _, r := range f.Requirements {
		if r.Status != StatusPass {
			blocking = append(blocking, fmt.Sprintf("%s (%s): %s", r.Name, r.ConstraintSet, r.Status))
		}
	}
	if len(blocking) > 0 {
		return CompletedUnverified, blocking
	}
	return CompletedVerified, nil
}
