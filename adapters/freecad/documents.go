package freecad

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ErrNotLive is the answer for a session whose document this process does
// not hold: never opened here, closed, or lost with its FreeCAD process
// (killed, crashed, discarded after a runaway op, or a worker restart).
// The caller rebuilds it: Open from the last saved .FCStd, then the
// journal's ops replayed with Apply.
var ErrNotLive = errors.New("the session's document is not live in this process")

// noLiveDocument is how the kernel says it holds no document for the
// token it was sent (python/session/fcsession/ops.py NO_LIVE_DOCUMENT).
const noLiveDocument = "no live document"

// Documents are the live editing sessions of this process: one FreeCAD
// process per session, each holding that session's one document,
// started on demand. The processes die with this one (the kernel asks
// for a parent-death signal as it starts), so none outlives the worker
// that holds it.
type Documents struct {
	root string

	mu     sync.Mutex
	docs   map[string]*document
	closed bool
}

// document is one session's FreeCAD process. mu keeps one op at a time
// on it: a document is edited in order.
type document struct {
	mu    sync.Mutex
	proc  *adapters.StdioAdapter // nil once lost
	token string                 // the opened document's, sent with every call
	pid   int
}

// NewDocuments keeps sessions for a worker whose workspace root is root:
// the session kernel's code is installed under it. The documents' own
// files (bases, saves, exports) live wherever the caller says.
func NewDocuments(root string) *Documents {
	return &Documents{root: root, docs: map[string]*document{}}
}

// Open makes sessionID's document base ("" for an empty document, else
// the absolute path of a .FCStd or STEP file), starting the session's
// FreeCAD process if it has none. A session already live is reset to
// base. The answer is describe_model's of the opened document, plus the
// process id as process_id.
func (d *Documents) Open(ctx context.Context, sessionID, base string) (json.RawMessage, error) {
	if sessionID == "" {
		return nil, protocol.Invalid("a session needs an id")
	}
	if base != "" && !filepath.IsAbs(base) {
		return nil, protocol.Invalid("base %q must be an absolute path to a .FCStd or STEP file, or empty", base)
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, protocol.Unavailable("the FreeCAD documents of this worker are closed")
	}
	doc := d.docs[sessionID]
	if doc == nil {
		doc = &document{}
		d.docs[sessionID] = doc
	}
	d.mu.Unlock()

	doc.mu.Lock()
	defer doc.mu.Unlock()
	if doc.proc == nil {
		proc, err := d.start(ctx)
		if err != nil {
			d.forget(sessionID, doc)
			return nil, err
		}
		doc.proc = proc
	}
	token := newToken()
	args, _ := json.Marshal(map[string]string{"base": base, "_document": token})
	res, err := doc.proc.Call(ctx, "open", args)
	if err != nil {
		// Whatever the document was, it is not what the caller asked for.
		d.lose(sessionID, doc)
		return nil, err
	}
	doc.token = token
	var opened map[string]any
	if err := json.Unmarshal(res.Data, &opened); err != nil {
		d.lose(sessionID, doc)
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the kernel's answer to open does not decode: " + err.Error()}
	}
	if pid, ok := opened["process_id"].(float64); ok {
		doc.pid = int(pid)
	}
	return res.Data, nil
}

// Apply runs one session op (SessionOps) on sessionID's document, as one
// transaction: when it fails, the document is as before. args are
// checked with CheckSessionOp. ErrNotLive (wrapped) when this process
// holds no document for the session, including when its FreeCAD process
// has died; an op that outruns ctx discards the process (FreeCAD cannot
// be interrupted), so the next Apply answers ErrNotLive.
func (d *Documents) Apply(ctx context.Context, sessionID, op string, args json.RawMessage) (json.RawMessage, error) {
	canonical, err := CheckSessionOp(op, args)
	if err != nil {
		return nil, err
	}
	return d.call(ctx, sessionID, op, canonical)
}

// Save writes sessionID's document to path (absolute, .FCStd), replacing
// any file there whole.
func (d *Documents) Save(ctx context.Context, sessionID, path string) error {
	if !filepath.IsAbs(path) || !strings.EqualFold(filepath.Ext(path), ".fcstd") {
		return protocol.Invalid("save needs an absolute path ending in .FCStd, not %q", path)
	}
	args, _ := json.Marshal(saveArgs{Path: path})
	_, err := d.call(ctx, sessionID, "save", args)
	return err
}

// Live says whether this process holds sessionID's document in a FreeCAD
// process that is still running.
func (d *Documents) Live(sessionID string) bool {
	d.mu.Lock()
	doc := d.docs[sessionID]
	d.mu.Unlock()
	if doc == nil {
		return false
	}
	doc.mu.Lock()
	defer doc.mu.Unlock()
	return doc.proc != nil && doc.token != "" && alive(doc.pid)
}

