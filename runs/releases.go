package runs

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// Releases serves baselines, the maturity gates, release packages and
// promotion over REST: GET/POST /v1/baselines, GET/POST /v1/releases, GET
// /v1/promotion (the gates now and every attempt) and POST
// /v1/promotion/attempt. Reads go to the twin; every write is the tool's
// own call (twin.create_baseline, twin.create_release_package,
// twin.attempt_promotion) as a held ToolCall the requesting person decides
// (DecidedCall), so only an identified person writes, and the Temporal UI
// shows each.
type Releases struct {
	Runs      *Service
	Twin      twin.Store
	Authority approvals.Authority
	Logger    *slog.Logger
	// TemporalUI is the Temporal UI's base URL, for each call's link.
	TemporalUI string
}

// Register adds the routes to mux.
func (h Releases) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/baselines", h.baselines)
	mux.HandleFunc("POST /v1/baselines", h.write("twin.create_baseline", "baseline"))
	mux.HandleFunc("GET /v1/releases", h.releases)
	mux.HandleFunc("POST /v1/releases", h.write("twin.create_release_package", "release package"))
	mux.HandleFunc("GET /v1/promotion", h.promotion)
	mux.HandleFunc("POST /v1/promotion/attempt", h.write("twin.attempt_promotion", "promotion attempt"))
}

// Pages is none: the routes have no page of their own.
func (h Releases) Pages() []string { return nil }

// project is the ?project= of a read, or a 400 saying to give it.
func project(w http.ResponseWriter, r *http.Request) (string, bool) {
	p := strings.TrimSpace(r.URL.Query().Get("project"))
	if p == "" {
		httpjson.Error(w, http.StatusBadRequest, "name the project: ?project=PROJECT_ID")
	}
	return p, p != ""
}

func (h Releases) baselines(w http.ResponseWriter, r *http.Request) {
	p, ok := project(w, r)
	if !ok {
		return
	}
	v, err := twinadapter.GatesView(r.Context(), h.Twin, p)
	if err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"project_id": p, "baselines": v["baselines"]})
}

func (h Releases) releases(w http.ResponseWriter, r *http.Request) {
	p, ok := project(w, r)
	if !ok {
		return
	}
	rels, err := twin.ReleasePackages(r.Context(), h.Twin, p)
	if err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"project_id": p, "release_packages": rels, "count": len(rels)})
}

func (h Releases) promotion(w http.ResponseWriter, r *http.Request) {
	p, ok := project(w, r)
	if !ok {
		return
	}
	v, err := twinadapter.GatesView(r.Context(), h.Twin, p)
	if err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, v)
}

// write is a POST that runs toolID with the body as its arguments, decided
// by the identified person who sent it. The body is the tool's own
// arguments (project_id required); who decides is never in it.
func (h Releases) write(toolID, what string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		decider, ok := h.Authority.Decider(w, r)
		if !ok {
			return
		}
		var body map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 256<<10)).Decode(&body); err != nil {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("the body must be the JSON arguments of %s: %v", toolID, err))
			return
		}
		pid, _ := body["project_id"].(string)
		if strings.TrimSpace(pid) == "" {
			httpjson.Error(w, http.StatusBadRequest, `name the project: {"project_id": "..."}`)
			return
		}
		raw, _ := json.Marshal(body)
		if err := h.Runs.Registry.ValidateArguments(toolID, raw); err != nil {
			httpjson.Error(w, http.StatusBadRequest, err.Error())
			return
		}
		by := decider.Name
		res, err := h.Runs.DecidedCall(r.Context(), toolID, raw, pid, fmt.Sprintf("%s for %s by %s", what, pid, by), by)
		if err != nil {
			httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		link := map[string]any{"call_id": res.CallID, "workflow_id": workflows.CallWorkflowID(res.CallID)}
		if h.TemporalUI != "" {
			link["temporal_ui"] = fmt.Sprintf("%s/namespaces/%s/workflows/%s", strings.TrimSuffix(h.TemporalUI, "/"), h.Runs.namespace(), link["workflow_id"])
		}
		if res.Status != workflows.StatusSuccess {
			status := http.StatusBadGateway
			msg := "the call failed"
			if res.Error != nil {
				msg = res.Error.Details
				switch protocol.Code(res.Error.Code) {
				case protocol.ToolExecutionError:
					status = http.StatusConflict
				case protocol.InvalidParams:
					status = http.StatusBadRequest
				}
			}
			link["error"] = msg
			httpjson.Write(w, status, link)
			return
		}
		if h.Logger != nil {
			h.Logger.Info("change_control_write", "tool", toolID, "project_id", pid, "decided_by", by, "call_id", res.CallID)
		}
		link["result"] = json.RawMessage(res.Data)
		httpjson.Write(w, http.StatusOK, link)
	}
}

// twinStatus maps a twin read error to its HTTP status.
func twinStatus(err error) int {
	if strings.Contains(err.Error(), twin.ErrNotFound.Error()) {
		return http.StatusNotFound
	}
	return http.StatusServiceUnavailable
}
