// Package twin is the digital twin: projects, items and their revisions,
// requirements, evidence, decisions and claims, as a graph behind one Store
// interface. It knows nothing of MCP or Temporal. Two stores implement it:
// Neo4j for real deployments and an in-memory one for zero-config use; both
// pass the same suite (storetest).
//
// Over the Store it holds the twin's rules, as functions of a Store: thread
// walks (thread.go), requirement status (requirement_status.go), constraint
// review, claims and their live status, evidence staleness, documents and
// their kinds (typed ones checked: typed_documents.go), decisions and the
// choices that make them (concept_selection.go, component_choice.go),
// sessions' narratives, engineering entities and approvals, the product
// hierarchy with its live roll-up and EBOM, the system architecture, test
// plans, built units and their measurements, what an assembly's joints
// give (build order, firmware scaffold, harness), the tube work products
// design loops search over, and the records of loops and evaluations. A
// request the rules turn down is a *RefusalError whose message says what
// to do; anything else is a store error.
//
// Beside the graph it keeps the content-addressed blob store (blobs.go:
// STEP files and the like, by SHA-256, which twin nodes name) and the
// geometry stash of recent CAD exports (stash.go).
package twin

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Project is one design: everything else in the twin belongs to one.
type Project struct {
	ID          string    `json:"project_id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Node is one vertex of the twin: a revision of an item (a CAD model, a
// constraint set, a decision...) or a record (evidence, a claim).
type Node struct {
	ID         string         `json:"node_id"`
	ProjectID  string         `json:"project_id"`
	Type       string         `json:"node_type"`
	Name       string         `json:"name"`
	Properties map[string]any `json:"properties,omitempty"`
	// Revision fields; empty for records.
	ItemKey      string `json:"item_key,omitempty"`
	Revision     int    `json:"revision,omitempty"`
	ChangeReason string `json:"change_reason,omitempty"`
	Author       string `json:"author,omitempty"`
	// CallID is the write that made the node: its idempotency key.
	CallID    string    `json:"call_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Ref is the node's item ref, KEY@n, or "" for a record.
func (n Node) Ref() string {
	if n.ItemKey == "" {
		return ""
	}
	return ItemRef(n.ItemKey, n.Revision)
}

// Item is what revisions are revisions of: a part keeps its key while its
// name, geometry and requirements change.
type Item struct {
	Key          string    `json:"key"`
	ProjectID    string    `json:"project_id"`
	ItemType     string    `json:"item_type"`
	Name         string    `json:"name"`
	HeadRevision int       `json:"head_revision"`
	HeadNodeID   string    `json:"head_node_id"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// HeadRef is KEY@head.
func (i Item) HeadRef() string { return ItemRef(i.Key, i.HeadRevision) }

// Edge is a typed, directed relation between two nodes.
type Edge struct {
	Type       string         `json:"type"`
	From       string         `json:"from"`
	To         string         `json:"to"`
	Properties map[string]any `json:"properties,omitempty"`
}

// Link is an edge a write creates from its new node to an existing one.
type Link struct {
	Type       string         `json:"type"`
	To         string         `json:"to"`
	Properties map[string]any `json:"properties,omitempty"`
}

// Edge types the stores know. REVISION_OF points from a revision to the one
// it revises.
const (
	EdgeRevisionOf   = "REVISION_OF"
	EdgeValidAgainst = "VALID_AGAINST"
	EdgeDependsOn    = "DEPENDS_ON"
	EdgeVerifies     = "VERIFIES"
	EdgeSupports     = "SUPPORTS"
	EdgeContains     = "CONTAINS"
	EdgeUses         = "USES"
	EdgeConstrains   = "CONSTRAINED_BY"
	// EdgeSupersedes points from a record to the one it replaces: fresh
	// evidence from a revalidation to the stale evidence it re-ran, a
	// loop's iteration to the one before it.
	EdgeSupersedes = "SUPERSEDES"
)

// Direction of a walk along edges.
type Direction string

// Directions of a walk.
const (
	Outgoing Direction = "outgoing"
	Incoming Direction = "incoming"
	Both     Direction = "both"
)

// Neighbor is a node reached over one edge.
type Neighbor struct {
	Edge Edge `json:"edge"`
	Node Node `json:"node"`
}

// RevisionWrite asks for the next revision of an item.
type RevisionWrite struct {
	ProjectID string
	ItemType  string
	Name      string
	// ItemKey names the item ("KEY"), or asserts its head ("KEY@n"). A
	// bare key no item has yet names a new item. Empty: the item of the
	// same name and type in the project, or a new one.
	ItemKey string
	// Supersedes is the node id of an earlier revision whose item this
	// write revises.
	Supersedes   string
	ChangeReason string
	Author       string
	Properties   map[string]any
	Links        []Link
	// Incoming are edges from existing nodes into the new revision, made
	// in the same transaction as the revision itself: here a Link's To
	// names the node the edge comes from (a parent position's CONTAINS
	// of a new child). An unknown source is ErrNotFound, and nothing is
	// written.
	Incoming []Link
	// IdempotencyKey (the callId): a write that repeats one returns what
	// the first wrote and writes nothing.
	IdempotencyKey string
}

// RecordWrite asks for a record: a node that is not a revision of an item.
type RecordWrite struct {
	ProjectID      string
	Type           string
	Name           string
	Properties     map[string]any
	Links          []Link
	IdempotencyKey string
	// ExpectHeads are item keys and the head revision each must still
	// have: checked in the write's own transaction, so a record that pins
	// revisions (a baseline) is never written over a head that moved. One
	// moved: ErrStaleRevision naming it, and nothing is written.
	ExpectHeads map[string]int
}

// movedHeads compares expected heads with the actual ones (head(key):
// revision, whether the item exists) and names each that moved, by key.
func movedHeads(expect map[string]int, head func(key string) (int, bool, error)) error {
	keys := make([]string, 0, len(expect))
	for k := range expect {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var moved []string
	for _, k := range keys {
		rev, ok, err := head(k)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			moved = append(moved, fmt.Sprintf("%s (no longer in the project)", ItemRef(k, expect[k])))
		case rev != expect[k]:
			moved = append(moved, fmt.Sprintf("%s (its head is now %s)", ItemRef(k, expect[k]), ItemRef(k, rev)))
		}
	}
	if len(moved) > 0 {
		return fmt.Errorf("%w: moved underneath the write: %s; read the heads again", ErrStaleRevision, strings.Join(moved, ", "))
	}
	return nil
}

// ProjectUpdate changes a project's name or description (nil: unchanged).
type ProjectUpdate struct {
	Name        *string
	Description *string
}

// Errors every store returns, so callers can tell them apart.
var (
	ErrNotFound      = errors.New("not found")
	ErrDuplicateName = errors.New("duplicate name")
	ErrStaleRevision = errors.New("stale revision")
	ErrInvalid       = errors.New("invalid")
)

// ItemRef formats KEY@n.
func ItemRef(key string, revision int) string { return key + "@" + strconv.Itoa(revision) }

// ParseItemRef splits "KEY@n" into KEY and n; a bare key has n == 0.
func ParseItemRef(ref string) (key string, revision int, err error) {
	ref = strings.TrimSpace(ref)
	key, rev, found := strings.Cut(ref, "@")
	if key == "" {
		return "", 0, fmt.Errorf("%w: item ref %q has no key", ErrInvalid, ref)
	}
	if !found {
		return key, 0, nil
	}
	n, err := strconv.Atoi(rev)
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%w: item ref %q: the revision after @ must be a positive number", ErrInvalid, ref)
	}
	return key, n, nil
}

// keyPrefixes gives each item type its key prefix (CAD-BRACKET).
var keyPrefixes = map[string]string{
	"cad_model":           "CAD",
	"constraint_set":      "CS",
	"decision":            "DEC",
	"prd":                 "PRD",
	"document":            "DOC",
	"component_selection": "BOM",
	"system_architecture": "ARCH",
	"intent":              "INT",
	"stakeholder_need":    "NEED",
	"objective":           "OBJ",
	HierarchyNodeType:     "HN",
}

// NewItemKey derives a key from an item's type and name: CAD-LEFT-BRACKET.
func NewItemKey(itemType, name string) string {
	prefix, ok := keyPrefixes[itemType]
	if !ok {
		prefix = strings.ToUpper(itemType)
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToUpper(name) {
		switch {
		case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	slug := strings.TrimRight(b.String(), "-")
	if len(slug) > 40 {
		slug = strings.TrimRight(slug[:40], "-")
	}
	if slug == "" {
		slug = "ITEM"
	}
	return prefix + "-" + slug
}
