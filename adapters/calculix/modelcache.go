package calculix

import (
	"os"
	"sync"
	"time"
)

// modelCache keeps the last few parsed meshes: a design loop or a
// convergence study solves the same mesh again and again, and parsing a
// large .inp each time would add to every solve. An entry is reused only
// while the file's size and modification time are unchanged.
type modelCache struct {
	mu      sync.Mutex
	entries []cachedModel
}

type cachedModel struct {
	path    string
	size    int64
	modTime time.Time
	model   *model
}

// modelCacheSize bounds the meshes kept.
const modelCacheSize = 4

func (c *modelCache) load(path string) (*model, error) {
	st, err := os.Stat(path)
	if err != nil {
		return loadModel(path)
	}
	c.mu.Lock()
	for i, e := range c.entries {
		if e.path == path && e.size == st.Size() && e.modTime.Equal(st.ModTime()) {
			// Move to the front: the most recently used is kept longest.
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			c.mu.Unlock()
			return e.model, nil
		}
	}
	c.mu.Unlock()
	md, err := loadModel(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append([]cachedModel{{path: path, size: st.Size(), modTime: st.ModTime(), model: md}}, c.entries...)
	if len(c.entries) > modelCacheSize {
		c.entries = c.entries[:modelCacheSize]
	}
	return md, nil
}

// openMesh confines mesh_file to the workspace's roots and loads it (from
// the cache when it has not changed).
func (a *Adapter) openMesh(meshFile string) (string, *model, error) {
	meshPath, err := a.ws.ResolveRead("mesh_file", meshFile)
	if err != nil {
		return "", nil, err
	}
	md, err := a.models.load(meshPath)
	return meshPath, md, err
}
