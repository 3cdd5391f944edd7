package runs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// ProjectCreateRequest is POST /v1/projects' body: project.create's own
// arguments. Who creates it is the request's credential, never the body.
type ProjectCreateRequest struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// create is POST /v1/projects: project.create run as the MCP tool runs,
// a ToolCall held for and decided by the identified person who asked
// (DecidedCall), so only a person writes and the Temporal UI shows it.
func (h Projects) create(w http.ResponseWriter, r *http.Request) {
	decider, ok := h.Authority.Decider(w, r)
	if !ok {
		return
	}
	if h.Runs == nil {
		httpjson.Error(w, http.StatusServiceUnavailable, "this server reaches no Temporal to run project.create: start metaforge serve with its workers")
		return
	}
	var body ProjectCreateRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&body); err != nil {
		httpjson.Error(w, http.StatusBadRequest, `the body must be {"name": NAME, "description": TEXT}: `+err.Error())
		return
	}
	body.Name = strings.TrimSpace(body.Name)
	if body.Name == "" {
		httpjson.Error(w, http.StatusBadRequest, `name the project: {"name": NAME}`)
		return
	}
	raw, _ := json.Marshal(body)
	if err := h.Runs.Registry.ValidateArguments("project.create", raw); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	res, err := h.Runs.DecidedCall(r.Context(), "project.create", raw, "", fmt.Sprintf("project %q by %s", body.Name, decider.Name), decider.Name)
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if res.Status != workflows.StatusSuccess {
		status, msg := http.StatusBadGateway, "project.create failed"
		if res.Error != nil {
			msg = res.Error.Details
			switch protocol.Code(res.Error.Code) {
			case protocol.ToolExecutionError:
				status = http.StatusConflict // a name already taken, the twin's own refusal
			case protocol.InvalidParams:
				status = http.StatusBadRequest
			}
		}
		httpjson.Write(w, status, map[string]any{"error": msg, "call_id": res.CallID})
		return
	}
	if h.Logger != nil {
		h.Logger.Info("project_created", "name", body.Name, "decided_by", decider.Name, "call_id", res.CallID)
	}
	httpjson.Write(w, http.StatusCreated, map[string]any{"call_id": res.CallID, "workflow_id": workflows.CallWorkflowID(res.CallID),
		"result": json.RawMessage(res.Data)})
}
