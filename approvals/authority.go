package approvals

import (
	"net/http"
	"strings"
	"unicode"

	"github.com/metaforge/metaforge/internal/httpjson"
)

// Person is who sent a request, as far as the server could prove it.
type Person struct {
	// Name is a bearer token's subject, or Operator for the local
	// operator; "" when nothing proved a name.
	Name string
	// Verified: a bearer token the deployment's verifier accepted, or
	// the operator token. Only a verified person decides.
	Verified bool
	// Operator: the request presented the operator token that metaforge
	// serve wrote to its data dir.
	Operator bool
	// Presented: the request carried a credential the server accepts
	// that proves no person (the shared API key), so a refusal is 403,
	// not 401.
	Presented bool
}

// Operator is the name the local operator decides under, alone or as
// "operator:<name the operator gave>".
const Operator = "operator"

// Identity resolves the person behind a request.
type Identity func(r *http.Request) Person

// Authority is who may decide a hold, a flow version, a patch or a gate:
// only a verified person (spec 000 and 003). A shared API key, a name in
// the body, or a client that merely reached the port decides nothing.
type Authority struct {
	Identify Identity
	// HowTo tells a refused caller how to decide on this server: where
	// the operator token is, the pages' URL, the CLI.
	HowTo string
}

// DefaultHowTo is said when the server was given nothing more specific.
const DefaultHowTo = "decide as the local operator (metaforge approve ID on the machine running metaforge serve, " +
	"or the pages' URL with ?token= that metaforge serve printed at start), or present a bearer token the server's verifier accepts"

// maxClaimedName bounds the name an operator adds to "operator:".
const maxClaimedName = 64

// Decider is the verified person behind r. Anyone else is answered 401
// (no credential) or 403 (a credential that proves nobody), saying how to
// decide, and ok is false.
func (a Authority) Decider(w http.ResponseWriter, r *http.Request) (Person, bool) {
	var p Person
	if a.Identify != nil {
		p = a.Identify(r)
	}
	if p.Verified && p.Name != "" {
		return p, true
	}
	status, what := http.StatusUnauthorized, "no credential that identifies a person was presented"
	if p.Presented {
		status, what = http.StatusForbidden, "the server's API key admits a client but identifies nobody"
	}
	httpjson.Error(w, status, "only an identified person decides: "+what+"; "+a.HowToDecide())
	return Person{}, false
}

// HowToDecide is the sentence a refused caller is given.
func (a Authority) HowToDecide() string {
	if a.HowTo != "" {
		return a.HowTo
	}
	return DefaultHowTo
}

// Named is p with a claimed name (a request's "approver"): the operator's
// own label, recorded as "operator:<name>"; it never replaces a bearer
// token's subject.
func (p Person) Named(claimed string) Person {
	if name := cleanName(claimed); p.Operator && name != "" {
		p.Name = Operator + ":" + name
	}
	return p
}

// cleanName is a claimed name fit for a record: printable, one line, short.
func cleanName(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }), " ")
	if r := []rune(s); len(r) > maxClaimedName {
		s = string(r[:maxClaimedName])
	}
	return s
}

// MayDecide says whether r comes from someone who could decide, without
// answering: what GET /v1/approvals shows depends on it.
func (a Authority) MayDecide(r *http.Request) bool {
	if a.Identify == nil {
		return false
	}
	p := a.Identify(r)
	return p.Verified && p.Name != ""
}
