package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters/health"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/twin"
)

// openTwin opens the twin: Neo4j when NEO4J_URI is set, else in memory
// (nothing survives a restart; health says so). Blobs go to the data dir.
func openTwin(ctx context.Context, dataDir string, allowMutations bool, logger *slog.Logger) (*twinadapter.Backend, error) {
	blobs, err := twin.NewBlobStore(filepath.Join(dataDir, "blobs"))
	if err != nil {
		return nil, err
	}
	b := &twinadapter.Backend{Blobs: blobs, AllowMutations: allowMutations}
	if uri := os.Getenv("NEO4J_URI"); uri != "" {
		store, err := twin.OpenNeo4j(ctx, uri, os.Getenv("NEO4J_USER"), os.Getenv("NEO4J_PASSWORD"))
		if err != nil {
			return nil, fmt.Errorf("the twin (NEO4J_URI): %w", err)
		}
		b.Store, b.Sessions, b.Cypher = store, store, store
		logger.Info("twin on Neo4j", "uri", uri)
		return b, nil
	}
	mem := twin.NewMemoryStore()
	b.Store, b.Sessions = mem, mem
	return b, nil
}

// twinProbe reports the twin store for health, as measured.
func twinProbe(s twin.Store) health.Probe {
	return func(ctx context.Context) health.Component {
		st := s.Describe(ctx)
		return health.Component{Mode: st.Backend, Address: st.Address, Reachable: st.Reachable, Durable: st.Durable, Detail: st.Detail, Error: st.Error}
	}
}

// browserMeshCache is where the dashboard keeps parts tessellated for the
// browser: beside the blob store, in the data dir; "" (no cache) without
// one.
func browserMeshCache(blobs *twin.BlobStore) string {
	if blobs == nil {
		return ""
	}
	return filepath.Join(filepath.Dir(blobs.Dir()), "browser-meshes")
}
