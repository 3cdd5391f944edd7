package solver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// fakeEngine is a fake Docker Engine: an HTTP server speaking the part of
// the Engine API the docker runtime uses, answering as the next run was
// scripted to, and recording what it was asked. No engine can run where
// these tests do; when one can, the same tests also run against it.
type fakeEngine struct {
	t   *testing.T
	srv *httptest.Server

	mu         sync.Mutex
	next       fakeRun
	creates    []container.CreateRequest
	containers map[string]*fakeContainer
	order      []string // container ids, in the order they were made
}

// fakeRun is how the next container behaves.
type fakeRun struct {
	exitCode       int
	stdout, stderr string
	oomKilled      bool
	untilKilled    bool   // runs until it is killed, then exits 137
	noImage        bool   // its image is missing: create answers 404
	fails          string // the call on it (start, wait, logs, inspect) the engine answers 500
}

// fakeContainer is one container the fake made.
type fakeContainer struct {
	run      fakeRun
	image    string
	status   string // created, running, exited
	exitCode int
	killed   chan struct{}
	calls    []string // what was asked of it: start, wait, logs, inspect, kill, remove
	removed  bool
	forceRm  bool
}

// fakeAPIVersion is the API version the fake says it speaks.
const fakeAPIVersion = "1.47"

// newFakeEngine starts a fake engine, stopped when t ends.
func newFakeEngine(t *testing.T) *fakeEngine {
	f := &fakeEngine{t: t, containers: map[string]*fakeContainer{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_ping", f.ping)
	mux.HandleFunc("POST /{version}/containers/create", f.create)
	mux.HandleFunc("POST /{version}/containers/{id}/start", f.start)
	mux.HandleFunc("POST /{version}/containers/{id}/wait", f.wait)
	mux.HandleFunc("GET /{version}/containers/{id}/logs", f.logs)
	mux.HandleFunc("GET /{version}/containers/{id}/json", f.inspect)
	mux.HandleFunc("POST /{version}/containers/{id}/kill", f.kill)
	mux.HandleFunc("DELETE /{version}/containers/{id}", f.remove)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake engine: unexpected %s %s", r.Method, r.URL)
		fakeRefusal(w, http.StatusNotImplemented, "the fake engine does not do "+r.URL.Path)
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first := strings.Split(r.URL.Path, "/")[1]; first != "_ping" && !fakeVersioned.MatchString(first) {
			t.Errorf("fake engine: %s %s is not under an API version", r.Method, r.URL)
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// host is the fake's address as DOCKER_HOST spells it.
func (f *fakeEngine) host() string {
	return "tcp://" + f.srv.Listener.Addr().String()
}

// script sets how the next container behaves.
func (f *fakeEngine) script(r fakeRun) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next = r
}

// lastCreate is the body of the last create request.
func (f *fakeEngine) lastCreate() container.CreateRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.creates) == 0 {
		f.t.Fatal("no container was created")
	}
	return f.creates[len(f.creates)-1]
}

// lastCalls is what was asked of the last container made, in order.
func (f *fakeEngine) lastCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.order) == 0 {
		return nil
	}
	return append([]string(nil), f.containers[f.order[len(f.order)-1]].calls...)
}

// leftovers are the containers made and not force-removed.
func (f *fakeEngine) leftovers() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var left []string
	for _, id := range f.order {
		if c := f.containers[id]; !c.removed || !c.forceRm {
			left = append(left, id)
		}
	}
	return left
}

// made is how many containers the fake made.
func (f *fakeEngine) made() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.order)
}

func (f *fakeEngine) ping(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Api-Version", fakeAPIVersion)
	w.Header().Set("Ostype", "linux")
	_, _ = io.WriteString(w, "OK")
}

func (f *fakeEngine) create(w http.ResponseWriter, r *http.Request) {
	var req container.CreateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Config == nil {
		fakeRefusal(w, http.StatusBadRequest, fmt.Sprintf("cannot read the create request: %v", err))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, req)
	if f.next.noImage {
		fakeRefusal(w, http.StatusNotFound, "No such image: "+req.Image)
		return
	}
	id := fmt.Sprintf("%064x", len(f.order)+1)
	f.containers[id] = &fakeContainer{run: f.next, image: req.Image, status: "created", killed: make(chan struct{})}
	f.order = append(f.order, id)
	fakeJSON(w, http.StatusCreated, container.CreateResponse{ID: id, Warnings: []string{}})
}

