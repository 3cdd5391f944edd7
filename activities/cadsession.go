package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// CadDocuments are the live CAD documents of this worker, one per
// session (the freecad adapter's Documents): what a CadSession workflow's
// activities edit on the worker its worker session pinned.
type CadDocuments interface {
	// Open opens a session's document from base (a .FCStd or STEP path;
	// "" for a new document), replacing any it had.
	Open(ctx context.Context, sessionID, base string) (json.RawMessage, error)
	// Apply runs one op on the live document; a failed op leaves it as
	// it was.
	Apply(ctx context.Context, sessionID, op string, args json.RawMessage) (json.RawMessage, error)
	// Save writes the document as a .FCStd at path.
	Save(ctx context.Context, sessionID, path string) error
	// Live says whether this worker holds the session's document.
	Live(sessionID string) bool
	Close(sessionID string) error
}

// CadSessions are the CadSession workflow's activities on the session's
// worker: they open, edit and save its document in Documents, keeping
// the session's files in the workspace (shared by every worker) so that
// another worker can rebuild the document from them.
type CadSessions struct {
	Documents     CadDocuments
	WorkspaceRoot string
}

// cadExportOp is the document op that writes its STEP.
const cadExportOp = "export_model"

// folder is the session's own folder in the workspace.
func (c *CadSessions) folder(sessionID string) (string, error) {
	dir := filepath.Join(c.WorkspaceRoot, "cad-sessions", sessionID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", temporal.NewApplicationError(fmt.Sprintf("cannot make the session's folder %s: %v", dir, err), "io")
	}
	return dir, nil
}

// OpenCadDocument opens the session's document on this worker from its
// last saved state (or its base) and replays the journal onto it, in
// order, heartbeating as it goes.
func (c *CadSessions) OpenCadDocument(ctx context.Context, req workflows.OpenCadDocumentRequest) (workflows.OpenCadDocumentResponse, error) {
	stop := keepHeartbeating(ctx)
	defer stop()
	from := req.Base
	if req.Checkpoint != "" {
		from = req.Checkpoint
	}
	if _, err := c.Documents.Open(ctx, req.SessionID, from); err != nil {
		return workflows.OpenCadDocumentResponse{}, cadFailure(fmt.Sprintf("open the document from %s", orNew(from)), err)
	}
	for i, e := range req.Journal {
		if _, err := c.Documents.Apply(ctx, req.SessionID, e.Op, e.Args); err != nil {
			return workflows.OpenCadDocumentResponse{}, cadFailure(
				fmt.Sprintf("replay journalled edit %d of %d (%s)", i+1, len(req.Journal), e.Op), err)
		}
	}
	return workflows.OpenCadDocumentResponse{Worker: workerName(), Replayed: len(req.Journal)}, nil
}

// ApplyCadEdit runs one op on the live document. When this worker holds
// no live document for the session (its FreeCAD process died, or the
// worker restarted), it fails as CadDocumentNotLive, and the workflow
// rebuilds the document.
func (c *CadSessions) ApplyCadEdit(ctx context.Context, req workflows.ApplyCadEditRequest) (json.RawMessage, error) {
	if !c.Documents.Live(req.SessionID) {
		return nil, notLive(req.SessionID)
	}
	stop := keepHeartbeating(ctx)
	defer stop()
	out, err := c.Documents.Apply(ctx, req.SessionID, req.Edit.Op, req.Edit.Args)
	if err != nil {
		if !c.Documents.Live(req.SessionID) {
			return nil, notLive(req.SessionID)
		}
		return nil, cadFailure(req.Edit.Op, err)
	}
	return out, nil
}

// SaveCadDocument saves the document in the session's folder and, when
// asked, exports its STEP beside it.
func (c *CadSessions) SaveCadDocument(ctx context.Context, req workflows.SaveCadDocumentRequest) (workflows.CadSavedDocument, error) {
	if !c.Documents.Live(req.SessionID) {
		return workflows.CadSavedDocument{}, notLive(req.SessionID)
	}
	dir, err := c.folder(req.SessionID)
	if err != nil {
		return workflows.CadSavedDocument{}, err
	}
	saved := workflows.CadSavedDocument{Document: filepath.Join(dir, req.Name)}
	if err := c.Documents.Save(ctx, req.SessionID, saved.Document); err != nil {
		return saved, cadFailure("save the document", err)
	}
	if req.Export {
		saved.STEP = filepath.Join(dir, trimExt(req.Name)+".step")
		args, _ := json.Marshal(map[string]any{"session_id": req.SessionID, "path": saved.STEP})
		out, err := c.Documents.Apply(ctx, req.SessionID, cadExportOp, args)
		if err != nil {
			return saved, cadFailure("export the document's STEP", err)
		}
		saved.Export = out
	}
	return saved, nil
}

// CloseCadDocument lets the session's document and its FreeCAD process go.
func (c *CadSessions) CloseCadDocument(ctx context.Context, sessionID string) error {
	if err := c.Documents.Close(sessionID); err != nil {
		return cadFailure("close the document", err)
	}
	return nil
}

func notLive(sessionID string) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("this worker holds no live document for CAD session %s", sessionID), workflows.CadDocumentNotLive, nil)
}

// cadFailure is a document operation's error as the workflow and the
// client read it: final (an edit is not retried on a live document), its
// type the protocol code's name, its message what went wrong.
func cadFailure(what string, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return temporal.NewNonRetryableApplicationError(what+": "+pe.Details, pe.Code.Name(), nil)
	}
	return temporal.NewNonRetryableApplicationError(what+": "+err.Error(), protocol.ToolExecutionError.Name(), nil)
}

// workerName names this worker process as the session's state shows it.
func workerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%d@%s", os.Getpid(), host)
}

func orNew(path string) string {
	if path == "" {
		return "a new document"
	}
	return path
}

func trimExt(name string) string { return name[:len(name)-len(filepath.Ext(name))] }
