package twin

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"
)

// MemoryStore keeps the twin in this process: the zero-config default.
// Nothing survives a restart, and Describe says so.
type MemoryStore struct {
	mu            sync.Mutex
	projects      map[string]Project
	projectByCall map[string]string
	nodes         map[string]Node
	nodeByCall    map[string]string
	items         map[string]map[string]*Item // project -> key -> item
	edges         []Edge
	sessions      map[string]string // session id -> project id
	deletedByCall map[string]string // idempotency key -> deleted project id
}

// NewMemoryStore returns an empty in-memory twin.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{
		projects:      map[string]Project{},
		projectByCall: map[string]string{},
		nodes:         map[string]Node{},
		nodeByCall:    map[string]string{},
		items:         map[string]map[string]*Item{},
	}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// CreateProject implements Store.
func (m *MemoryStore) CreateProject(ctx context.Context, p Project, idem string) (Project, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id, ok := m.projectByCall[idem]; ok && idem != "" {
		return m.projects[id], nil
	}
	if strings.TrimSpace(p.Name) == "" {
		return Project{}, fmt.Errorf("%w: a project needs a name", ErrInvalid)
	}
	for _, other := range m.projects {
		if strings.EqualFold(other.Name, p.Name) {
			return Project{}, fmt.Errorf("%w: project %q (%s) already has that name", ErrDuplicateName, other.Name, other.ID)
		}
	}
	if p.ID == "" {
		p.ID = NewProjectID()
	}
	p.CreatedAt, p.UpdatedAt = now(), now()
	m.projects[p.ID] = p
	m.items[p.ID] = map[string]*Item{}
	if idem != "" {
		m.projectByCall[idem] = p.ID
	}
	return p, nil
}

// GetProject implements Store.
func (m *MemoryStore) GetProject(ctx context.Context, id string) (Project, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.projects[id]
	if !ok {
		return Project{}, fmt.Errorf("%w: no project %s", ErrNotFound, id)
	}
	return p, nil
}

