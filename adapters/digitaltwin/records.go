package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// Edge types the record tools add to the store's own.
const (
	// edgeRelatesTo links an engineering entity to what it traces to.
	edgeRelatesTo = "RELATES_TO"
	// edgeSupportedBy points from a claim to the evidence it cites. A write
	// can only link its new node to existing ones, so the claim carries
	// the edge; SUPPORTS is kept for claim -> requirement.
	edgeSupportedBy = "SUPPORTED_BY"
)

// recordTools is the decision, document, engineering entity and claim
// writes.
func recordTools() []tool {
	return []tool{recordDecisionTool(), recordDocumentTool(), recordEngineeringEntityTool(), recordClaimTool()}
}

// ---------------------------------------------------------------- decisions

func recordDecisionTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_decision", Name: "Record a design decision", Capability: "twin_write",
		Description: "Record a design decision as the next revision of a decision item (DEC-...): what was decided, why, and the " +
			"alternatives rejected (each an option and the reason it lost). depends_on pins the item revisions it rests on " +
			"(KEY@n, or KEY for the current revision) with DEPENDS_ON edges: for a decision that rests on the requirements, link the " +
			"constraint set (CS-...@n) instead of restating its values. An unknown item or revision writes nothing. " +
			"The result names item_key, revision, item_ref and the pinned depends_on refs.",
		InputSchema: schema([]string{"name", "decision"}, projectIDProp+`,
"name":{"type":"string","minLength":1,"maxLength":200,"description":"short title of the decision; the same name revises the same decision"},
"decision":{"type":"string","minLength":1,"maxLength":20000,"description":"what was decided"},
"rationale":{"type":"string","maxLength":20000,"description":"why: the reasoning, citing requirements by ref rather than restating their values"},
"alternatives":{"type":"array","maxItems":50,"description":"the options considered and rejected","items":{"type":"object","additionalProperties":false,"required":["option","reason"],"properties":{
  "option":{"type":"string","minLength":1,"maxLength":2000,"description":"the alternative considered"},
  "reason":{"type":"string","minLength":1,"maxLength":4000,"description":"why it was rejected"}}}},
"depends_on":{"type":["array","null"],"maxItems":50,"items":{"type":"string","minLength":1},"description":"item refs the decision rests on: KEY@n pins that revision, a bare KEY pins the current one; null means none"},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordDecision}
}

type alternative struct {
	Option string `json:"option"`
	Reason string `json:"reason"`
}

func recordDecision(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID    string        `json:"project_id"`
		Name         string        `json:"name"`
		Decision     string        `json:"decision"`
		Rationale    string        `json:"rationale"`
		Alternatives []alternative `json:"alternatives"`
		DependsOn    []string      `json:"depends_on"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Name) == "" || strings.TrimSpace(a.Decision) == "" {
		return nil, protocol.Refusal("Missing: name and decision. Say what was decided in decision, and give it a short name")
	}
	for i, alt := range a.Alternatives {
		if strings.TrimSpace(alt.Option) == "" || strings.TrimSpace(alt.Reason) == "" {
			return nil, protocol.Refusal("alternatives[%d] needs both option and reason (why it was rejected)", i)
		}
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	pins, err := pinItems(ctx, b, p.ID, "depends_on", a.DependsOn)
	if err != nil {
		return nil, err
	}
	var links []twin.Link
	refs := []string{}
	for _, n := range pins {
		links = append(links, twin.Link{Type: twin.EdgeDependsOn, To: n.ID, Properties: map[string]any{"ref": n.Ref()}})
		refs = append(refs, n.Ref())
	}
	alts := []any{}
	for _, alt := range a.Alternatives {
		alts = append(alts, map[string]any{"option": strings.TrimSpace(alt.Option), "reason": strings.TrimSpace(alt.Reason)})
	}
	props := map[string]any{"decision": a.Decision, "alternatives": alts}
	if a.Rationale != "" {
		props["rationale"] = a.Rationale
	}
	if len(refs) > 0 {
		props["depends_on"] = refs
	}
	n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, "decision", strings.TrimSpace(a.Name), a.itemArgs, props, links))
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["depends_on"] = refs
	return out, nil
}

