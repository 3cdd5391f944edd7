package ledger

import (
	_ "embed"
	"errors"
	"net/http"
	"strconv"

	"github.com/metaforge/metaforge/internal/httpjson"
)

// Handler serves the ledger over REST: GET /v1/ledger/actions,
// /v1/ledger/sessions, /v1/ledger/sessions/{id} and /v1/ledger/decisions. A nil Ledger (no
// DATABASE_URL) answers 503 saying so, so the routes exist either way.
type Handler struct {
	Ledger *Ledger
}

var errOff = errors.New(Off())

// Register adds the routes to api.
func (h Handler) Register(api *http.ServeMux) {
	api.HandleFunc("GET /v1/ledger/actions", h.actions)
	api.HandleFunc("GET /v1/ledger/sessions", h.sessions)
	api.HandleFunc("GET /v1/ledger/sessions/{id}", h.session)
	api.HandleFunc("GET /v1/ledger/decisions", h.decisions)
	api.HandleFunc("GET /sessions", h.page)
}

// Pages is the sessions page, served beside the routes.
func (h Handler) Pages() []string { return []string{"/sessions"} }

//go:embed page.html
var pageHTML []byte

// page is /sessions: who worked, from which client, and each call's stamp.
func (h Handler) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(pageHTML)
}

func (h Handler) actions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, ok := h.ready(w, q.Get("limit"))
	if !ok {
		return
	}
	list, err := h.Ledger.Actions(r.Context(), ActionFilter{
		SessionID: q.Get("session"), ProjectID: q.Get("project"), ToolID: q.Get("tool"), Limit: n,
	})
	answer(w, "actions", list, err)
}

func (h Handler) sessions(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.ready(w, ""); !ok {
		return
	}
	list, err := h.Ledger.Sessions(r.Context(), r.URL.Query().Get("project"))
	answer(w, "sessions", list, err)
}

// session is one session: who, from which client, and its narrative (its
// status, its ending, the events it logged). Its calls are
// /v1/ledger/actions?session=ID.
func (h Handler) session(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.ready(w, ""); !ok {
		return
	}
	id := r.PathValue("id")
	s, err := h.Ledger.Session(r.Context(), id)
	if errors.Is(err, ErrNoSession) {
		httpjson.Error(w, http.StatusNotFound, err.Error()+": GET /v1/ledger/sessions lists the sessions the ledger has seen")
		return
	}
	if err != nil {
		writeError(w, err)
		return
	}
	n, err := h.Ledger.SessionNarrative(r.Context(), id)
	if err != nil {
		writeError(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"session": s, "status": n.Status, "end": n.End, "events": n.Events})
}

func (h Handler) decisions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, ok := h.ready(w, q.Get("limit"))
	if !ok {
		return
	}
	list, err := h.Ledger.Decisions(r.Context(), DecisionFilter{
		ApprovalID: q.Get("approval"), CallID: q.Get("call"), ProjectID: q.Get("project"), Limit: n,
	})
	answer(w, "decisions", list, err)
}

// ready reads a read's ?limit= and checks there is a ledger to read,
// answering 400 or 503 itself when not.
func (h Handler) ready(w http.ResponseWriter, limit string) (int, bool) {
	n, err := queryLimit(limit)
	if err != nil {
		writeError(w, err)
		return 0, false
	}
	if h.Ledger == nil {
		writeError(w, errOff)
		return 0, false
	}
	return n, true
}

// answer writes one read's rows under key with their count, or its error.
func answer[T any](w http.ResponseWriter, key string, rows []T, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{key: nonNil(rows), "count": len(rows)})
}

// queryLimit reads ?limit=; "" leaves the default to the ledger.
func queryLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, badLimit(strconv.Quote(s))
	}
	return n, nil
}

// nonNil makes an empty list [] in JSON, not null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// writeError answers 400 for a filter the caller can fix, else 503: the
// ledger cannot answer (off, or its database unreachable), and the
// message says which.
func writeError(w http.ResponseWriter, err error) {
	status := http.StatusServiceUnavailable
	if errors.Is(err, ErrBadFilter) {
		status = http.StatusBadRequest
	}
	httpjson.Error(w, status, err.Error())
}
