package gmsh

import (
	"os"

	"github.com/metaforge/metaforge/internal/meshfile"
	"github.com/metaforge/metaforge/protocol"
)

// writeOutputs writes the deck and its face table beside it. The deck is
// written under a temporary name and renamed last, so a reader never finds
// a half-written deck, nor a deck without its table.
func writeOutputs(meshPath string, m *gmshMesh, faces []meshFace, table meshfile.Table) error {
	partial := meshPath + ".partial"
	f, err := os.Create(partial)
	if err != nil {
		return protocol.Transient("cannot write the mesh deck: %v", err)
	}
	err = writeDeck(f, m, faces)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = meshfile.Write(meshPath, table)
	}
	if err == nil {
		err = os.Rename(partial, meshPath)
	}
	if err != nil {
		os.Remove(partial)
		return protocol.Transient("cannot write the mesh files: %v", err)
	}
	return nil
}
