package twin

import (
	"context"
	"reflect"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// MaxFound bounds FindByProperty's answer.
const MaxFound = 200

// PropertyQuery asks for the nodes of a project whose property Key equals
// Value (a string, float64 or bool).
type PropertyQuery struct {
	ProjectID string
	// Key is a property, or a dotted path into nested properties
	// (data.solver); name matches the node's name.
	Key   string
	Value any
	// NodeType, when given, searches only nodes of that type.
	NodeType string
	// AllRevisions also searches earlier revisions of items.
	AllRevisions bool
}

// Found is a node that matched, and the value it has.
type Found struct {
	Node  Node
	Value any
	// IsCurrentRevision says whether a revision is its item's head; nil
	// for a record.
	IsCurrentRevision *bool
}

// PropertyMatches is what a property search found.
type PropertyMatches struct {
	Nodes     []Found
	Truncated bool
	// Searched names what was looked through: the node type, or "every
	// item" and each record type.
	Searched []string
}

// FindByProperty finds the nodes whose property equals the value: numbers
// compare numerically, strings ignoring case and surrounding space, a list
// property matches when any element does. Current revisions and records
// only, unless AllRevisions; at most MaxFound nodes.
func FindByProperty(ctx context.Context, s Store, q PropertyQuery) (PropertyMatches, error) {
	items, err := s.Items(ctx, q.ProjectID)
	if err != nil {
		return PropertyMatches{}, err
	}
	heads := map[string]string{}
	for _, it := range items {
		heads[it.Key] = it.HeadNodeID
	}
	out := PropertyMatches{Nodes: []Found{}, Searched: []string{}}
	consider := func(n Node) bool {
		v, ok := propMatches(n, q.Key, q.Value)
		if !ok {
			return true
		}
		if len(out.Nodes) >= MaxFound {
			out.Truncated = true
			return false
		}
		f := Found{Node: n, Value: v}
		if n.ItemKey != "" {
			current := heads[n.ItemKey] == n.ID
			f.IsCurrentRevision = &current
		}
		out.Nodes = append(out.Nodes, f)
		return true
	}
	if q.NodeType != "" {
		nodes, err := s.NodesByType(ctx, q.ProjectID, q.NodeType)
		if err != nil {
			return PropertyMatches{}, err
		}
		out.Searched = append(out.Searched, q.NodeType)
		for _, n := range nodes {
			if n.ItemKey != "" && !q.AllRevisions && heads[n.ItemKey] != n.ID {
				continue
			}
			if !consider(n) {
				break
			}
		}
		return out, nil
	}
	// The store has no property query: walk every item, then every
	// record type the tools write.
	more := true
	for _, it := range items {
		if !more {
			break
		}
		var nodes []Node
		if q.AllRevisions {
			if nodes, err = s.Revisions(ctx, q.ProjectID, it.Key); err != nil {
				return PropertyMatches{}, err
			}
		} else {
			n, err := s.GetNode(ctx, it.HeadNodeID)
			if err != nil {
				return PropertyMatches{}, err
			}
			nodes = []Node{n}
		}
		for _, n := range nodes {
			if more = consider(n); !more {
				break
			}
		}
	}
	out.Searched = append(out.Searched, "every item")
	for _, rt := range RecordTypes() {
		if !more {
			break
		}
		nodes, err := s.NodesByType(ctx, q.ProjectID, rt)
		if err != nil {
			return PropertyMatches{}, err
		}
		out.Searched = append(out.Searched, rt)
		for _, n := range nodes {
			if more = consider(n); !more {
				break
			}
		}
	}
	return out, nil
}

// propMatches looks a property up (a dotted path reaches into nested
// objects; name is the node's name when no property has it) and says
// whether it equals want.
func propMatches(n Node, key string, want any) (any, bool) {
	v, ok := lookupProp(n.Properties, key)
	if !ok && key == "name" {
		v, ok = n.Name, true
	}
	if !ok {
		return nil, false
	}
	if rv := reflect.ValueOf(v); v != nil && (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) {
		for i := 0; i < rv.Len(); i++ {
			if valueEquals(rv.Index(i).Interface(), want) {
				return v, true
			}
		}
		return nil, false
	}
	return v, valueEquals(v, want)
}

func lookupProp(props map[string]any, key string) (any, bool) {
	if v, ok := props[key]; ok {
		return v, true
	}
	head, rest, found := strings.Cut(key, ".")
	if !found {
		return nil, false
	}
	inner, ok := props[head].(map[string]any)
	if !ok {
		return nil, false
	}
	return lookupProp(inner, rest)
}

func valueEquals(have, want any) bool {
	switch w := want.(type) {
	case float64:
		if h, ok := NumberOf(have); ok {
			return units.Equal(h, w)
		}
		if s, ok := have.(string); ok {
			h, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			return err == nil && units.Equal(h, w)
		}
	case bool:
		h, ok := have.(bool)
		return ok && h == w
	case string:
		if h, ok := have.(string); ok {
			return strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(w))
		}
		if h, ok := NumberOf(have); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
			return err == nil && units.Equal(h, f)
		}
	}
	return false
}
