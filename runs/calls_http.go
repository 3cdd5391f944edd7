package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/workflows"
)

// Calls serves the tool calls as Temporal keeps them, for the CLI: GET
// /v1/calls (the ToolCall workflows, newest first, filtered by the
// MfTool and MfProject search attributes and a start time) and GET
// /v1/calls/{id} (one call's outcome and result, as call.get_result reads
// it, and its arguments). The arguments are shown only to an identified
// person, as the approvals list shows a held call's.
type Calls struct {
	Runs *Service
	// Lookup reads one call's outcome (worker.CallLookup).
	Lookup    call.Lookup
	Authority approvals.Authority
}

// Register adds the routes to mux.
func (h Calls) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/calls", h.list)
	mux.HandleFunc("GET /v1/calls/{id}", h.get)
}

// Pages is none.
func (h Calls) Pages() []string { return nil }

// CallSummary is one listed call.
type CallSummary struct {
	CallID    string     `json:"call_id"`
	ToolID    string     `json:"tool_id"`
	ProjectID string     `json:"project_id,omitempty"`
	Caller    string     `json:"caller,omitempty"`
	Client    string     `json:"client,omitempty"`
	Hold      string     `json:"hold,omitempty"`
	State     string     `json:"state"`
	StartedAt time.Time  `json:"started_at"`
	ClosedAt  *time.Time `json:"closed_at,omitempty"`
}

const (
	callsHowTo       = "pass tool=TOOL_ID, project=PROJECT_ID, since=RFC3339 and limit=N (1 to 1000), each optional"
	defaultCallLimit = 50
	maxCallLimit     = 1000
)

func (h Calls) list(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, []string{"tool", "project", "since", "limit"}, callsHowTo) {
		return
	}
	if h.Runs == nil || h.Runs.Client == nil {
		httpjson.Error(w, http.StatusServiceUnavailable, "this server reaches no Temporal: the calls are its workflows; start metaforge serve with Temporal")
		return
	}
	q := r.URL.Query()
	limit := defaultCallLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxCallLimit {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("limit %q is not a number from 1 to %d: %s", v, maxCallLimit, callsHowTo))
			return
		}
		limit = n
	}
	query := "WorkflowType = 'ToolCall'"
	for _, f := range [][2]string{{"tool", workflows.AttrTool.GetName()}, {"project", workflows.AttrProject.GetName()}} {
		if v := strings.TrimSpace(q.Get(f[0])); v != "" {
			query += fmt.Sprintf(" AND %s = '%s'", f[1], strings.ReplaceAll(v, "'", ""))
		}
	}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("since %q is not an RFC3339 time (2026-01-02T15:04:05Z): %s", v, callsHowTo))
			return
		}
		query += fmt.Sprintf(" AND StartTime >= '%s'", t.UTC().Format(time.RFC3339Nano))
	}
	out := []CallSummary{}
	var token []byte
	for len(out) < limit {
		resp, err := h.Runs.Client.ListWorkflow(r.Context(), &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: h.Runs.namespace(), Query: query, NextPageToken: token, PageSize: int32(min(limit, 500))})
		if err != nil {
			httpjson.Error(w, http.StatusServiceUnavailable, fmt.Sprintf("list the calls (%s): %v; check that Temporal is up (health.check)", query, err))
			return
		}
		for _, e := range resp.GetExecutions() {
			if len(out) == limit {
				break
			}
			fields := e.GetSearchAttributes().GetIndexedFields()
			c := CallSummary{CallID: strings.TrimPrefix(e.GetExecution().GetWorkflowId(), "call-"), ToolID: keyword(fields, workflows.AttrTool.GetName()),
				ProjectID: keyword(fields, workflows.AttrProject.GetName()), Caller: keyword(fields, workflows.AttrCaller.GetName()),
				Client: keyword(fields, workflows.AttrClient.GetName()), Hold: keyword(fields, workflows.AttrHold.GetName()),
				State: callState(e.GetStatus()), StartedAt: e.GetStartTime().AsTime()}
			if e.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && e.GetCloseTime() != nil {
				t := e.GetCloseTime().AsTime()
				c.ClosedAt = &t
			}
			out = append(out, c)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"calls": out, "count": len(out), "query": query})
}

// keyword is a keyword search attribute's value, or "".
func keyword(fields map[string]*commonpb.Payload, name string) string {
	var v string
	if p, ok := fields[name]; ok {
		_ = json.Unmarshal(p.GetData(), &v)
	}
	return v
}

// callState is a workflow status as call.get_result names it.
func callState(s enumspb.WorkflowExecutionStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_"))
}

// CallDetail is GET /v1/calls/{id}: call.get_result's outcome, and the
// call's arguments when the asker is an identified person.
type CallDetail struct {
	call.Outcome
	Caller          string          `json:"caller,omitempty"`
	Requester       string          `json:"requester,omitempty"`
	SessionID       string          `json:"session_id,omitempty"`
	Arguments       json.RawMessage `json:"arguments,omitempty"`
	ArgumentsHidden bool            `json:"arguments_hidden,omitempty"`
	HowToSeeThem    string          `json:"how_to_see_them,omitempty"`
}

func (h Calls) get(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, nil, "GET /v1/calls/{id} takes no parameters") {
		return
	}
	if h.Runs == nil || h.Runs.Client == nil || h.Lookup == nil {
		httpjson.Error(w, http.StatusServiceUnavailable, "this server reaches no Temporal: the calls are its workflows; start metaforge serve with Temporal")
		return
	}
	id := strings.TrimPrefix(r.PathValue("id"), "call-")
	out, err := h.Lookup.CallOutcome(r.Context(), id, 0)
	if errors.Is(err, call.ErrNotFound) {
		httpjson.Error(w, http.StatusNotFound, fmt.Sprintf("no call %s: GET /v1/calls lists the calls", id))
		return
	}
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, fmt.Sprintf("read call %s: %v; check that Temporal is up (health.check)", id, err))
		return
	}
	d := CallDetail{Outcome: out}
	in, err := h.input(r, out.WorkflowID)
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, fmt.Sprintf("read the arguments of call %s: %v", id, err))
		return
	}
	d.Caller, d.Requester, d.SessionID = in.Caller, in.Requester, in.SessionID
	if d.ToolID == "" {
		d.ToolID = in.ToolID
	}
	if p := h.Authority.Identify; p != nil && p(r).Verified {
		d.Arguments = in.Arguments
	} else {
		d.ArgumentsHidden, d.HowToSeeThem = true, "a call's arguments are shown to an identified person: "+h.Authority.HowToDecide()
	}
	httpjson.Write(w, http.StatusOK, d)
}

// input is the ToolCall workflow's input, from its first history event.
func (h Calls) input(r *http.Request, workflowID string) (workflows.ToolCallInput, error) {
	var in workflows.ToolCallInput
	it := h.Runs.Client.GetWorkflowHistory(r.Context(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return in, fmt.Errorf("workflow %s has no history", workflowID)
	}
	ev, err := it.Next()
	if err != nil {
		return in, err
	}
	started := ev.GetWorkflowExecutionStartedEventAttributes()
	if started == nil {
		return in, fmt.Errorf("workflow %s does not start with its input", workflowID)
	}
	err = converter.GetDefaultDataConverter().FromPayloads(started.GetInput(), &in)
	return in, err
}
