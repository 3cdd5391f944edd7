package adapters

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Registry is the catalogue of adapters and their tools. It is filled at
// start-up and read concurrently afterwards.
type Registry struct {
	mu       sync.RWMutex
	adapters map[string]Adapter
	tools    map[string]registeredTool
	unserved map[string]string // tool id -> why this build does not serve it
}

type registeredTool struct {
	manifest Manifest
	adapter  Adapter
	schema   *inputSchema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{adapters: map[string]Adapter{}, tools: map[string]registeredTool{}}
}

// Register adds an adapter and all its tools. A tool id must be
// "<adapter_id>.<name>", unique, with a valid input schema.
func (r *Registry) Register(a Adapter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := a.ID()
	if _, dup := r.adapters[id]; dup {
		return fmt.Errorf("adapter %q is registered twice", id)
	}
	added := map[string]registeredTool{}
	for _, m := range a.Manifests() {
		m = m.withDefaults()
		if m.AdapterID != id {
			return fmt.Errorf("tool %q declares adapter %q but belongs to adapter %q", m.ToolID, m.AdapterID, id)
		}
		if !strings.HasPrefix(m.ToolID, id+".") || len(m.ToolID) == len(id)+1 {
			return fmt.Errorf("tool id %q must be %q followed by the tool's name", m.ToolID, id+".")
		}
		if m.TimeoutSeconds < MinTimeoutSeconds || m.TimeoutSeconds > MaxTimeoutSeconds {
			return fmt.Errorf("tool %q: timeout_seconds %d is outside %d..%d", m.ToolID, m.TimeoutSeconds, MinTimeoutSeconds, MaxTimeoutSeconds)
		}
		_, elsewhere := r.tools[m.ToolID]
		if _, again := added[m.ToolID]; elsewhere || again {
			return fmt.Errorf("tool %q is registered twice", m.ToolID)
		}
		schema, err := compileInputSchema(m.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %q: %w", m.ToolID, err)
		}
		added[m.ToolID] = registeredTool{manifest: m, adapter: a, schema: schema}
	}
	r.adapters[id] = a
	for k, v := range added {
		r.tools[k] = v
	}
	return nil
}

// Tool returns a tool's manifest and the adapter that serves it.
func (r *Registry) Tool(toolID string) (Manifest, Adapter, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[toolID]
	return t.manifest, t.adapter, ok
}

// RunsLocal says whether a call of the tool may run as a local activity
// on the worker that runs its workflow: the manifest says it is short, it
// is idempotent (a local activity whose worker dies before its result is
// recorded runs again, so only a tool safe to repeat qualifies), and its
// adapter is in this process, not reached over stdio or HTTP.
func (r *Registry) RunsLocal(toolID string) bool {
	m, a, ok := r.Tool(toolID)
	if !ok || !m.Short || !m.Idempotent {
		return false
	}
	switch a.(type) {
	case *HTTPAdapter, *StdioAdapter:
		return false
	}
	return true
}

// Adapter returns the adapter with the given id.
func (r *Registry) Adapter(id string) (Adapter, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.adapters[id]
	return a, ok
}

// Manifests lists every tool, sorted by id.
func (r *Registry) Manifests() []Manifest {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Manifest, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t.manifest)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ToolID < out[j].ToolID })
	return out
}

// Adapters lists every adapter, sorted by id.
func (r *Registry) Adapters() []Adapter {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Adapter, 0, len(r.adapters))
	for _, a := range r.adapters {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}

// AdapterIDs lists the adapter ids, sorted.
func (r *Registry) AdapterIDs() []string {
	var ids []string
	for _, a := range r.Adapters() {
		ids = append(ids, a.ID())
	}
	return ids
}

// ToolCount is the number of registered tools.
func (r *Registry) ToolCount() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// ValidateArguments checks a call's arguments against the tool's input
// schema. The error names the field to fix.
func (r *Registry) ValidateArguments(toolID string, args []byte) error {
	r.mu.RLock()
	t, ok := r.tools[toolID]
	r.mu.RUnlock()
	if !ok {
		return fmt.Errorf("unknown tool %q", toolID)
	}
	return t.schema.validate(toolID, args)
}

// Suggest returns up to three registered tool ids closest to an unknown one,
// for a did-you-mean.
func (r *Registry) Suggest(toolID string) []string {
	r.mu.RLock()
	ids := make([]string, 0, len(r.tools))
	for id := range r.tools {
		ids = append(ids, id)
	}
	r.mu.RUnlock()
	return closest(toolID, ids, 3)
}

// closest ranks candidates by edit distance to s, ties by name, and keeps
// those within half of s's length (so nonsense suggests nothing).
func closest(s string, candidates []string, n int) []string {
	type scored struct {
		id   string
		dist int
	}
	limit := max(3, len(s)/2)
	var ranked []scored
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		// A query that names only the part after the dot ("check_budget")
		// is as close as its distance to that part.
		if i := strings.IndexByte(c, '.'); i >= 0 {
			d = min(d, editDistance(strings.ToLower(s), strings.ToLower(c[i+1:])))
		}
		if d <= limit {
			ranked = append(ranked, scored{c, d})
		}
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.id, b.id)
	})
	var out []string
	for i := 0; i < len(ranked) && i < n; i++ {
		out = append(out, ranked[i].id)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
