package twin

import (
	"fmt"
	"slices"
	"strings"
)

// A compliance checklist: the clauses of the standards a product must
// meet, each with its status and the evidence behind it. A clause claimed
// compliant, partly compliant or not applicable must say what shows it:
// a claim without evidence is refused, not recorded.

// ComplianceStatuses are a checklist item's statuses.
var ComplianceStatuses = []string{"compliant", "partial", "non_compliant", "open", "not_applicable"}

// needsEvidence are the statuses a checklist item must back with evidence
// (for not_applicable: why it does not apply).
var needsEvidence = []string{"compliant", "partial", "not_applicable"}

// ComplianceItem is one clause of a standard and where the design stands
// on it.
type ComplianceItem struct {
	Standard    string `json:"standard" jsonschema:"the standard (IEC 62368-1, ISO 13849-1, FCC Part 15)"`
	Clause      string `json:"clause" jsonschema:"the clause within it (4.1.2, Annex B)"`
	Requirement string `json:"requirement,omitempty" jsonschema:"what the clause asks, in short"`
	Status      string `json:"status" jsonschema:"compliant, partial, non_compliant, open (not yet assessed) or not_applicable"`
	Evidence    string `json:"evidence,omitempty" jsonschema:"what shows it (a test report, an evidence node id, an item ref); required for compliant, partial and not_applicable (why it does not apply)"`
}

// ComplianceChecklist is the content of a compliance checklist.
type ComplianceChecklist struct {
	Coverage string           `json:"scope,omitempty" jsonschema:"what the checklist covers: the product, the market (EU CE marking)"`
	Items    []ComplianceItem `json:"items" jsonschema:"one entry per clause assessed"`
}

// DocumentType implements TypedDocument.
func (ComplianceChecklist) DocumentType() string { return "compliance_checklist" }

// Check implements TypedDocument: at least one item; each with standard,
// clause and a known status; evidence where the status claims something;
// no clause twice.
func (c ComplianceChecklist) Check() error {
	if len(c.Items) == 0 {
		return Refusef("items is empty: list each clause assessed (standard, clause, status, evidence)")
	}
	seen := map[string]int{}
	for i, it := range c.Items {
		switch {
		case blank(it.Standard):
			return Refusef("items[%d].standard is blank: name the standard (IEC 62368-1)", i)
		case blank(it.Clause):
			return Refusef("items[%d].clause is blank: name the clause of %s", i, it.Standard)
		case !slices.Contains(ComplianceStatuses, it.Status):
			return Refusef("items[%d] (%s %s): status %q; use one of %s", i, it.Standard, it.Clause, it.Status, strings.Join(ComplianceStatuses, ", "))
		case it.Status == "not_applicable" && blank(it.Evidence):
			return Refusef("items[%d] (%s %s) is not_applicable but says nothing in evidence: say why the clause does not apply", i, it.Standard, it.Clause)
		case slices.Contains(needsEvidence, it.Status) && blank(it.Evidence):
			return Refusef("items[%d] (%s %s) is %s but gives no evidence: say what shows it (a test report, an evidence node id)", i, it.Standard, it.Clause, it.Status)
		}
		key := strings.ToLower(strings.TrimSpace(it.Standard)) + "\x00" + strings.ToLower(strings.TrimSpace(it.Clause))
		if j, dup := seen[key]; dup {
			return Refusef("items[%d] and items[%d] both assess %s %s; keep one", j, i, it.Standard, it.Clause)
		}
		seen[key] = i
	}
	return nil
}

// Markdown implements TypedDocument.
func (c ComplianceChecklist) Markdown(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nCompliance checklist", title)
	if !blank(c.Coverage) {
		fmt.Fprintf(&b, " for %s", strings.TrimSpace(c.Coverage))
	}
	b.WriteString(".\n\n| Standard | Clause | Requirement | Status | Evidence |\n| --- | --- | --- | --- | --- |\n")
	for _, it := range c.Items {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCell(it.Standard), mdCell(it.Clause), mdCell(it.Requirement), it.Status, mdCell(it.Evidence))
	}
	return b.String()
}

// Summary implements TypedDocument: the count of each status, and the
// items still open (open, partial, non_compliant).
func (c ComplianceChecklist) Summary() map[string]any {
	counts := map[string]any{}
	for _, s := range ComplianceStatuses {
		counts[s] = 0.0
	}
	open := []any{}
	for _, it := range c.Items {
		counts[it.Status] = counts[it.Status].(float64) + 1
		if it.Status == "open" || it.Status == "partial" || it.Status == "non_compliant" {
			open = append(open, strings.TrimSpace(it.Standard)+" "+strings.TrimSpace(it.Clause))
		}
	}
	return map[string]any{"items": float64(len(c.Items)), "by_status": counts, "unresolved": open}
}

// Concerns implements TypedDocument: a checklist names no item itself.
func (ComplianceChecklist) Concerns() []string { return nil }
