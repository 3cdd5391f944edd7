package workflows

import (
	"encoding/json"
	"time"
)

// CadSessionWorkflowID is a CAD editing session's workflow: one per
// session, found by the session's id.
func CadSessionWorkflowID(sessionID string) string { return "cad-session-" + sessionID }

// CadSessionWorkflow is the CadSession workflow's type name.
const CadSessionWorkflow = "CadSession"

// CadSessionAdapter is the adapter whose worker holds a session's live
// document: the session's activities run on its queue, pinned to one
// worker by a Temporal worker session.
const CadSessionAdapter = "freecad"

// The CadSession workflow's query and updates.
const (
	CadSessionStateQuery  = "cad_session_state"
	CadEditUpdate         = "edit"
	CloseCadSessionUpdate = "close"
)

// The CadSession workflow's activities. The document activities run on
// the session's worker (its worker session's queue); the record activity
// on the workflows' queue, where the twin is.
const (
	OpenCadDocumentActivity  = "OpenCadDocument"
	ApplyCadEditActivity     = "ApplyCadEdit"
	SaveCadDocumentActivity  = "SaveCadDocument"
	CloseCadDocumentActivity = "CloseCadDocument"
	RecordCadSessionActivity = "RecordCadSession"
)

// CadDocumentNotLive is the error type ApplyCadEdit fails with when its
// worker holds no live document for the session (its FreeCAD process
// died, or the worker restarted): the workflow rebuilds the document and
// applies the edit again.
const CadDocumentNotLive = "CadDocumentNotLive"

// Defaults a session's input may override.
const (
	// DefaultCadIdle is how long a session waits for an edit before it
	// closes itself and keeps its document as a work product.
	DefaultCadIdle = 30 * time.Minute
	// DefaultCadCheckpointEvery is how many journalled edits pass between
	// saved documents: a rebuild replays at most this many.
	DefaultCadCheckpointEvery = 10
	// DefaultCadHeartbeat is how soon a dead worker is noticed: the
	// worker session's heartbeat timeout.
	DefaultCadHeartbeat = 10 * time.Second
)

// CadSessionInput opens a session.
type CadSessionInput struct {
	SessionID string `json:"session_id"`
	// ProjectID, when given, is where the session's document is recorded
	// as a work product when it closes.
	ProjectID string `json:"project_id,omitempty"`
	// Base is the document the session starts from: an absolute path of a
	// STEP or .FCStd in the workspace, or empty for a new document.
	Base string `json:"base,omitempty"`
	// Name names the part the session makes (the work product's name).
	Name      string `json:"name,omitempty"`
	CreatedBy string `json:"created_by,omitempty"`
	// IdleSeconds, CheckpointEvery and HeartbeatSeconds override the
	// defaults above (0: the default).
	IdleSeconds      int `json:"idle_seconds,omitempty"`
	CheckpointEvery  int `json:"checkpoint_every,omitempty"`
	HeartbeatSeconds int `json:"heartbeat_seconds,omitempty"`
}

// CadEdit is one operation asked of a session: an op of the document
// ("pad_sketch", "describe_model", ...) with its checked arguments.
type CadEdit struct {
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
	// Journal marks an edit that changes the document: it is journalled,
	// so a rebuilt document has it. Reads are not.
	Journal bool `json:"journal"`
}

// CadEditResult is an operation's answer, and where the session stands.
type CadEditResult struct {
	Data json.RawMessage `json:"data"`
	// Edits is how many journalled edits the document has had.
	Edits int `json:"edits"`
	// Rebuilt says the document was rebuilt from its last saved state and
	// journal before this operation, because its worker or FreeCAD
	// process had died.
	Rebuilt bool `json:"rebuilt,omitempty"`
}

// CloseCadSessionRequest closes a session: why, and who asks.
type CloseCadSessionRequest struct {
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
}

// CadSession states.
const (
	CadSessionOpen    = "open"
	CadSessionClosing = "closing"
	CadSessionClosed  = "closed"
)

// CadSessionState is where a session stands: its query's answer, and the
// workflow's result once it has closed.
type CadSessionState struct {
	SessionID string `json:"session_id"`
	ProjectID string `json:"project_id,omitempty"`
	Status    string `json:"status"`
	// Edits counts the journalled edits; Journal is how many of them a
	// rebuild would replay onto Checkpoint (the last saved document, or
	// the base when none was saved yet).
	Edits      int    `json:"edits"`
	Journal    int    `json:"journal"`
	Checkpoint string `json:"checkpoint,omitempty"`
	// Rebuilds counts the times the document was rebuilt on a worker
	// after its worker or FreeCAD process died.
	Rebuilds int `json:"rebuilds"`
	// Worker names the host holding the live document.
	Worker     string     `json:"worker,omitempty"`
	LastEditAt *time.Time `json:"last_edit_at,omitempty"`
	// Set when the session has closed.
	ClosedReason string            `json:"closed_reason,omitempty"`
	Saved        *CadSavedDocument `json:"saved,omitempty"`
	Error        string            `json:"error,omitempty"`
}

// OpenCadDocumentRequest opens a session's document on the session's
// worker: from Checkpoint when there is one, else from Base, then with
// Journal replayed onto it.
type OpenCadDocumentRequest struct {
	SessionID  string    `json:"session_id"`
	Base       string    `json:"base,omitempty"`
	Checkpoint string    `json:"checkpoint,omitempty"`
	Journal    []CadEdit `json:"journal,omitempty"`
}

// OpenCadDocumentResponse says which worker holds the document.
type OpenCadDocumentResponse struct {
	Worker   string `json:"worker"`
	Replayed int    `json:"replayed"`
}

// ApplyCadEditRequest applies one operation to a session's live document.
type ApplyCadEditRequest struct {
	SessionID string  `json:"session_id"`
	Edit      CadEdit `json:"edit"`
}

// SaveCadDocumentRequest saves a session's document. Name is the file
// name inside the session's folder of the workspace; Export also writes
// the document's STEP beside it.
type SaveCadDocumentRequest struct {
	SessionID string `json:"session_id"`
	Name      string `json:"name"`
	Export    bool   `json:"export,omitempty"`
}

// CadSavedDocument is a saved document: the .FCStd (what a rebuild opens)
// and, when exported, its STEP with the properties measured from it.
type CadSavedDocument struct {
	Document string          `json:"document"`
	STEP     string          `json:"step,omitempty"`
	Export   json.RawMessage `json:"export,omitempty"`
	// WorkProductID and WorkProductRef name the twin cad_model revision
	// the closed session's document was recorded as (only with a
	// project): its node id, and its KEY@n.
	WorkProductID  string `json:"work_product_id,omitempty"`
	WorkProductRef string `json:"work_product_ref,omitempty"`
}

// CadRecorded is the cad_model revision a session's document became.
type CadRecorded struct {
	NodeID  string `json:"node_id"`
	ItemRef string `json:"item_ref"`
}

// RecordCadSessionRequest records a closed session's document in the
// twin, as a work product of its project.
type RecordCadSessionRequest struct {
	SessionID string           `json:"session_id"`
	ProjectID string           `json:"project_id"`
	Name      string           `json:"name,omitempty"`
	CreatedBy string           `json:"created_by,omitempty"`
	Saved     CadSavedDocument `json:"saved"`
}
