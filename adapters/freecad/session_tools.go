package freecad

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// SessionEngine reaches CAD editing sessions, which are durable processes
// (the CadSession workflow); the session tools know nothing of Temporal.
type SessionEngine interface {
	// SessionProcess describes a new session as the detached process
	// that holds it; the opening call's workflow starts it.
	SessionProcess(s SessionStart) (adapters.Process, error)
	// Operate asks a session to run one op of its document (an Update
	// of its workflow) and answers with the op's result. An unknown
	// session is ErrNoSession; a closed one ErrSessionClosed.
	Operate(ctx context.Context, sessionID, op string, args json.RawMessage, journal bool) (SessionAnswer, error)
	// CloseSession closes a session, saving its document, and answers
	// with where it stands.
	CloseSession(ctx context.Context, sessionID, reason, by string) (json.RawMessage, error)
}

// SessionStart is a session to open.
type SessionStart struct {
	SessionID, ProjectID, Base, Name, CreatedBy string
	IdleSeconds                                 int
}

// SessionAnswer is an op's answer and where the session stands.
type SessionAnswer struct {
	Data    json.RawMessage
	Edits   int
	Rebuilt bool
}

// Session engine errors.
var (
	ErrNoSession     = errors.New("no such CAD session")
	ErrSessionClosed = errors.New("the CAD session is closed")
)

// Session tool ids that are not ops of the document.
const (
	ToolOpenSession  = "freecad.open_session"
	ToolCloseSession = "freecad.close_session"
)

// sessionIdleMax bounds idle_seconds: a day.
const sessionIdleMax = 86400

// sessionTools are the editing-session tools: opening and closing a
// session, and one tool per op of its document (SessionOps), each an
// Update of the session's workflow.
func (a *Adapter) sessionTools() []tool {
	out := []tool{openSessionTool(), closeSessionTool()}
	for _, op := range SessionOps() {
		if op.Name == exportOp {
			out = append(out, exportModelTool(op))
			continue
		}
		out = append(out, opTool(op))
	}
	return out
}

type openSessionArgs struct {
	ProjectID   string `json:"project_id,omitempty" jsonschema:"The project whose cad_model the document is recorded as when the session closes; without one the document is saved in the workspace only."`
	BaseFile    string `json:"base_file,omitempty" jsonschema:"A STEP or FreeCAD document (.FCStd) in the workspace to start from (from freecad.import_step or twin.stage_work_product_file); omit for a new document."`
	Name        string `json:"name,omitempty" jsonschema:"The part's name: the cad_model the document is recorded as."`
	IdleSeconds int    `json:"idle_seconds,omitempty" jsonschema:"Close the session (saving its document) after this long without an operation; default 1800."`
}

func openSessionTool() tool {
	m := adapters.Manifest{
		ToolID: ToolOpenSession, AdapterID: AdapterID, Name: "Open a FreeCAD editing session",
		Description: "Open a CAD editing session: one live FreeCAD document, edited feature by feature with the freecad.* session " +
			"tools (create_sketch, pad_sketch, pocket_sketch, fillet, ..., describe_model, export_model) by its session_id. The session " +
			"is a durable workflow (cad-session-<session_id>): every edit is journalled, so if its worker dies the document is rebuilt " +
			"on another and the session_id stays the same. It closes with freecad.close_session, or by itself after idle_seconds, " +
			"saving the document (and, with a project_id, recording it as a cad_model).",
		Capability: "cad_session", TimeoutSeconds: 30,
	}
	return adapters.Declare(m, method((*Adapter).openSession),
		adapters.At("idle_seconds", adapters.Minimum(10), adapters.Maximum(sessionIdleMax)),
		adapters.At("name", adapters.MaxLength(200)))
}