// ListProjects implements Store.
func (m *MemoryStore) ListProjects(ctx context.Context) ([]Project, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Project, 0, len(m.projects))
	for _, p := range m.projects {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := strings.ToLower(out[i].Name), strings.ToLower(out[j].Name); a != b {
			return a < b
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// UpdateProject implements Store.
func (m *MemoryStore) UpdateProject(ctx context.Context, id string, u ProjectUpdate) (Project, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.projects[id]
	if !ok {
		return Project{}, fmt.Errorf("%w: no project %s", ErrNotFound, id)
	}
	if u.Name != nil {
		if strings.TrimSpace(*u.Name) == "" {
			return Project{}, fmt.Errorf("%w: a project needs a name", ErrInvalid)
		}
		for _, other := range m.projects {
			if other.ID != id && strings.EqualFold(other.Name, *u.Name) {
				return Project{}, fmt.Errorf("%w: project %q (%s) already has that name", ErrDuplicateName, other.Name, other.ID)
			}
		}
		p.Name = *u.Name
	}
	if u.Description != nil {
		p.Description = *u.Description
	}
	p.UpdatedAt = now()
	m.projects[id] = p
	return p, nil
}

// DeleteProject implements Store.
func (m *MemoryStore) DeleteProject(ctx context.Context, id, idem string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if idem != "" && m.deletedByCall[idem] == id {
		return nil
	}
	if _, ok := m.projects[id]; !ok {
		return fmt.Errorf("%w: no project %s", ErrNotFound, id)
	}
	delete(m.projects, id)
	delete(m.items, id)
	for key, pid := range m.projectByCall {
		if pid == id {
			delete(m.projectByCall, key)
		}
	}
	gone := map[string]bool{}
	for nid, n := range m.nodes {
		if n.ProjectID == id {
			gone[nid] = true
			delete(m.nodes, nid)
			delete(m.nodeByCall, n.CallID)
		}
	}
	kept := m.edges[:0]
	for _, e := range m.edges {
		if !gone[e.From] && !gone[e.To] {
			kept = append(kept, e)
		}
	}
	m.edges = kept
	if idem != "" {
		if m.deletedByCall == nil {
			m.deletedByCall = map[string]string{}
		}
		m.deletedByCall[idem] = id
	}
	return nil
}

// CommitRevision implements Store.
func (m *MemoryStore) CommitRevision(ctx context.Context, w RevisionWrite) (Node, Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if nid, ok := m.nodeByCall[w.IdempotencyKey]; ok && w.IdempotencyKey != "" {
		n := m.nodes[nid]
		if n.ItemKey == "" {
			return Node{}, Item{}, fmt.Errorf("%w: idempotency key %s already wrote a %s record, not a revision", ErrInvalid, w.IdempotencyKey, n.Type)
		}
		return n, *m.items[n.ProjectID][n.ItemKey], nil
	}
	if _, ok := m.projects[w.ProjectID]; !ok {
		return Node{}, Item{}, fmt.Errorf("%w: no project %s", ErrNotFound, w.ProjectID)
	}
	item, isNew, err := m.resolveItem(w)
	if err != nil {
		return Node{}, Item{}, err
	}
	if err := m.checkLinks(w.ProjectID, w.Links); err != nil {
		return Node{}, Item{}, err
	}
	if err := m.checkIncoming(w.ProjectID, w.Incoming); err != nil {
		return Node{}, Item{}, err
	}
	n := m.writeRevision(w, item, isNew)
	return n, *item, nil
}

// writeRevision writes a checked revision and moves its item's head.
func (m *MemoryStore) writeRevision(w RevisionWrite, item *Item, isNew bool) Node {
	n := Node{
		ID: NewNodeID(), ProjectID: w.ProjectID, Type: w.ItemType, Name: w.Name, Properties: maps.Clone(w.Properties),
		ItemKey: item.Key, Revision: item.HeadRevision + 1, ChangeReason: w.ChangeReason, Author: w.Author,
		CallID: w.IdempotencyKey, CreatedAt: now(),
	}
	if !isNew {
		props := map[string]any{}
		if w.ChangeReason != "" {
			props["change_reason"] = w.ChangeReason
		}
		m.edges = append(m.edges, Edge{Type: EdgeRevisionOf, From: n.ID, To: item.HeadNodeID, Properties: props})
	}
	m.addNode(n, w.Links)
	for _, l := range w.Incoming {
		m.edges = append(m.edges, Edge{Type: l.Type, From: l.To, To: n.ID, Properties: maps.Clone(l.Properties)})
	}
	item.HeadRevision, item.HeadNodeID, item.Name, item.UpdatedAt = n.Revision, n.ID, n.Name, n.CreatedAt
	if isNew {
		item.CreatedAt = n.CreatedAt
		m.items[w.ProjectID][item.Key] = item
	}
	return n
}

// CommitRevisions implements Store: every write is checked before the
// first is applied.
func (m *MemoryStore) CommitRevisions(ctx context.Context, ws []RevisionWrite) ([]Node, error) {
	if err := checkBatch(ws); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if out, ok, err := repeatedBatch(ws, func(key string) (Node, bool, error) {
		id, ok := m.nodeByCall[key]
		return m.nodes[id], ok, nil
	}); err != nil || ok {
		return out, err
	}
	if _, ok := m.projects[ws[0].ProjectID]; !ok {
		return nil, fmt.Errorf("%w: no project %s", ErrNotFound, ws[0].ProjectID)
	}
	type checked struct {
		item  *Item
		isNew bool
	}
	plan := make([]checked, len(ws))
	seen := map[string]int{}
	for i, w := range ws {
		item, isNew, err := m.resolveItem(w)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[item.Key]; dup {
			return nil, fmt.Errorf("%w: writes %d and %d both revise %s; one batch writes one revision per item", ErrInvalid, j+1, i+1, item.Key)
		}
		seen[item.Key] = i
		if err := m.checkLinks(w.ProjectID, w.Links); err != nil {
			return nil, err
		}
		if err := m.checkIncoming(w.ProjectID, w.Incoming); err != nil {
			return nil, err
		}
		plan[i] = checked{item, isNew}
	}
	out := make([]Node, len(ws))
	for i, w := range ws {
		out[i] = m.writeRevision(w, plan[i].item, plan[i].isNew)
	}
	return out, nil
}

// resolveItem finds the item a write revises, or makes a new one (not yet
// stored). It writes nothing.
func (m *MemoryStore) resolveItem(w RevisionWrite) (*Item, bool, error) {
	items := m.items[w.ProjectID]
	var found *Item
	switch {
	case w.ItemKey != "":
		key, rev, err := ParseItemRef(w.ItemKey)
		if err != nil {
			return nil, false, err
		}
		found = items[key]
		if found == nil {
			if rev > 0 {
				return nil, false, fmt.Errorf("%w: %s names no item in this project; pass the bare key to start a new item", ErrNotFound, w.ItemKey)
			}
			return &Item{Key: key, ProjectID: w.ProjectID, ItemType: w.ItemType}, true, nil
		}
		if rev > 0 && rev != found.HeadRevision {
			return nil, false, fmt.Errorf("%w: %s is stale: the head of %s is revision %d (%s); read it and pass %s", ErrStaleRevision,
				w.ItemKey, key, found.HeadRevision, found.HeadRef(), found.HeadRef())
		}
	case w.Supersedes != "":
		n, ok := m.nodes[w.Supersedes]
		if !ok || n.ProjectID != w.ProjectID {
			return nil, false, fmt.Errorf("%w: supersedes %s: no such node in this project", ErrNotFound, w.Supersedes)
		}
		if n.ItemKey == "" {
			return nil, false, fmt.Errorf("%w: supersedes %s: that node is a %s record, not a revision of an item", ErrInvalid, n.ID, n.Type)
		}
		found = items[n.ItemKey]
	default:
		for _, it := range sortedItems(items) {
			if it.ItemType == w.ItemType && strings.EqualFold(it.Name, w.Name) {
				found = it
				break
			}
		}
		if found == nil {
			key := NewItemKey(w.ItemType, w.Name)
			for i := 2; items[key] != nil; i++ {
				key = fmt.Sprintf("%s-%d", NewItemKey(w.ItemType, w.Name), i)
			}
			return &Item{Key: key, ProjectID: w.ProjectID, ItemType: w.ItemType}, true, nil
		}
	}
	if found.ItemType != w.ItemType {
		return nil, false, fmt.Errorf("%w: %s is a %s item, not a %s", ErrInvalid, found.Key, found.ItemType, w.ItemType)
	}
	return found, false, nil
}

func sortedItems(items map[string]*Item) []*Item {
	out := make([]*Item, 0, len(items))
	for _, it := range items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func (m *MemoryStore) checkLinks(projectID string, links []Link) error {
	for _, l := range links {
		t, ok := m.nodes[l.To]
		if !ok || t.ProjectID != projectID {
			return fmt.Errorf("%w: %s link to %s: no such node in this project", ErrNotFound, l.Type, l.To)
		}
	}
	return nil
}

// checkIncoming refuses, naming the first, an incoming edge from a node
// that is not in the project.
func (m *MemoryStore) checkIncoming(projectID string, links []Link) error {
	for _, l := range links {
		t, ok := m.nodes[l.To]
		if !ok || t.ProjectID != projectID {
			return fmt.Errorf("%w: %s edge from %s: no such node in this project", ErrNotFound, l.Type, l.To)
		}
	}
	return nil
}

func (m *MemoryStore) addNode(n Node, links []Link) {
	m.nodes[n.ID] = n
	if n.CallID != "" {
		m.nodeByCall[n.CallID] = n.ID
	}
	for _, l := range links {
		m.edges = append(m.edges, Edge{Type: l.Type, From: n.ID, To: l.To, Properties: maps.Clone(l.Properties)})
	}
}

// RecordNode implements Store.
func (m *MemoryStore) RecordNode(ctx context.Context, w RecordWrite) (Node, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if nid, ok := m.nodeByCall[w.IdempotencyKey]; ok && w.IdempotencyKey != "" {
		return m.nodes[nid], nil
	}
	if _, ok := m.projects[w.ProjectID]; !ok {
		return Node{}, fmt.Errorf("%w: no project %s", ErrNotFound, w.ProjectID)
	}
	if err := m.checkLinks(w.ProjectID, w.Links); err != nil {
		return Node{}, err
	}
	if err := movedHeads(w.ExpectHeads, func(key string) (int, bool, error) {
		it := m.items[w.ProjectID][key]
		if it == nil {
			return 0, false, nil
		}
		return it.HeadRevision, true, nil
	}); err != nil {
		return Node{}, err
	}
	n := Node{ID: NewNodeID(), ProjectID: w.ProjectID, Type: w.Type, Name: w.Name, Properties: maps.Clone(w.Properties),
		CallID: w.IdempotencyKey, CreatedAt: now()}
	m.addNode(n, w.Links)
	return n, nil
}

// GetNode implements Store.
func (m *MemoryStore) GetNode(ctx context.Context, id string) (Node, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.nodes[id]
	if !ok {
		return Node{}, fmt.Errorf("%w: no node %s", ErrNotFound, id)
	}
	return n, nil
}

// GetItem implements Store.
func (m *MemoryStore) GetItem(ctx context.Context, projectID, key string) (Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it := m.items[projectID][key]
	if it == nil {
		return Item{}, fmt.Errorf("%w: no item %s in project %s", ErrNotFound, key, projectID)
	}
	return *it, nil
}

// ItemOfNode implements Store.
func (m *MemoryStore) ItemOfNode(ctx context.Context, nodeID string) (Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.nodes[nodeID]
	if !ok {
		return Item{}, fmt.Errorf("%w: no node %s", ErrNotFound, nodeID)
	}
	if n.ItemKey == "" {
		return Item{}, fmt.Errorf("%w: node %s is a %s record, not a revision of an item", ErrInvalid, nodeID, n.Type)
	}
	return *m.items[n.ProjectID][n.ItemKey], nil
}

// Revisions implements Store.
func (m *MemoryStore) Revisions(ctx context.Context, projectID, key string) ([]Node, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.items[projectID][key] == nil {
		return nil, fmt.Errorf("%w: no item %s in project %s", ErrNotFound, key, projectID)
	}
	var out []Node
	for _, n := range m.nodes {
		if n.ProjectID == projectID && n.ItemKey == key {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
	return out, nil
}

// Neighbors implements Store.
func (m *MemoryStore) Neighbors(ctx context.Context, nodeID string, dir Direction, edgeTypes ...string) ([]Neighbor, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.nodes[nodeID]; !ok {
		return nil, fmt.Errorf("%w: no node %s", ErrNotFound, nodeID)
	}
	want := func(t string) bool {
		if len(edgeTypes) == 0 {
			return true
		}
		for _, et := range edgeTypes {
			if et == t {
				return true
			}
		}
		return false
	}
	var out []Neighbor
	for _, e := range m.edges {
		if !want(e.Type) {
			continue
		}
		if (dir == Outgoing || dir == Both) && e.From == nodeID {
			out = append(out, Neighbor{Edge: e, Node: m.nodes[e.To]})
		}
		if (dir == Incoming || dir == Both) && e.To == nodeID {
			out = append(out, Neighbor{Edge: e, Node: m.nodes[e.From]})
		}
	}
	sortNeighbors(out)
	return out, nil
}

// sortNeighbors orders by edge type, then node creation, then id: the order
// every store returns.
func sortNeighbors(ns []Neighbor) {
	sort.SliceStable(ns, func(i, j int) bool {
		a, b := ns[i], ns[j]
		if a.Edge.Type != b.Edge.Type {
			return a.Edge.Type < b.Edge.Type
		}
		if !a.Node.CreatedAt.Equal(b.Node.CreatedAt) {
			return a.Node.CreatedAt.Before(b.Node.CreatedAt)
		}
		return a.Node.ID < b.Node.ID
	})
}

// NodesByType implements Store.
func (m *MemoryStore) NodesByType(ctx context.Context, projectID, nodeType string) ([]Node, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Node
	for _, n := range m.nodes {
		if n.ProjectID == projectID && n.Type == nodeType {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Items implements Store.
func (m *MemoryStore) Items(ctx context.Context, projectID string) ([]Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.projects[projectID]; !ok {
		return nil, fmt.Errorf("%w: no project %s", ErrNotFound, projectID)
	}
	var out []Item
	for _, it := range sortedItems(m.items[projectID]) {
		out = append(out, *it)
	}
	return out, nil
}

// Describe implements Store.
func (m *MemoryStore) Describe(ctx context.Context) StoreStatus {
	return StoreStatus{Backend: "memory", Reachable: true, Durable: false,
		Detail: "in-memory twin: nothing survives a restart; set NEO4J_URI to keep it"}
}

// Close implements Store.
func (m *MemoryStore) Close(ctx context.Context) error { return nil }

var _ Store = (*MemoryStore)(nil)

// BindSession implements SessionBindings.
func (m *MemoryStore) BindSession(ctx context.Context, sessionID, projectID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.projects[projectID]; !ok {
		return fmt.Errorf("%w: no project %s", ErrNotFound, projectID)
	}
	if m.sessions == nil {
		m.sessions = map[string]string{}
	}
	m.sessions[sessionID] = projectID
	return nil
}

// SessionProject implements SessionBindings.
func (m *MemoryStore) SessionProject(ctx context.Context, sessionID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.sessions[sessionID]
	if !ok {
		return "", fmt.Errorf("%w: session %s has no project", ErrNotFound, sessionID)
	}
	if _, live := m.projects[id]; !live {
		return "", fmt.Errorf("%w: session %s was bound to project %s, which is gone", ErrNotFound, sessionID, id)
	}
	return id, nil
}

var _ SessionBindings = (*MemoryStore)(nil)
