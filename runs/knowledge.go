package runs

import (
	"fmt"
	"path/filepath"

	"github.com/metaforge/metaforge/adapters"
	knowledgeadapter "github.com/metaforge/metaforge/adapters/knowledge"
	"github.com/metaforge/metaforge/workflows"
)

// Knowledge describes ingests into the knowledge base as the workflow
// that runs them (KnowledgeIngest): it backs knowledge.ingest, whose calls
// run it as their child and answer when the source is indexed.
type Knowledge struct{}

var _ knowledgeadapter.IngestEngine = Knowledge{}

// IngestProcess is workflow knowledge-ingest-<callId>.
func (Knowledge) IngestProcess(c knowledgeadapter.IngestCall) (adapters.Process, error) {
	in := workflows.KnowledgeIngestRequest{CallID: c.CallID, File: c.File, SHA256: c.SHA256, Origin: c.Origin, Title: c.Title,
		Format: c.Format, Tags: c.Tags}
	what := c.Origin
	if what != "inline" {
		what = filepath.Base(what)
	} else if c.Title != "" {
		what = fmt.Sprintf("%q (inline)", c.Title)
	}
	return process(workflows.KnowledgeIngestWorkflow, workflows.KnowledgeIngestWorkflowID(c.CallID), in, "",
		fmt.Sprintf("ingest %s into the knowledge base", what))
}