func (a *Adapter) openSession(ctx context.Context, in openSessionArgs) (any, error) {
	if a.sessions == nil {
		return nil, protocol.Unavailable("editing sessions need the Temporal worker that holds them; this server runs none")
	}
	base := ""
	if in.BaseFile != "" {
		ext := strings.ToLower(in.BaseFile[strings.LastIndex(in.BaseFile, ".")+1:])
		if ext != "step" && ext != "stp" && ext != "fcstd" {
			return nil, protocol.Invalid("base_file %s is not a STEP (.step, .stp) or FreeCAD document (.FCStd)", in.BaseFile)
		}
		p, err := a.ws.ResolveRead("base_file", in.BaseFile)
		if err != nil {
			return nil, err
		}
		base = p
	}
	ci := adapters.CallInfoFrom(ctx)
	// The call's id names the session, so a retried call opens the same one.
	sum := sha256.Sum256([]byte("cad-session:" + ci.CallID))
	id := hex.EncodeToString(sum[:8])
	p, err := a.sessions.SessionProcess(SessionStart{SessionID: id, ProjectID: in.ProjectID, Base: base, Name: in.Name,
		CreatedBy: ci.Requester, IdleSeconds: in.IdleSeconds})
	if err != nil {
		return nil, err
	}
	return processAnswer{p}, nil
}

// processAnswer is a tool's answer that is a durable process to start.
type processAnswer struct{ p adapters.Process }

type closeSessionArgs struct {
	SessionID string `json:"session_id" jsonschema:"The session to close, from freecad.open_session."`
	Reason    string `json:"reason,omitempty" jsonschema:"Why, recorded with the session."`
}

func closeSessionTool() tool {
	m := adapters.Manifest{
		ToolID: ToolCloseSession, AdapterID: AdapterID, Name: "Close a FreeCAD editing session",
		Description: "Close a CAD editing session: its document is saved as a FreeCAD document and a STEP (placements baked) in the " +
			"session's folder, and, when the session has a project, recorded as the next revision of its cad_model. Answers with " +
			"the session's final state: saved (document, step, the STEP's measured properties, work_product_id) and its edit count.",
		Capability: "cad_session", TimeoutSeconds: 300,
	}
	return adapters.Declare(m, method((*Adapter).closeSession), adapters.At("session_id", adapters.Pattern(sessionIDPattern)))
}

// sessionIDPattern is a session id as freecad.open_session makes them.
const sessionIDPattern = "^[0-9a-f]{16}$"

func (a *Adapter) closeSession(ctx context.Context, in closeSessionArgs) (any, error) {
	if a.sessions == nil {
		return nil, protocol.Unavailable("editing sessions need the Temporal worker that holds them; this server runs none")
	}
	out, err := a.sessions.CloseSession(ctx, in.SessionID, in.Reason, adapters.CallInfoFrom(ctx).Requester)
	if err != nil {
		return nil, sessionError(in.SessionID, err)
	}
	return out, nil
}

// opTool is the tool of one document op: its arguments checked against
// the op's own type, then sent to the session as an Update.
func opTool(op SessionOp) tool {
	m := adapters.Manifest{
		ToolID: AdapterID + "." + op.Name, AdapterID: AdapterID, Name: op.Title,
		Description: op.Description + " Runs in the live document of a session from freecad.open_session (session_id).",
		Capability:  "cad_session", InputSchema: op.Schema(), TimeoutSeconds: 300,
	}
	return tool{Manifest: m, Run: func(ctx context.Context, a *Adapter, raw json.RawMessage) (any, error) {
		args, err := CheckSessionOp(op.Name, raw)
		if err != nil {
			return nil, err
		}
		var id struct {
			SessionID string `json:"session_id"`
		}
		_ = json.Unmarshal(args, &id)
		if a.sessions == nil {
			return nil, protocol.Unavailable("editing sessions need the Temporal worker that holds them; this server runs none")
		}
		ans, err := a.sessions.Operate(ctx, id.SessionID, op.Name, args, op.Edits)
		if err != nil {
			return nil, sessionError(id.SessionID, err)
		}
		return withSession(ans, id.SessionID)
	}}
}

// withSession adds the session's standing to an op's answer.
func withSession(ans SessionAnswer, sessionID string) (json.RawMessage, error) {
	var data map[string]any
	if err := json.Unmarshal(ans.Data, &data); err != nil || data == nil {
		data = map[string]any{"result": json.RawMessage(ans.Data)}
	}
	data["session_id"], data["session_edits"] = sessionID, ans.Edits
	if ans.Rebuilt {
		data["session_rebuilt"] = true
	}
	out, err := json.Marshal(data)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the op's answer cannot be encoded: " + err.Error()}
	}
	return out, nil
}

