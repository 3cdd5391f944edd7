package workflows

// KnowledgeIngestWorkflow is the workflow type of an ingest.
const KnowledgeIngestWorkflow = "KnowledgeIngest"

// KnowledgeIngestWorkflowID is an ingest's workflow ID: the id of the
// call that asked for it.
func KnowledgeIngestWorkflowID(callID string) string { return "knowledge-ingest-" + callID }

// KnowledgeProgressQuery is the query that reads how far an ingest is
// (KnowledgeIngestProgress), for a progress bar.
const KnowledgeProgressQuery = "progress"

// Activities of the KnowledgeIngest workflow.
const (
	// BeginKnowledgeSourceActivity checks the call's copy of the file and
	// records the source as indexing.
	BeginKnowledgeSourceActivity = "BeginKnowledgeSource"
	// IngestKnowledgePagesActivity reads, chunks and stores a batch of
	// pages.
	IngestKnowledgePagesActivity = "IngestKnowledgePages"
	// FinishKnowledgeSourceActivity marks the source indexed.
	FinishKnowledgeSourceActivity = "FinishKnowledgeSource"
)

// KnowledgePagesPerBatch is how many pages one IngestKnowledgePages
// activity reads: a crash loses at most one batch's work, and a 300-page
// PDF is 30 activities in the history, not 300.
const KnowledgePagesPerBatch = 10

// KnowledgeIngestRequest is one ingest of a document into the knowledge
// base. File is the call's own copy of what Origin named, which hashes to
// SHA256, so the file cannot change under the ingest.
type KnowledgeIngestRequest struct {
	CallID string            `json:"call_id"`
	File   string            `json:"file"`
	SHA256 string            `json:"sha256"`
	Origin string            `json:"origin"`
	Title  string            `json:"title"`
	Format string            `json:"format"`
	Tags   map[string]string `json:"tags,omitempty"`
	// PagesPerBatch overrides KnowledgePagesPerBatch (0: the default).
	PagesPerBatch int `json:"pages_per_batch,omitempty"`
}

// KnowledgeSourceBegun is the source an ingest indexes: its id, title
// and page count. AlreadyIndexed: the same bytes were indexed (by another
// ingest) since the call looked, and there is nothing to do.
type KnowledgeSourceBegun struct {
	SourceID       string `json:"source_id"`
	Title          string `json:"title"`
	Pages          int    `json:"pages"`
	Bytes          int64  `json:"bytes"`
	AlreadyIndexed bool   `json:"already_indexed"`
	// Chunks and IngestedAt (RFC 3339) are the indexed source's, when
	// AlreadyIndexed.
	Chunks     int    `json:"chunks,omitempty"`
	IngestedAt string `json:"ingested_at,omitempty"`
}

// KnowledgePagesRequest is one batch of pages, First to Last inclusive.
type KnowledgePagesRequest struct {
	SourceID string `json:"source_id"`
	File     string `json:"file"`
	SHA256   string `json:"sha256"`
	Format   string `json:"format"`
	First    int    `json:"first"`
	Last     int    `json:"last"`
}

// KnowledgePagesResult is what a batch stored.
type KnowledgePagesResult struct {
	Pages  int `json:"pages"`
	Chunks int `json:"chunks"`
}

// KnowledgeFinishRequest marks a source indexed with its counts.
type KnowledgeFinishRequest struct {
	SourceID string `json:"source_id"`
	Pages    int    `json:"pages"`
	Chunks   int    `json:"chunks"`
}

// KnowledgeSourceFinished is the indexed source as the store keeps it.
type KnowledgeSourceFinished struct {
	IngestedAt string `json:"ingested_at"`
	Chunks     int    `json:"chunks"`
}

// KnowledgeIngestProgress is how far an ingest is: pages read and stored
// of the document's pages.
type KnowledgeIngestProgress struct {
	SourceID  string `json:"source_id"`
	PagesDone int    `json:"pages_done"`
	Pages     int    `json:"pages"`
	Chunks    int    `json:"chunks"`
}

// KnowledgeIngestResult is an ingest's answer.
type KnowledgeIngestResult struct {
	SourceID       string            `json:"source_id"`
	Title          string            `json:"title"`
	Origin         string            `json:"origin"`
	Format         string            `json:"format"`
	SHA256         string            `json:"sha256"`
	Tags           map[string]string `json:"tags,omitempty"`
	Pages          int               `json:"pages"`
	Chunks         int               `json:"chunks"`
	Bytes          int64             `json:"bytes"`
	IngestedAt     string            `json:"ingested_at"`
	AlreadyIndexed bool              `json:"already_indexed"`
	Note           string            `json:"note"`
}
