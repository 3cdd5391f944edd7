package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/metaforge/metaforge/internal/units"
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
	reqs, err := currentRequirements(ctx, b, p.ID)
	if err != nil {
		return nil, err
	}
	stated := statedValuesOf(reqs)
	refs := setRefs(reqs)
	var strays []string
	seen := map[string]bool{}
	total := 0
	for _, q := range scanQuantities(a.Text) {
		if stated.has(q.Quantity) || seen[q.written] {
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

// statedValues is every value the requirements state, by dimension, in
// the dimension's SI unit: each limit with its unit, and any quantity
// written in an expression, description or acceptance criteria.
type statedValues map[string][]float64

func statedValuesOf(reqs []setRequirement) statedValues {
	sv := statedValues{}
	for _, r := range reqs {
		if r.Limit != nil && strings.TrimSpace(r.Unit) != "" {
			sv.add(units.Quantity{Value: *r.Limit, Unit: r.Unit})
		}
		for _, text := range []string{r.Expression, r.Description, r.AcceptanceCriteria} {
			for _, q := range scanQuantities(text) {
				sv.add(q.Quantity)
			}
		}
	}
	return sv
}

func (sv statedValues) add(q units.Quantity) {
	dim, v := comparableValue(q)
	sv[dim] = append(sv[dim], v)
}

// has says whether q is stated, in any unit of its dimension (2 W is
// 2000 mW).
func (sv statedValues) has(q units.Quantity) bool {
	dim, v := comparableValue(q)
	for _, s := range sv[dim] {
		if units.Equal(s, v) {
			return true
		}
	}
	return false
}

// comparableValue is a quantity's dimension and its value in the
// dimension's SI unit; a unit units.go does not know (dB) is its own
// dimension, compared as written.
func comparableValue(q units.Quantity) (string, float64) {
	if dim, v, err := q.InSI(); err == nil {
		return dim, v
	}
	return "unit " + units.Normalize(q.Unit), q.Value
}

// ------------------------------------------------------------ values in text

// proseQuantity is a number with a unit found in text: the unit as
// units.go reads it (or as written, when it does not know it), and the
// text it was read from.
type proseQuantity struct {
	units.Quantity
	written string // as written: "2 W", "$20"
}

var (
	// quantityRe is a number and the word after it; the word counts when
	// it is a unit.
	quantityRe = regexp.MustCompile(`(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?[ \t\x{00a0}\x{202f}]?` +
		`([A-Za-zµμΩ°℃℉][A-Za-z0-9µμΩ°·*/^²³.\-]*|[%°℃℉Ωµμ])`)
	currencyRe = regexp.MustCompile(`([$€£])[ \x{00a0}]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[ ]?(k|K|M|million|bn|billion)\b)?`)
	multiplier = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
	// proseUnits are units spelled out, or ones units.go does not know
	// (compared only with the same unit).
	proseUnits = map[string]string{
		"watt": "W", "watts": "W", "volt": "V", "volts": "V", "amp": "A", "amps": "A", "ampere": "A", "amperes": "A",
		"gram": "g", "grams": "g", "kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg",
		"meter": "m", "meters": "m", "metre": "m", "metres": "m", "millimeter": "mm", "millimeters": "mm", "millimetre": "mm",
		"millimetres": "mm", "centimeter": "cm", "centimeters": "cm", "centimetre": "cm", "centimetres": "cm",
		"inches": "in", "feet": "ft", "pounds": "lb", "newton": "N", "newtons": "N",
		"second": "s", "seconds": "s", "secs": "s", "minute": "min", "minutes": "min", "mins": "min", "hour": "h", "hours": "h",
		"hrs": "h", "days": "day", "percent": "%", "dollar": "$", "dollars": "$", "euro": "€", "euros": "€",
		"degrees": "°", "degree": "°", "hertz": "Hz",
		"dB": "dB", "dBA": "dBA", "N/mm": "N/mm", "kg·cm": "kg·cm", "kgcm": "kg·cm", "kgf·cm": "kg·cm",
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
	if _, err := units.Dimension(word); err != nil {
		return "", false
	}
	return word, true
}

// scanQuantities finds the numbers written with a unit: "2 W", "150 mm",
// "3.3V", "20%", "$20", and each number of "150 x 100 mm" or "10-20 mm".
func scanQuantities(text string) []proseQuantity {
	type found struct {
		at int
		q  proseQuantity
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
		q := units.Quantity{Value: v * multiplier[mult], Unit: text[m[2]:m[3]]}
		all = append(all, found{m[0], proseQuantity{q, text[m[0]:m[1]]}})
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
		all = append(all, found{start, proseQuantity{units.Quantity{Value: v, Unit: unit}, written}})
		// The numbers before it in "150 x 100 mm" or "10-20 mm" share its unit.
		for _, lead := range leadingNumbers(text, start) {
			lv, err := strconv.ParseFloat(lead.num, 64)
			if err != nil {
				continue
			}
			all = append(all, found{lead.at, proseQuantity{units.Quantity{Value: lv, Unit: unit}, lead.num + gap + word}})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	out := make([]proseQuantity, 0, len(all))
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
