package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/components"
	"github.com/metaforge/metaforge/knowledge"
)

// library is the knowledge base and the component catalogue, kept
// together: in PostgreSQL when DATABASE_URL is set (the ledger's
// database), else in one SQLite file of the data dir, which a worker
// process on the same data dir shares.
type library struct {
	knowledge  knowledge.Store
	components components.Store
	// mode is health's name for where they are kept.
	mode string
}

// knowledgeFile is the SQLite file of the zero-config library.
const knowledgeFile = "knowledge.db"

// openLibrary opens the knowledge base and the catalogue. A DATABASE_URL
// that cannot be reached stops start-up, naming it, as the ledger does.
func openLibrary(ctx context.Context, dataDir string) (*library, error) {
	if url := os.Getenv("DATABASE_URL"); url != "" {
		k, err := knowledge.OpenPostgres(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("the knowledge base (DATABASE_URL): %w", err)
		}
		c, err := components.OpenPostgres(ctx, url)
		if err != nil {
			_ = k.Close()
			return nil, fmt.Errorf("the component catalogue (DATABASE_URL): %w", err)
		}
		return &library{knowledge: k, components: c, mode: "postgresql_fulltext"}, nil
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("the knowledge base needs the data dir %s: %w", dataDir, err)
	}
	path := filepath.Join(dataDir, knowledgeFile)
	k, err := knowledge.OpenSQLite(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("the knowledge base (%s): %w", path, err)
	}
	c, err := components.OpenSQLite(ctx, path)
	if err != nil {
		_ = k.Close()
		return nil, fmt.Errorf("the component catalogue (%s): %w", path, err)
	}
	return &library{knowledge: k, components: c, mode: "sqlite_fts5"}, nil
}

// knowledgeStore is the knowledge base, or nil without a library.
func (l *library) knowledgeStore() knowledge.Store {
	if l == nil {
		return nil
	}
	return l.knowledge
}

// catalogue is the component catalogue, or nil without a library.
func (l *library) catalogue() components.Store {
	if l == nil {
		return nil
	}
	return l.components
}

// close closes both stores.
func (l *library) close() {
	if l == nil {
		return
	}
	_ = l.knowledge.Close()
	_ = l.components.Close()
}

// probe is the knowledge base's line in health: what the search is
// (full text ranked by BM25, never called semantic) and where it is kept,
// measured by listing the sources.
func (l *library) probe(ctx context.Context) health.Component {
	c := health.Component{Mode: l.mode, Durable: true,
		Detail: l.knowledge.Describe() + "; search is full text ranked by BM25, not semantic (no embedding model is run)"}
	list, err := l.knowledge.Sources(ctx, nil)
	if err != nil {
		c.Error = err.Error()
		return c
	}
	c.Reachable = true
	c.Detail += fmt.Sprintf("; %d sources", len(list))
	return c
}
