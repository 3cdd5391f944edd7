package twin

import (
	"container/list"
	"sync"
)

// GeometryStash keeps the bytes of recent geometry exports, keyed by the
// (session_id, obj_id) the exporting tool reported, so twin.commit_geometry
// can take them server-side: an agent cannot reliably thread a
// multi-kilobyte base64 STEP from one call to the next, and a copy it
// carries back can only be equal to the stashed one or wrong.
type GeometryStash struct {
	mu      sync.Mutex
	max     int
	entries map[stashKey]*list.Element
	order   *list.List // front: most recently used
}

type stashKey struct{ session, object string }

type stashEntry struct {
	key  stashKey
	step []byte
}

// NewGeometryStash keeps at most max exports, dropping the least recently
// used.
func NewGeometryStash(max int) *GeometryStash {
	return &GeometryStash{max: max, entries: map[stashKey]*list.Element{}, order: list.New()}
}

// Put stashes an export's STEP bytes.
func (s *GeometryStash) Put(sessionID, objID string, step []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := stashKey{sessionID, objID}
	if el, ok := s.entries[k]; ok {
		el.Value.(*stashEntry).step = step
		s.order.MoveToFront(el)
		return
	}
	s.entries[k] = s.order.PushFront(&stashEntry{key: k, step: step})
	for s.order.Len() > s.max {
		last := s.order.Back()
		s.order.Remove(last)
		delete(s.entries, last.Value.(*stashEntry).key)
	}
}

// Get returns the stashed bytes of an export, if they are still kept.
func (s *GeometryStash) Get(sessionID, objID string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.entries[stashKey{sessionID, objID}]
	if !ok {
		return nil, false
	}
	s.order.MoveToFront(el)
	return el.Value.(*stashEntry).step, true
}
