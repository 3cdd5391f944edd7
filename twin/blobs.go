package twin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Blob names stored bytes by their content: a STEP file, a mesh, a
// document. Nodes keep the key and hash, never the bytes.
type Blob struct {
	Key    string `json:"key"` // "sha256:<hex>"
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// BlobStore keeps blobs as files named by their SHA-256 under a directory,
// so the same bytes are stored once and a key always names the same bytes.
type BlobStore struct {
	dir string
}

// NewBlobStore opens (creating) a blob store in dir.
func NewBlobStore(dir string) (*BlobStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create blob store %s: %w", dir, err)
	}
	return &BlobStore{dir: dir}, nil
}

// Dir is where the blobs live.
func (b *BlobStore) Dir() string { return b.dir }

// Put stores data and returns its key. Writing is atomic (a temporary file
// renamed into place), so a crash never leaves half a blob under a key.
func (b *BlobStore) Put(data []byte) (Blob, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	blob := Blob{Key: "sha256:" + h, SHA256: h, Bytes: len(data)}
	path := b.path(h)
	if _, err := os.Stat(path); err == nil {
		return blob, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Blob{}, fmt.Errorf("store blob: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".incoming-*")
	if err != nil {
		return Blob{}, fmt.Errorf("store blob: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return Blob{}, fmt.Errorf("store blob: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return Blob{}, fmt.Errorf("store blob: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return Blob{}, fmt.Errorf("store blob: %w", err)
	}
	return blob, nil
}

// Get returns a blob's bytes, checking them against the key.
func (b *BlobStore) Get(key string) ([]byte, error) {
	h, ok := strings.CutPrefix(key, "sha256:")
	if !ok || len(h) != 64 {
		return nil, fmt.Errorf("%w: blob key %q is not sha256:<64 hex digits>", ErrInvalid, key)
	}
	data, err := os.ReadFile(b.path(h))
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%w: no blob %s in %s", ErrNotFound, key, b.dir)
	}
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != h {
		return nil, fmt.Errorf("blob %s is corrupt: its bytes no longer hash to its key", key)
	}
	return data, nil
}

func (b *BlobStore) path(h string) string { return filepath.Join(b.dir, "sha256", h[:2], h[2:]) }
