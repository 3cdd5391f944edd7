package simresults

import "sync"

// solutions keeps the last few results read from their files. A page
// switching between a result's fields, or two pages comparing it, would
// otherwise parse the same mesh and results file again each time; a
// finished call's files do not change, so what was read stays true.
// Failures are not kept: the next request tries again.
type solutions struct {
	mu    sync.Mutex
	limit int
	order []string // least recently used first
	byID  map[string]*solution
}

func newSolutions(limit int) *solutions {
	return &solutions{limit: limit, byID: map[string]*solution{}}
}

// get returns callID's solution, reading it with read when not kept. A
// nil cache keeps nothing.
func (c *solutions) get(callID string, read func() (*solution, error)) (*solution, error) {
	if c == nil {
		return read()
	}
	c.mu.Lock()
	if s, ok := c.byID[callID]; ok {
		c.touch(callID)
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	s, err := read()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[callID]; !ok {
		c.byID[callID] = s
		c.order = append(c.order, callID)
		if len(c.order) > c.limit {
			delete(c.byID, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.touch(callID)
	return c.byID[callID], nil
}

// touch moves callID to the most recently used end.
func (c *solutions) touch(callID string) {
	for i, id := range c.order {
		if id == callID {
			c.order = append(append(c.order[:i:i], c.order[i+1:]...), callID)
			return
		}
	}
}