// Close ends sessionID's FreeCAD process and forgets its document. A
// session not live is no error.
func (d *Documents) Close(sessionID string) error {
	d.mu.Lock()
	doc := d.docs[sessionID]
	delete(d.docs, sessionID)
	d.mu.Unlock()
	if doc == nil {
		return nil
	}
	doc.mu.Lock()
	proc := doc.proc
	doc.proc, doc.token = nil, ""
	doc.mu.Unlock()
	if proc != nil {
		return proc.Close()
	}
	return nil
}

// CloseAll ends every session's process; later Opens are refused.
func (d *Documents) CloseAll() error {
	d.mu.Lock()
	d.closed = true
	ids := make([]string, 0, len(d.docs))
	for id := range d.docs {
		ids = append(ids, id)
	}
	d.mu.Unlock()
	var errs []error
	for _, id := range ids {
		errs = append(errs, d.Close(id))
	}
	return errors.Join(errs...)
}

// call sends one op with the document's token.
func (d *Documents) call(ctx context.Context, sessionID, op string, args json.RawMessage) (json.RawMessage, error) {
	d.mu.Lock()
	doc := d.docs[sessionID]
	d.mu.Unlock()
	if doc == nil {
		return nil, fmt.Errorf("session %s: %w (never opened here, or closed)", sessionID, ErrNotLive)
	}
	doc.mu.Lock()
	defer doc.mu.Unlock()
	if doc.proc == nil || doc.token == "" {
		return nil, fmt.Errorf("session %s: %w (its FreeCAD process is gone)", sessionID, ErrNotLive)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(adapters.ArgumentsOrEmpty(args), &fields); err != nil {
		return nil, protocol.Invalid("%s: the arguments must be a JSON object: %v", op, err)
	}
	fields["_document"], _ = json.Marshal(doc.token)
	withToken, _ := json.Marshal(fields)
	res, err := doc.proc.Call(ctx, op, withToken)
	if err == nil {
		return res.Data, nil
	}
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable && strings.Contains(pe.Details, noLiveDocument):
		// The process was restarted under us: it holds nothing.
		d.lose(sessionID, doc)
		return nil, fmt.Errorf("session %s: %w (its FreeCAD process was restarted)", sessionID, ErrNotLive)
	case errors.As(err, &pe) && pe.Retryable:
		// The process died with the op in flight.
		d.lose(sessionID, doc)
		return nil, fmt.Errorf("session %s: %w: %s", sessionID, ErrNotLive, pe.Details)
	case errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable:
		d.lose(sessionID, doc)
		return nil, fmt.Errorf("session %s: %w: %s", sessionID, ErrNotLive, pe.Details)
	case ctx.Err() != nil:
		// The op still runs in FreeCAD, which cannot be interrupted: the
		// document is in no known state, so it goes with its process.
		d.lose(sessionID, doc)
		return nil, &protocol.Error{Code: protocol.ToolTimeout, Details: fmt.Sprintf(
			"%s on session %s did not finish before the call's deadline (%v); FreeCAD cannot be interrupted, so the session's "+
				"FreeCAD process was discarded and the session must be rebuilt from its saved state and journal; "+
				"simplify the operation or allow it more time", op, sessionID, ctx.Err())}
	}
	return nil, err
}

// lose drops doc's process (the caller holds doc.mu) and the session.
func (d *Documents) lose(sessionID string, doc *document) {
	if doc.proc != nil {
		go doc.proc.Close() // waits a few seconds for the process to exit
	}
	doc.proc, doc.token, doc.pid = nil, "", 0
	d.forget(sessionID, doc)
}

func (d *Documents) forget(sessionID string, doc *document) {
	d.mu.Lock()
	if d.docs[sessionID] == doc {
		delete(d.docs, sessionID)
	}
	d.mu.Unlock()
}

// start installs the kernel and starts one FreeCAD process.
func (d *Documents) start(ctx context.Context) (*adapters.StdioAdapter, error) {
	dir, err := kernelBundle().install(d.root)
	if err != nil {
		return nil, err
	}
	py := python()
	if _, err := os.Stat(py); err != nil && strings.ContainsRune(py, '/') {
		return nil, protocol.Unavailable("%s, the Python with FreeCAD, is not there (%v); %s, or set %s", py, err, Install, EnvPython)
	}
	env := []string{
		"PYTHONPATH=" + pythonPath(dir),
		"METAFORGE_PARENT_PID=" + strconv.Itoa(os.Getpid()),
	}
	proc, err := adapters.StartStdio(ctx, AdapterID, []string{py, filepath.Join(dir, "run_session.py")}, env)
	if err != nil {
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.Code == protocol.ToolUnavailable {
			return nil, protocol.Unavailable("FreeCAD is not usable from %s: %s; %s", py, pe.Details, Install)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("starting a FreeCAD process: %w", ctx.Err())
		}
		return nil, protocol.Unavailable("the FreeCAD session process (%s) did not start: %v; %s", py, err, Install)
	}
	return proc, nil
}

// alive says whether process pid still runs. A pid of 0 (not reported)
// counts as alive: the next call finds out.
func alive(pid int) bool {
	if pid <= 0 {
		return true
	}
	return syscall.Kill(pid, 0) == nil
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