// lookup is the container the request names, with the call recorded; nil
// (answered 404) when there is none.
func (f *fakeEngine) lookup(w http.ResponseWriter, r *http.Request, call string) *fakeContainer {
	c, ok := f.containers[r.PathValue("id")]
	if !ok || c.removed {
		fakeRefusal(w, http.StatusNotFound, "No such container: "+r.PathValue("id"))
		return nil
	}
	c.calls = append(c.calls, call)
	if c.run.fails == call {
		fakeRefusal(w, http.StatusInternalServerError, "the fake engine was told to fail "+call)
		return nil
	}
	return c
}

func (f *fakeEngine) start(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.lookup(w, r, "start")
	if c == nil {
		return
	}
	c.status = "running"
	if !c.run.untilKilled {
		c.status, c.exitCode = "exited", c.run.exitCode
	}
	w.WriteHeader(http.StatusNoContent)
}

func (f *fakeEngine) wait(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	c := f.lookup(w, r, "wait")
	f.mu.Unlock()
	if c == nil {
		return
	}
	// The client returns from ContainerWait once the headers are in.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	if c.run.untilKilled {
		select {
		case <-c.killed:
		case <-r.Context().Done():
			return
		}
	}
	f.mu.Lock()
	code := c.exitCode
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(container.WaitResponse{StatusCode: int64(code)})
}

func (f *fakeEngine) logs(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	c := f.lookup(w, r, "logs")
	f.mu.Unlock()
	if c == nil {
		return
	}
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/vnd.docker.multiplexed-stream")
	w.WriteHeader(http.StatusOK)
	if q.Get("stdout") == "1" && c.run.stdout != "" {
		_, _ = stdcopy.NewStdWriter(w, stdcopy.Stdout).Write([]byte(c.run.stdout))
	}
	if q.Get("stderr") == "1" && c.run.stderr != "" {
		_, _ = stdcopy.NewStdWriter(w, stdcopy.Stderr).Write([]byte(c.run.stderr))
	}
}

func (f *fakeEngine) inspect(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.lookup(w, r, "inspect")
	if c == nil {
		return
	}
	fakeJSON(w, http.StatusOK, container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{
			ID:    r.PathValue("id"),
			Image: c.image,
			State: &container.State{
				Status:    container.ContainerState(c.status),
				Running:   c.status == "running",
				OOMKilled: c.run.oomKilled,
				ExitCode:  c.exitCode,
			},
		},
	})
}

func (f *fakeEngine) kill(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.lookup(w, r, "kill "+r.URL.Query().Get("signal"))
	if c == nil {
		return
	}
	if c.status != "running" {
		fakeRefusal(w, http.StatusConflict, "container "+r.PathValue("id")+" is not running")
		return
	}
	c.status, c.exitCode = "exited", 137
	close(c.killed)
	w.WriteHeader(http.StatusNoContent)
}

func (f *fakeEngine) remove(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	force := r.URL.Query().Get("force") == "1"
	c := f.lookup(w, r, "remove")
	if c == nil {
		return
	}
	if c.status == "running" && !force {
		fakeRefusal(w, http.StatusConflict, "cannot remove a running container; stop it first or use force")
		return
	}
	if c.status == "running" {
		close(c.killed)
	}
	c.status, c.removed, c.forceRm = "removing", true, force
	w.WriteHeader(http.StatusNoContent)
}

// fakeVersioned matches the API version the client puts first in every
// path but the ping's.
var fakeVersioned = regexp.MustCompile(`^v1\.\d+$`)

// fakeJSON answers with v as JSON.
func fakeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// engineError answers as the engine does when it refuses a request.
func fakeRefusal(w http.ResponseWriter, status int, message string) {
	fakeJSON(w, status, map[string]string{"message": strings.TrimSpace(message)})
}