// pinItems resolves item refs to exact revisions, once each, in order. Each
// must be a revision of an item: records cannot be pinned.
func pinItems(ctx context.Context, b *Backend, projectID, field string, refs []string) ([]twin.Node, error) {
	var out []twin.Node
	seen := map[string]bool{}
	for _, ref := range refs {
		n, err := resolveRef(ctx, b, projectID, ref)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", field, ref, err)
		}
		if n.ItemKey == "" {
			return nil, protocol.Refusal("%s %s: that is a %s record, not a revision of an item; pass an item ref (KEY@n or KEY)", field, ref, n.Type)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------- documents

// documentTypes are what twin.record_document records.
var documentTypes = []string{"prd", "spec", "note", "datasheet", "report", "documentation", "simulation_result", "load_case", "robot_description"}

func recordDocumentTool() tool {
	types, _ := json.Marshal(documentTypes)
	return tool{adapters.Manifest{ToolID: "twin.record_document", Name: "Record a document", Capability: "twin_write",
		Description: "Record a text document as the next revision of a document item (keyed by title). document_type \"prd\" is " +
			"special: the text is the prd's prose (background, scope, what is out of scope) and always becomes the next revision of the " +
			"project's one prd item (PRD-...), whatever its title; it is never refused for its content. Requirement values belong in " +
			"twin.record_constraint_set: numbers with units in a prd that no current requirement states come back as " +
			"stray_requirement_values with a requirement_warning, and requirement_refs names the constraint set revisions checked.",
		InputSchema: schema([]string{"document_type", "title", "text"}, projectIDProp+`,
"document_type":{"type":"string","enum":`+string(types)+`,"description":"prd: the project's product requirements prose (one per project); others are ordinary documents"},
"title":{"type":"string","minLength":1,"maxLength":200,"description":"the document's title; for other types the same title revises the same document"},
"text":{"type":"string","minLength":1,"maxLength":200000,"description":"the document's text, markdown"},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordDocument}
}

// requirementsHome is the one sentence every prd write returns.
const requirementsHome = "Requirement values (metric, operator, limit, unit) go in twin.record_constraint_set; the prd holds prose only, " +
	"and the product requirements read as this prose plus the project's current constraint sets."

const maxStrays = 20

func recordDocument(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID    string `json:"project_id"`
		DocumentType string `json:"document_type"`
		Title        string `json:"title"`
		Text         string `json:"text"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	a.Title = strings.TrimSpace(a.Title)
	if a.Title == "" {
		return nil, protocol.Refusal("Missing: title")
	}
	if strings.TrimSpace(a.Text) == "" {
		return nil, protocol.Refusal("Missing: text. Pass the document's content")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	props := map[string]any{"document_type": a.DocumentType, "title": a.Title, "text": a.Text}
	if a.DocumentType != "prd" {
		n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, "document", a.Title, a.itemArgs, props, nil))
		if err != nil {
			return nil, err
		}
		out := written(n, it)
		out["project_id"], out["document_type"] = p.ID, a.DocumentType
		return out, nil
	}

	ik, err := prdItem(ctx, b, p, a.itemArgs)
	if err != nil {
		return nil, err
	}
	sets, err := currentConstraintSets(ctx, b, p.ID)
	if err != nil {
		return nil, err
	}
	stated := statedValues(sets)
	refs := []string{}
	for _, s := range sets {
		refs = append(refs, s.Ref())
	}
	var strays []string
	seen := map[string]bool{}
	total := 0
	for _, q := range scanQuantities(a.Text) {
		if stated.has(q) || seen[q.written] {
			continue
		}
		seen[q.written] = true
		total++
		if len(strays) < maxStrays {
			strays = append(strays, q.written)
		}
	}
	n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, "prd", a.Title, ik, props, nil))
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"], out["document_type"] = p.ID, "prd"
	out["requirements_home"] = requirementsHome
	out["requirement_refs"] = refs
	if len(strays) > 0 {
		out["stray_requirement_values"] = strays
		against := "no constraint set is recorded in this project yet"
		if len(refs) > 0 {
			against = "no requirement in " + strings.Join(refs, ", ") + " states them"
		}
		more := ""
		if total > len(strays) {
			more = fmt.Sprintf(" (and %d more)", total-len(strays))
		}
		out["requirement_warning"] = fmt.Sprintf("the prd states %s%s, but %s. If they are requirements, record them with "+
			"twin.record_constraint_set (metric, operator, limit, unit, verification_method) so a gate can check them; the prd was recorded as written.",
			strings.Join(strays, ", "), more, against)
	}
	return out, nil
}

// prdItem makes a prd write revise the project's one prd item: the one that
// exists, else a new PRD-<project> item. An item_key or supersedes naming
// any other item is refused.
func prdItem(ctx context.Context, b *Backend, p twin.Project, ik itemArgs) (itemArgs, error) {
	items, err := b.Store.Items(ctx, p.ID)
	if err != nil {
		return ik, err
	}
	var prd *twin.Item
	for i := range items {
		if items[i].ItemType == "prd" {
			prd = &items[i]
			break
		}
	}
	given := deref(ik.ItemKey)
	if sup := deref(ik.Supersedes); sup != "" {
		n, err := b.Store.GetNode(ctx, sup)
		if err != nil || n.ProjectID != p.ID {
			return ik, protocol.Refusal("supersedes %s: no such node in this project", sup)
		}
		if prd == nil || n.ItemKey != prd.Key {
			return ik, protocol.Refusal("supersedes %s is not a revision of this project's prd; leave it out: a prd write always revises the project's one prd", sup)
		}
	}
	out := itemArgs{ChangeReason: ik.ChangeReason}
	switch {
	case prd != nil && given != "":
		key, _, err := twin.ParseItemRef(given)
		if err != nil {
			return ik, err
		}
		if key != prd.Key {
			return ik, protocol.Refusal("item_key %s: this project's prd is %s (head %s); a project has one prd, so pass %s or leave item_key out",
				given, prd.Key, prd.HeadRef(), prd.Key)
		}
		out.ItemKey = &given
	case prd != nil:
		out.ItemKey = &prd.Key
	case given != "":
		key, rev, err := twin.ParseItemRef(given)
		if err != nil {
			return ik, err
		}
		if rev > 0 {
			return ik, protocol.Refusal("item_key %s: this project has no prd yet; pass a bare key, or leave item_key out", given)
		}
		out.ItemKey = &key
	default:
		key := "PRD-PROJECT"
		if strings.IndexFunc(p.Name, func(r rune) bool { return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) }) >= 0 {
			key = twin.NewItemKey("prd", p.Name)
		}
		out.ItemKey = &key
	}
	return out, nil
}

// currentConstraintSets is the head revision of every constraint set item
// in a project, by key.
func currentConstraintSets(ctx context.Context, b *Backend, projectID string) ([]twin.Node, error) {
	items, err := b.Store.Items(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []twin.Node
	for _, it := range items {
		if it.ItemType != "constraint_set" {
			continue
		}
		n, err := b.Store.GetNode(ctx, it.HeadNodeID)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// constraintsOf reads a constraint set revision's requirements, whatever
// shape the store gave its properties back in.
func constraintsOf(n twin.Node) []constraint {
	var out []constraint
	raw, err := json.Marshal(n.Properties["constraints"])
	if err != nil {
		return nil
	}
	_ = json.Unmarshal(raw, &out)
	return out
}

// valueSet is the quantities requirements state, by dimension.
type valueSet map[string][]float64

// statedValues collects every value a requirement states: its limit with its
// unit, and any quantity written in its expression, description or
// acceptance criteria.
func statedValues(sets []twin.Node) valueSet {
	vs := valueSet{}
	for _, s := range sets {
		for _, c := range constraintsOf(s) {
			if c.Limit != nil && strings.TrimSpace(c.Unit) != "" {
				dim, v := normalise(*c.Limit, c.Unit)
				vs[dim] = append(vs[dim], v)
			}
			for _, text := range []string{c.Expression, c.Description, c.AcceptanceCriteria} {
				for _, q := range scanQuantities(text) {
					vs[q.dim] = append(vs[q.dim], q.base)
				}
			}
		}
	}
	return vs
}

func (vs valueSet) has(q quantity) bool {
	for _, v := range vs[q.dim] {
		if sameValue(v, q.base) {
			return true
		}
	}
	return false
}

func sameValue(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-12
}

// ------------------------------------------------------------ values in text

// normalise puts a value in its dimension's SI unit with units.go; a unit it
// does not know (mAh, rpm, dB) is its own dimension, compared as written.
func normalise(v float64, unit string) (string, float64) {
	if u, err := resolveUnit(unit); err == nil {
		return u.dim, v*u.factor + u.offset
	}
	return "unit:" + strings.ToLower(normalizeUnit(unit)), v
}

// quantity is a number with a unit found in text.
type quantity struct {
	written string  // as written: "2 W", "$20"
	dim     string  // its dimension
	base    float64 // in the dimension's SI unit
}

var (
	// quantityRe is a number and the word after it; the word counts when
	// it is a unit.
	quantityRe = regexp.MustCompile(`(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?[ \t\x{00a0}\x{202f}]?` +
		`([A-Za-zµμΩ°℃℉][A-Za-z0-9µμΩ°·*/^²³.\-]*|[%°℃℉Ωµμ])`)
	currencyRe = regexp.MustCompile(`([$€£])[ \x{00a0}]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[ ]?(k|K|M|million|bn|billion)\b)?`)
	multiplier = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
	// proseUnits are units spelled out, or ones units.go does not convert.
	proseUnits = map[string]string{
		"watt": "W", "watts": "W", "volt": "V", "volts": "V", "amp": "A", "amps": "A", "ampere": "A", "amperes": "A",
		"gram": "g", "grams": "g", "kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg",
		"meter": "m", "meters": "m", "metre": "m", "metres": "m", "millimeter": "mm", "millimeters": "mm", "millimetre": "mm",
		"millimetres": "mm", "centimeter": "cm", "centimeters": "cm", "centimetre": "cm", "centimetres": "cm",
		"inches": "in", "feet": "ft", "pounds": "lb", "newton": "N", "newtons": "N",
		"second": "s", "seconds": "s", "secs": "s", "minute": "min", "minutes": "min", "mins": "min", "hour": "h", "hours": "h",
		"hrs": "h", "days": "day", "percent": "%", "dollar": "$", "dollars": "$", "euro": "€", "euros": "€",
		"degrees": "°", "degree": "°", "hertz": "Hz",
		"mAh": "mAh", "Ah": "Ah", "rpm": "rpm", "RPM": "rpm", "dB": "dB", "dBA": "dBA", "N/mm": "N/mm", "m/s": "m/s", "mm/s": "mm/s",
		"km/h": "km/h", "kg·cm": "kg·cm", "kgcm": "kg·cm", "kgf·cm": "kg·cm",
	}
	// notUnitsInProse are unit symbols that read as ordinary words or
	// marks in prose: "2 in the box", "5 pm", "20 C" (a grade), "20K".
	notUnitsInProse = map[string]bool{"in": true, "C": true, "F": true, "K": true, "l": true, "L": true, "1": true, "-": true,
		"pm": true, "PM": true, "Pm": true, "us": true, "cs": true, "ratio": true, "v": true, "w": true, "ms-": true}
)

// proseUnit says whether a word after a number is a unit, and which.
func proseUnit(word string) (string, bool) {
	if u, ok := proseUnits[word]; ok {
		return u, true
	}
	if notUnitsInProse[word] {
		return "", false
	}
	if _, err := resolveUnit(word); err != nil {
		return "", false
	}
	return word, true
}

// scanQuantities finds the numbers written with a unit: "2 W", "150 mm",
// "3.3V", "20%", "$20", and each number of "150 x 100 mm" or "10-20 mm".
func scanQuantities(text string) []quantity {
	type found struct {
		at int
		q  quantity
	}
	var all []found
	for _, m := range currencyRe.FindAllStringSubmatchIndex(text, -1) {
		num := strings.ReplaceAll(text[m[4]:m[5]], ",", "")
		if m[6] >= 0 {
			num += text[m[6]:m[7]]
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || !wordEnds(text, m[1]) {
			continue
		}
		mult := ""
		if m[8] >= 0 {
			mult = text[m[8]:m[9]]
		}
		dim, base := normalise(v*multiplier[mult], text[m[2]:m[3]])
		all = append(all, found{m[0], quantity{written: text[m[0]:m[1]], dim: dim, base: base}})
	}
	for pos := 0; pos < len(text); {
		m := quantityRe.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		// A rejected match resumes after its number, so "150x100mm" still
		// finds 100mm; an accepted one after its unit.
		pos = m[3]
		start := m[0]
		if !boundaryBefore(text, start) || start > 0 && strings.ContainsAny(text[start-1:start], "$€£") {
			continue // inside a word or another number, or the currency scan has it
		}
		// The unit ends before trailing punctuation ("2 W.") or a hyphen
		// ("a 150 mm-wide slot").
		word := strings.TrimRight(text[m[6]:m[7]], ".-/·*^")
		unit, ok := proseUnit(word)
		if before, _, cut := strings.Cut(word, "-"); !ok && cut {
			word = before
			unit, ok = proseUnit(word)
		}
		if !ok {
			continue
		}
		pos = m[6] + len(word)
		end := m[6] + len(word)
		num := strings.ReplaceAll(text[m[2]:m[3]], ",", "")
		numEnd := m[3]
		if m[4] >= 0 {
			num += text[m[4]:m[5]]
			numEnd = m[5]
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			continue
		}
		gap := text[numEnd:m[6]]
		written := text[start:end]
		if sign, ok := signBefore(text, start); ok {
			v, written = -v, sign+written
			start -= len(sign)
		} else if strings.HasSuffix(text[:start], "±") {
			written = "±" + written
			start -= len("±")
		}
		dim, base := normalise(v, unit)
		all = append(all, found{start, quantity{written: written, dim: dim, base: base}})
		// The numbers before it in "150 x 100 mm" or "10-20 mm" share its unit.
		for _, lead := range leadingNumbers(text, start) {
			lv, err := strconv.ParseFloat(lead.num, 64)
			if err != nil {
				continue
			}
			dim, base := normalise(lv, unit)
			all = append(all, found{lead.at, quantity{written: lead.num + gap + word, dim: dim, base: base}})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	out := make([]quantity, 0, len(all))
	for _, f := range all {
		out = append(out, f.q)
	}
	return out
}

// boundaryBefore: the number does not continue a word or another number
// (M3, v2, 1.5), though it may follow the x of "150x100".
func boundaryBefore(text string, at int) bool {
	if at == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:at])
	if r == 'x' || r == '×' {
		return true
	}
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == ',' || r == '_')
}

// wordEnds: nothing alphanumeric follows ($20/month is $20; $20abc is not).
func wordEnds(text string, at int) bool {
	if at >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[at:])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}

// signBefore finds a minus sign written before a number: "-20 °C".
func signBefore(text string, at int) (string, bool) {
	for _, s := range []string{"-", "−"} {
		if strings.HasSuffix(text[:at], s) {
			rest := text[:at-len(s)]
			if rest == "" {
				return s, true
			}
			r, _ := utf8.DecodeLastRuneInString(rest)
			if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
				return s, true
			}
		}
	}
	return "", false
}

type leadNumber struct {
	at  int
	num string
}

var leadRe = regexp.MustCompile(`(\d+(?:\.\d+)?)[ \t]*(?:x|×|-|–|to)[ \t]*$`)

// leadingNumbers walks back from a quantity over "150 x 100 x " or "10 to ".
func leadingNumbers(text string, at int) []leadNumber {
	var out []leadNumber
	for len(out) < 5 {
		lo := max(at-40, 0)
		m := leadRe.FindStringSubmatchIndex(text[lo:at])
		if m == nil || !boundaryBefore(text, lo+m[2]) {
			break
		}
		out = append(out, leadNumber{at: lo + m[2], num: text[lo+m[2] : lo+m[3]]})
		at = lo + m[2]
	}
	return out
}

// ------------------------------------------------------ engineering entities

// entityTypes: the first three are definitions (items with revisions), the
// rest records.
var (
	definitionEntities = []string{"intent", "stakeholder_need", "objective"}
	recordEntities     = []string{"assumption", "question", "risk", "interface", "test_case", "verification_case", "budget",
		"waiver", "release_package", "concept_option"}
)

func isDefinitionEntity(t string) bool {
	for _, d := range definitionEntities {
		if d == t {
			return true
		}
	}
	return false
}

func recordEngineeringEntityTool() tool {
	types, _ := json.Marshal(append(append([]string{}, definitionEntities...), recordEntities...))
	return tool{adapters.Manifest{ToolID: "twin.record_engineering_entity", Name: "Record an engineering entity", Capability: "twin_write",
		Description: "Record one engineering entity: an intent, stakeholder_need or objective (a definition: the next revision of its item, " +
			"same name same item, with item_key/item_ref in the result), or a record (assumption, question, risk, interface, test_case, " +
			"verification_case, budget, waiver, release_package, concept_option: one node, no revisions). parent_refs links it to " +
			"existing nodes. item_key, supersedes and change_reason apply to the three definitions only. A budget needs metric, unit " +
			"and system_total in properties. Requirement values do not go here: use twin.record_constraint_set.",
		InputSchema: schema([]string{"entity_type", "name"}, projectIDProp+`,
"entity_type":{"type":"string","enum":`+string(types)+`},
"name":{"type":"string","minLength":1,"maxLength":200},
"description":{"type":"string","maxLength":20000},
"properties":{"type":"object","description":"further fields: likelihood and impact for a risk, steps for a test_case, metric/unit/system_total for a budget..."},
"parent_refs":{"type":["array","null"],"maxItems":50,"description":"existing nodes to link to: an item ref (KEY@n, or KEY for the current revision) or a node id, or {ref, edge}. edge is from this entity to ref: RELATES_TO (default: it traces to ref, as a risk to the objective it threatens) or CONTAINS (it contains ref, as a release_package the revisions in it)",
  "items":{"type":["string","object"],"minLength":1,"additionalProperties":false,"required":["ref"],"properties":{
    "ref":{"type":"string","minLength":1},
    "edge":{"type":"string","enum":["RELATES_TO","CONTAINS"]}}}},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordEngineeringEntity}
}

// parentRef is a string ref or {ref, edge}.
type parentRef struct {
	Ref  string `json:"ref"`
	Edge string `json:"edge"`
}

func (p *parentRef) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*p = parentRef{Ref: s}
		return nil
	}
	type plain parentRef
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = parentRef(v)
	return nil
}

func recordEngineeringEntity(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID   string         `json:"project_id"`
		EntityType  string         `json:"entity_type"`
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Properties  map[string]any `json:"properties"`
		ParentRefs  []parentRef    `json:"parent_refs"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	a.Name = strings.TrimSpace(a.Name)
	if a.Name == "" {
		return nil, protocol.Refusal("Missing: name")
	}
	definition := isDefinitionEntity(a.EntityType)
	if !definition && (deref(a.ItemKey) != "" || deref(a.Supersedes) != "" || deref(a.ChangeReason) != "") {
		return nil, protocol.Refusal("a %s is a record, not a revision of an item: leave out item_key, supersedes and change_reason "+
			"(they apply to intent, stakeholder_need and objective)", a.EntityType)
	}
	if a.EntityType == "budget" {
		var missing []string
		for _, k := range []string{"metric", "unit", "system_total"} {
			if v, ok := a.Properties[k]; !ok || v == nil || v == "" {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return nil, protocol.Refusal("a budget needs %s in properties (what is budgeted, its unit and the system total), or no rollup can read it",
				strings.Join(missing, ", "))
		}
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	var links []twin.Link
	parents := []map[string]any{}
	seen := map[string]bool{}
	for _, pr := range a.ParentRefs {
		edge := pr.Edge
		if edge == "" {
			edge = edgeRelatesTo
		}
		n, err := resolveRef(ctx, b, p.ID, pr.Ref)
		if err != nil {
			return nil, fmt.Errorf("parent_refs %s: %w", pr.Ref, err)
		}
		if seen[edge+n.ID] {
			continue
		}
		seen[edge+n.ID] = true
		props := map[string]any{}
		entry := map[string]any{"edge": edge, "node_id": n.ID, "node_type": n.Type}
		if ref := n.Ref(); ref != "" {
			props["ref"], entry["ref"] = ref, ref
		}
		links = append(links, twin.Link{Type: edge, To: n.ID, Properties: props})
		parents = append(parents, entry)
	}
	props := map[string]any{}
	for k, v := range a.Properties {
		props[k] = v
	}
	if a.Description != "" {
		props["description"] = a.Description
	}
	if definition {
		n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, a.EntityType, a.Name, a.itemArgs, props, links))
		if err != nil {
			return nil, err
		}
		out := written(n, it)
		out["project_id"], out["entity_type"], out["parent_refs"] = p.ID, a.EntityType, parents
		return out, nil
	}
	n, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: a.EntityType, Name: a.Name, Properties: props, Links: links,
		IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"node_id": n.ID, "project_id": p.ID, "entity_type": a.EntityType, "name": n.Name, "parent_refs": parents}, nil
}

// ------------------------------------------------------------------ claims

func recordClaimTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_claim", Name: "Record a requirement claim", Capability: "twin_write",
		Description: "Claim that a requirement holds, citing the evidence that shows it. requirement_ref is the constraint set (CS-...@n, or " +
			"CS-... for the current revision) and requirement_name the one requirement in it; evidence_refs are evidence node ids " +
			"(twin.record_evidence). The claim's status is never stored: it is computed now and on every read from the evidence: " +
			"supported, stale (evidence computed on an older design, or the requirement changed), contradicted (current evidence breaks " +
			"the limit) or no_data (no evidence: no data is not a pass). The result gives status and the reasons.",
		InputSchema: schema([]string{"claim", "requirement_ref"}, projectIDProp+`,
"claim":{"type":"string","minLength":1,"maxLength":4000,"description":"what is claimed, e.g. 'tip deflection stays under 0.5 mm at 20 N'"},
"name":{"type":"string","maxLength":200,"description":"a short name; defaults to the start of the claim"},
"requirement_ref":{"type":"string","minLength":1,"description":"the constraint set: KEY@n, KEY (current revision) or its node id"},
"requirement_name":{"type":"string","description":"the requirement in that set the claim is about (its name); without it the claim covers the whole set"},
"evidence_refs":{"type":"array","maxItems":50,"items":{"type":"string","minLength":1},"description":"node ids of the evidence supporting the claim; none gives status no_data"}`),
		Idempotent: true, TimeoutSeconds: 30}, recordClaim}
}

func recordClaim(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID       string   `json:"project_id"`
		Claim           string   `json:"claim"`
		Name            string   `json:"name"`
		RequirementRef  string   `json:"requirement_ref"`
		RequirementName string   `json:"requirement_name"`
		EvidenceRefs    []string `json:"evidence_refs"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	a.Claim = strings.TrimSpace(a.Claim)
	if a.Claim == "" {
		return nil, protocol.Refusal("Missing: claim. Say what holds")
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	req, err := resolveRef(ctx, b, p.ID, a.RequirementRef)
	if err != nil {
		return nil, fmt.Errorf("requirement_ref %s: %w", a.RequirementRef, err)
	}
	if req.Type != "constraint_set" {
		return nil, protocol.Refusal("requirement_ref %s is a %s, not a constraint set; claim against the requirements (twin.record_constraint_set)", a.RequirementRef, req.Type)
	}
	reqName := strings.TrimSpace(a.RequirementName)
	if reqName != "" {
		c, ok := findConstraint(constraintsOf(req), reqName)
		if !ok {
			return nil, protocol.Refusal("requirement_name %q: %s has no requirement of that name; it has %s", reqName, req.Ref(), constraintNames(req))
		}
		reqName = c.Name
	}
	linkProps := map[string]any{"ref": req.Ref()}
	if reqName != "" {
		linkProps["requirement"] = reqName
	}
	links := []twin.Link{{Type: twin.EdgeSupports, To: req.ID, Properties: linkProps}}
	evidence := []string{}
	seen := map[string]bool{}
	for _, id := range a.EvidenceRefs {
		n, err := resolveRef(ctx, b, p.ID, id)
		if err != nil {
			return nil, fmt.Errorf("evidence_refs %s: %w", id, err)
		}
		if n.Type != "evidence" {
			return nil, protocol.Refusal("evidence_refs %s is a %s, not evidence; record results with twin.record_evidence and cite their node ids", id, n.Type)
		}
		if !seen[n.ID] {
			seen[n.ID] = true
			evidence = append(evidence, n.ID)
			links = append(links, twin.Link{Type: edgeSupportedBy, To: n.ID})
		}
	}
	name := strings.TrimSpace(a.Name)
	if name == "" {
		name = a.Claim
		if r := []rune(name); len(r) > 120 {
			name = strings.TrimSpace(string(r[:120])) + "…"
		}
	}
	props := map[string]any{"claim": a.Claim, "requirement_ref": req.Ref(), "evidence_refs": evidence}
	if reqName != "" {
		props["requirement_name"] = reqName
	}
	n, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: p.ID, Type: "claim", Name: name, Properties: props, Links: links,
		IdempotencyKey: callID(ctx)})
	if err != nil {
		return nil, err
	}
	st, err := claimStatus(ctx, b, n.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"node_id": n.ID, "project_id": p.ID, "name": n.Name, "requirement_ref": req.Ref(), "evidence_refs": evidence}
	if reqName != "" {
		out["requirement_name"] = reqName
	}
	for k, v := range st {
		out[k] = v
	}
	return out, nil
}

func findConstraint(cs []constraint, name string) (constraint, bool) {
	for _, c := range cs {
		if strings.EqualFold(strings.TrimSpace(c.Name), strings.TrimSpace(name)) {
			return c, true
		}
	}
	return constraint{}, false
}

func constraintNames(n twin.Node) string {
	var names []string
	for _, c := range constraintsOf(n) {
		names = append(names, strconv.Quote(c.Name))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Claim statuses.
const (
	claimSupported    = "supported"
	claimStale        = "stale"
	claimContradicted = "contradicted"
	claimNoData       = "no_data"
)

// claimStatus computes a claim's status now, from its evidence and the
// requirement it names; nothing of it is stored. contradicted (current
// evidence breaks the limit) outranks stale (evidence on an older design,
// or the requirement changed since), which outranks supported. A claim with
// no evidence is no_data: no data is not a pass.
func claimStatus(ctx context.Context, b *Backend, claimNodeID string) (map[string]any, error) {
	claim, err := b.Store.GetNode(ctx, claimNodeID)
	if err != nil {
		return nil, err
	}
	if claim.Type != "claim" {
		return nil, protocol.Refusal("node %s is a %s, not a claim", claimNodeID, claim.Type)
	}
	reasons := []string{}
	status := claimSupported
	raise := func(s string) {
		rank := map[string]int{claimSupported: 0, claimStale: 1, claimContradicted: 2}
		if rank[s] > rank[status] {
			status = s
		}
	}

	// The requirement the claim was made about, and whether it still reads so.
	var reqNode *twin.Node
	var reqName string
	var scope []constraint
	reqs, err := b.Store.Neighbors(ctx, claim.ID, twin.Outgoing, twin.EdgeSupports)
	if err != nil {
		return nil, err
	}
	requirement := map[string]any{}
	if len(reqs) > 0 {
		r := reqs[0]
		reqNode = &r.Node
		reqName, _ = r.Edge.Properties["requirement"].(string)
		requirement["ref"], requirement["node_id"] = r.Node.Ref(), r.Node.ID
		pinned := constraintsOf(r.Node)
		scope = pinned
		if reqName != "" {
			requirement["name"] = reqName
			c, _ := findConstraint(pinned, reqName)
			scope = []constraint{c}
			requirement["metric"], requirement["operator"], requirement["unit"] = c.Metric, c.Operator, c.Unit
			if c.Limit != nil {
				requirement["limit"] = *c.Limit
			}
		}
		if r.Node.ItemKey != "" {
			it, err := b.Store.ItemOfNode(ctx, r.Node.ID)
			if err != nil {
				return nil, err
			}
			requirement["head_ref"] = it.HeadRef()
			if it.HeadNodeID != r.Node.ID {
				head, err := b.Store.GetNode(ctx, it.HeadNodeID)
				if err != nil {
					return nil, err
				}
				if changed := requirementChanged(pinned, constraintsOf(head), reqName); changed != "" {
					raise(claimStale)
					reasons = append(reasons, fmt.Sprintf("the claim is about %s, but the requirements are now %s: %s; re-check the claim against %s",
						r.Node.Ref(), it.HeadRef(), changed, it.HeadRef()))
				}
			}
		}
	}

	evs, err := b.Store.Neighbors(ctx, claim.ID, twin.Outgoing, edgeSupportedBy)
	if err != nil {
		return nil, err
	}
	evidence := []map[string]any{}
	for _, nb := range evs {
		ev := nb.Node
		f, err := staleness(ctx, b, ev.ID)
		if err != nil {
			return nil, err
		}
		entry := evidenceEntry(ev, f)
		if f.Stale {
			raise(claimStale)
			var pins []string
			for _, s := range f.Against {
				pins = append(pins, fmt.Sprintf("%v (now %v)", s["pinned"], s["head"]))
			}
			reasons = append(reasons, fmt.Sprintf("evidence %q was computed against %s: re-run it on the current revision and record it",
				ev.Name, strings.Join(pins, ", ")))
		}
		verdicts := []map[string]any{}
		if reqNode != nil {
			for _, ck := range checkEvidence(ev, scope) {
				verdicts = append(verdicts, ck.entry())
				switch ck.verdict {
				case verdictNotCompared:
					reasons = append(reasons, fmt.Sprintf("evidence %q is in %q, requirement %q in %q: those units cannot be compared",
						ev.Name, ck.unit, ck.c.Name, ck.c.Unit))
				case verdictViolates:
					if f.Stale {
						reasons = append(reasons, fmt.Sprintf("stale evidence %q (%s) broke requirement %q (%s), but it describes an older design",
							ev.Name, ck.measured(), ck.c.Name, ck.limit()))
					} else {
						raise(claimContradicted)
						reasons = append(reasons, fmt.Sprintf("evidence %q gives %s, which breaks requirement %q (%s)",
							ev.Name, ck.measured(), ck.c.Name, ck.limit()))
					}
				}
			}
		}
		entry["checks"] = verdicts
		evidence = append(evidence, entry)
	}
	if len(evidence) == 0 {
		status = claimNoData
		reasons = append([]string{"no evidence is linked: no data is not a pass. Record the result with twin.record_evidence and " +
			"cite it in a new claim's evidence_refs"}, reasons...)
	} else if status == claimSupported {
		reasons = append(reasons, fmt.Sprintf("%d evidence, all current; none breaks the requirement", len(evidence)))
	}
	return map[string]any{"status": status, "reasons": reasons, "evidence": evidence, "requirement": requirement}, nil
}

// requirementChanged says how the requirement a claim names (or the whole
// set, when it names none) differs between two revisions; "" when it does
// not.
func requirementChanged(pinned, head []constraint, name string) string {
	if name == "" {
		a, _ := json.Marshal(pinned)
		c, _ := json.Marshal(head)
		if string(a) != string(c) {
			return "the set's requirements changed"
		}
		return ""
	}
	was, _ := findConstraint(pinned, name)
	now, ok := findConstraint(head, name)
	if !ok {
		return fmt.Sprintf("requirement %q is no longer stated", name)
	}
	a, _ := json.Marshal(was)
	c, _ := json.Marshal(now)
	if string(a) != string(c) {
		return fmt.Sprintf("requirement %q changed", name)
	}
	return ""
}

// Verdicts of one evidence value against one requirement.
const (
	verdictSatisfies   = "satisfies"
	verdictViolates    = "violates"
	verdictNotCompared = "not_compared"
)

// evidenceCheck is one evidence value checked against one requirement.
type evidenceCheck struct {
	c       constraint
	metric  string
	value   float64
	unit    string
	verdict string
}

func (ck evidenceCheck) limit() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", ck.c.Operator, formatFloat(*ck.c.Limit), ck.c.Unit))
}

func (ck evidenceCheck) measured() string {
	return strings.TrimSpace(fmt.Sprintf("%s = %s %s", ck.metric, formatFloat(ck.value), ck.unit))
}

func (ck evidenceCheck) entry() map[string]any {
	return map[string]any{"requirement": ck.c.Name, "limit": ck.limit(), "verdict": ck.verdict}
}

// checkEvidence checks an evidence value against each typed requirement in
// scope that measures the same metric. Evidence without a metric and value,
// or requirements without metric, operator and limit, are not checked.
func checkEvidence(ev twin.Node, scope []constraint) []evidenceCheck {
	metric, _ := ev.Properties["metric"].(string)
	value, hasValue := toFloat(ev.Properties["value"])
	unit, _ := ev.Properties["unit"].(string)
	if metric == "" || !hasValue {
		return nil
	}
	var out []evidenceCheck
	for _, c := range scope {
		if c.Metric == "" || c.Operator == "" || c.Limit == nil || !strings.EqualFold(strings.TrimSpace(c.Metric), strings.TrimSpace(metric)) {
			continue
		}
		ck := evidenceCheck{c: c, metric: metric, value: value, unit: unit}
		ok, comparable := satisfies(value, unit, c)
		switch {
		case !comparable:
			ck.verdict = verdictNotCompared
		case ok:
			ck.verdict = verdictSatisfies
		default:
			ck.verdict = verdictViolates
		}
		out = append(out, ck)
	}
	return out
}

// satisfies checks a value against a typed requirement, converting units;
// comparable is false when the units cannot be compared.
func satisfies(value float64, unit string, c constraint) (ok, comparable bool) {
	limit := *c.Limit
	if strings.TrimSpace(unit) != "" || strings.TrimSpace(c.Unit) != "" {
		d1, v := normalise(value, unit)
		d2, l := normalise(limit, c.Unit)
		if d1 != d2 {
			return false, false
		}
		value, limit = v, l
	}
	switch c.Operator {
	case "<=":
		return value <= limit || sameValue(value, limit), true
	case "<":
		return value < limit && !sameValue(value, limit), true
	case ">=":
		return value >= limit || sameValue(value, limit), true
	case ">":
		return value > limit && !sameValue(value, limit), true
	case "==":
		return sameValue(value, limit), true
	}
	return false, false
}

// evidenceEntry is how the thread tools show a piece of evidence.
func evidenceEntry(ev twin.Node, f freshness) map[string]any {
	e := map[string]any{"node_id": ev.ID, "name": ev.Name, "kind": ev.Properties["kind"], "metric": ev.Properties["metric"],
		"value": ev.Properties["value"], "unit": ev.Properties["unit"], "stale": f.Stale}
	if f.Stale {
		e["stale_against"] = f.Against
	}
	return e
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
