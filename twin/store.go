package twin

import "context"

// Store is the twin's persistence. Every write is idempotent on its key (the
// callId of the tool call that made it), so an activity retried after a
// crash never writes twice; and every write is all or nothing.
type Store interface {
	// CreateProject refuses a name another project has, ignoring case
	// (ErrDuplicateName). A repeated idempotency key returns the project
	// it created.
	CreateProject(ctx context.Context, p Project, idempotencyKey string) (Project, error)
	GetProject(ctx context.Context, id string) (Project, error)
	// ListProjects lists projects by name.
	ListProjects(ctx context.Context) ([]Project, error)
	UpdateProject(ctx context.Context, id string, u ProjectUpdate) (Project, error)
	// DeleteProject removes a project and everything in it. A repeated
	// idempotency key is a success: the first call deleted it.
	DeleteProject(ctx context.Context, id, idempotencyKey string) error

	// CommitRevision writes the next revision of an item and moves its
	// head. A stale KEY@n fails with ErrStaleRevision; an unknown
	// supersedes node or link target with ErrNotFound; nothing is written
	// then.
	CommitRevision(ctx context.Context, w RevisionWrite) (Node, Item, error)
	// CommitRevisions writes several revisions, all of one project, as
	// one: each is checked as CommitRevision checks it (a KEY@n ItemKey
	// asserts that item's head), and if any check fails nothing is
	// written. Two writes may not revise one item. Writes whose
	// idempotency keys all made revisions already return those, in
	// order, and write nothing; an engineering change commits its patch
	// with it.
	CommitRevisions(ctx context.Context, ws []RevisionWrite) ([]Node, error)
	// RecordNode writes a record (evidence, a claim) and its links.
	RecordNode(ctx context.Context, w RecordWrite) (Node, error)

	GetNode(ctx context.Context, id string) (Node, error)
	// GetItem finds an item by key within a project.
	GetItem(ctx context.Context, projectID, key string) (Item, error)
	// ItemOfNode finds the item a revision node belongs to.
	ItemOfNode(ctx context.Context, nodeID string) (Item, error)
	// Revisions lists an item's revisions, oldest first.
	Revisions(ctx context.Context, projectID, key string) ([]Node, error)
	// Neighbors lists the nodes one edge away, in the given direction,
	// restricted to edge types when any are given; ordered by edge type,
	// then node creation.
	Neighbors(ctx context.Context, nodeID string, dir Direction, edgeTypes ...string) ([]Neighbor, error)
	// NodesByType lists a project's nodes of a type, oldest first.
	NodesByType(ctx context.Context, projectID, nodeType string) ([]Node, error)
	// Items lists a project's items by key.
	Items(ctx context.Context, projectID string) ([]Item, error)

	// Describe says what the store is, for health: its kind, where it
	// is, whether it answers and whether anything survives a restart.
	Describe(ctx context.Context) StoreStatus
	Close(ctx context.Context) error
}

// StoreStatus is a store's report for health.check.
type StoreStatus struct {
	Backend   string `json:"mode"`
	Address   string `json:"address,omitempty"`
	Reachable bool   `json:"reachable"`
	Durable   bool   `json:"durable"`
	Detail    string `json:"detail,omitempty"`
	Error     string `json:"error,omitempty"`
}
