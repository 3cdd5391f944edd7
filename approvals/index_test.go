package approvals_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/workflows"
)

// holdFor starts a held fixture call of project proj-<first letter of key>.
func (s *queueStack) holdFor(t *testing.T, key string, window int) string {
	t.Helper()
	return s.hold(t, "fixture.write", key, "proj-"+key[:1], window)
}

// listsExactly waits (at most within) until the index lists exactly want,
// oldest first.
func listsExactly(t *testing.T, x *approvals.Index, f approvals.Filter, want []string, within time.Duration) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	deadline := time.Now().Add(within)
	for {
		held, err := x.List(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, h := range held {
			got = append(got, h.ApprovalID)
			if i > 0 && h.HeldSince.Before(held[i-1].HeldSince) {
				t.Fatalf("listing not oldest first at %d: %v", i, held)
			}
		}
		slices.Sort(got)
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("index lists %d holds %v, want %d %v", len(got), got, len(want), want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func without(ids []string, gone ...string) []string {
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(gone, id) })
}

// The index lists exactly the pending holds: a new one as soon as
// visibility shows it, though the full read is older; none this process
// decided, from the moment it did; none past its window; none another
// process decided, from the next full read; and all of them again, from
// visibility, after a restart.
func TestIndexListsThePendingSet(t *testing.T) {
	s := startQueue(t)
	ctx := context.Background()
	x := &approvals.Index{Queue: s.queue, Refresh: time.Hour}
	pending := []string{s.holdFor(t, "a00", 300)}
	// Listed as soon as visibility shows them, though the index's full
	// read is older.
	listsExactly(t, x, approvals.Filter{}, pending[:1], 10*time.Second)
	for i := range 30 {
		pending = append(pending, s.holdFor(t, fmt.Sprintf("b%02d", i), 300))
	}
	listsExactly(t, x, approvals.Filter{}, pending, 10*time.Second)

	// Decided here: gone at once.
	approve := workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "Fidel", Route: workflows.RouteDashboard}
	for _, id := range pending[:8] {
		if _, err := x.Decide(ctx, id, approve); err != nil {
			t.Fatal(err)
		}
	}
	pending = pending[8:]
	listsExactly(t, x, approvals.Filter{}, pending, 0)

	// Timed out: gone at the window's end.
	startedShort := time.Now()
	short := []string{s.holdFor(t, "t1", 8), s.holdFor(t, "t2", 8)}
	listsExactly(t, x, approvals.Filter{ProjectID: "proj-t"}, short, 6*time.Second)
	listsExactly(t, x, approvals.Filter{}, append(slices.Clone(pending), short...), 0)
	time.Sleep(time.Until(startedShort.Add(8200 * time.Millisecond)))
	listsExactly(t, x, approvals.Filter{}, pending, 0)

	// Decided by another process (its own queue): gone at the next full
	// read.
	x.Refresh = 200 * time.Millisecond
	elsewhere := approvals.Queue{Client: s.tmp.Client}
	for _, id := range pending[:5] {
		if _, err := elsewhere.Decide(ctx, id, workflows.Decision{Outcome: workflows.OutcomeRejected, Approver: "Ada", Route: workflows.RouteDashboard}); err != nil {
			t.Fatal(err)
		}
	}
	pending = pending[5:]
	listsExactly(t, x, approvals.Filter{}, pending, 5*time.Second)

	// A restart: a new index knows only what visibility says.
	restarted := &approvals.Index{Queue: s.queue, Refresh: time.Hour}
	listsExactly(t, restarted, approvals.Filter{}, pending, 0)
	if _, err := restarted.Decide(ctx, pending[0], approve); err != nil {
		t.Fatal(err)
	}
	listsExactly(t, restarted, approvals.Filter{}, pending[1:], 0)
	// Deciding it again in the first index says it is over, and drops it.
	x.Refresh = time.Hour
	if _, err := x.Decide(ctx, pending[0], approve); err == nil {
		t.Errorf("a second decision of %s was accepted", pending[0])
	}
	listsExactly(t, x, approvals.Filter{}, pending[1:], 0)
}

// Pages of GET /v1/approvals, followed token by token, list every hold
// once, in order, even when holds are decided between two pages.
func TestApprovalsPages(t *testing.T) {
	s := startQueue(t)
	x := &approvals.Index{Queue: s.queue}
	var ids []string
	for i := range 23 {
		ids = append(ids, s.holdFor(t, fmt.Sprintf("p%02d", i), 300))
	}
	listsExactly(t, x, approvals.Filter{}, ids, 10*time.Second)
	const token = "the-operator-token"
	a := mcpserver.Auth{OperatorToken: token}
	mux := http.NewServeMux()
	approvals.Handler{Queue: x, Authority: approvals.Authority{Identify: a.Person}}.Register(mux)
	srv := httptest.NewServer(a.APIMiddleware(mux))
	defer srv.Close()
	type page struct {
		Approvals []approvals.HeldCall `json:"approvals"`
		Count     int                  `json:"count"`
		Total     *int                 `json:"total"`
		Next      *string              `json:"next_page_token"`
		Error     string               `json:"error"`
	}
	get := func(q url.Values) (int, page) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/approvals?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p page
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, p
	}
	// A client that does not page gets them all, as before.
	status, all := get(nil)
	if status != 200 || all.Count != 23 || len(all.Approvals) != 23 || all.Next != nil || all.Total != nil {
		t.Fatalf("unpaged: %d, count %d, %d approvals, next %v, total %v", status, all.Count, len(all.Approvals), all.Next, all.Total)
	}
	var got []string
	q := url.Values{"page_size": {"5"}}
	for n := 0; ; n++ {
		status, p := get(q)
		if status != 200 || p.Next == nil || p.Total == nil || p.Count != len(p.Approvals) {
			t.Fatalf("page %d: %d %+v", n, status, p)
		}
		for _, h := range p.Approvals {
			got = append(got, h.ApprovalID)
		}
		if n == 1 {
			// The first hold of the next page and one already seen are
			// decided between two pages: neither shifts the rest.
			for _, id := range []string{ids[10], ids[0]} {
				if _, err := x.Decide(context.Background(), id, workflows.Decision{Outcome: workflows.OutcomeRejected, Approver: "Ada", Route: workflows.RouteDashboard}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if *p.Next == "" {
			break
		}
		q.Set("page_token", *p.Next)
	}
	if want := without(ids, ids[10]); !slices.Equal(got, want) {
		t.Errorf("pages listed %v, want %v", got, want)
	}
	for _, bad := range []url.Values{{"page_size": {"0"}}, {"page_size": {"1001"}}, {"page_size": {"x"}}, {"page_token": {"not a token"}}} {
		if status, p := get(bad); status != 400 || p.Error == "" {
			t.Errorf("%v: %d %+v, want 400 with an error", bad, status, p)
		}
	}
}
