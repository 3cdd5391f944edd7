package spice

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/metaforge/metaforge/adapters"
)

// reach turns a configured adapter into the form a test calls. It may end
// the form's test, so call it from that test's goroutine, not a subtest's.
type reach func(*Adapter) adapters.Adapter

// inEachForm runs test twice, as subtests: on the adapter in process, and on a
// adapters.HTTPAdapter dialled to it over HTTP, as the main server reaches it
// through METAFORGE_ADAPTER_SPICE_URL. An adapter answers alike wherever it
// runs, so both forms pass the same tests.
func inEachForm(t *testing.T, test func(t *testing.T, reach reach)) {
	t.Run("in-process", func(t *testing.T) {
		test(t, func(a *Adapter) adapters.Adapter { return a })
	})
	t.Run("remote", func(t *testing.T) {
		test(t, func(a *Adapter) adapters.Adapter { return overHTTP(t, a) })
	})
}

// overHTTP serves a on a test HTTP server and dials it.
func overHTTP(t *testing.T, a *Adapter) adapters.Adapter {
	t.Helper()
	srv := httptest.NewServer(adapters.HTTPHandler(a))
	t.Cleanup(srv.Close)
	c, err := adapters.DialHTTP(context.Background(), AdapterID, srv.URL)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return c
}