// sessionError says what to do about a session the engine could not reach.
func sessionError(sessionID string, err error) error {
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, ErrNoSession):
		return protocol.Invalid("no CAD session %s; open one with freecad.open_session", sessionID)
	case errors.Is(err, ErrSessionClosed):
		return protocol.Refusal("%v; open a new one with freecad.open_session (its document is kept: see freecad.close_session's answer)", err)
	}
	return fmt.Errorf("CAD session %s: %w", sessionID, err)
}

// exportOp is the op that writes the document's STEP. Its tool takes a
// plain file name in the call's own folder, never a path of the
// client's choosing, and gives the op the absolute path.
const exportOp = "export_model"

type exportModelToolArgs struct {
	SessionID  string               `json:"session_id" jsonschema:"The editing session, as freecad.open_session returned it."`
	OutputPath string               `json:"output_path,omitempty"`
	Objects    []string             `json:"objects,omitempty" jsonschema:"obj_ids to export; left out: every body with a solid and every loose solid."`
	Color      []float64            `json:"color,omitempty" jsonschema:"[r, g, b], 0-1 or 0-255, for every part."`
	PartColors map[string][]float64 `json:"part_colors,omitempty" jsonschema:"Part label to [r, g, b]; wins over color."`
}

func exportModelTool(op SessionOp) tool {
	m := adapters.Manifest{
		ToolID: AdapterID + "." + op.Name, AdapterID: AdapterID, Name: op.Title,
		Description: op.Description + " The STEP is written in the call's own folder (output_path names it) and its absolute path " +
			"returned as output_file. Runs in the live document of a session from freecad.open_session (session_id).",
		Capability: "cad_session", TimeoutSeconds: 300,
	}
	return adapters.Declare(m, method((*Adapter).exportModel), adapters.At("session_id", adapters.Pattern(sessionIDPattern)),
		outputRule("model.step", ".step or .stp"), adapters.At("color", adapters.MinItems(3), adapters.MaxItems(3)),
		adapters.At("color[]", adapters.Minimum(0), adapters.Maximum(255)))
}

// exportAnswer is export_model's answer, naming the file it wrote.
type exportAnswer struct {
	data json.RawMessage
	file string
}

func (e exportAnswer) MarshalJSON() ([]byte, error) { return e.data, nil }
func (e exportAnswer) written() []string            { return []string{e.file} }

func (a *Adapter) exportModel(ctx context.Context, in exportModelToolArgs) (any, error) {
	if a.sessions == nil {
		return nil, protocol.Unavailable("editing sessions need the Temporal worker that holds them; this server runs none")
	}
	name := in.OutputPath
	if name == "" {
		name = "model.step"
	}
	if ext := strings.ToLower(filepath.Ext(name)); ext != ".step" && ext != ".stp" {
		name += ".step"
	}
	dir, err := a.callDir(ctx)
	if err != nil {
		return nil, err
	}
	file, err := a.ws.ResolveWrite(dir, "output_path", name)
	if err != nil {
		return nil, err
	}
	req := map[string]any{"session_id": in.SessionID, "path": file}
	if len(in.Objects) > 0 {
		req["objects"] = in.Objects
	}
	if len(in.Color) > 0 {
		req["color"] = in.Color
	}
	if len(in.PartColors) > 0 {
		req["part_colors"] = in.PartColors
	}
	args, err := CheckSessionOp(exportOp, mustMarshal(req))
	if err != nil {
		return nil, err
	}
	ans, err := a.sessions.Operate(ctx, in.SessionID, exportOp, args, false)
	if err != nil {
		return nil, sessionError(in.SessionID, err)
	}
	data, err := withSession(ans, in.SessionID)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if json.Unmarshal(data, &m) == nil {
		m["output_file"] = file
		data = mustMarshal(m)
	}
	return exportAnswer{data: data, file: file}, nil
}

// mustMarshal encodes values that always encode (maps of JSON values).
func mustMarshal(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("freecad: encoding %T: %v", v, err))
	}
	return raw
}
