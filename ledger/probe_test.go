package ledger_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// Probe shows where the ledger is without the password in the URL.
func TestProbe(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	// The test server trusts loopback, so any password will do.
	u.User = url.UserPassword(u.User.Username(), "hunter2")
	l := open(t, u.String())
	reachable, address, err := l.Probe(testContext(t))
	if !reachable || err != nil {
		t.Fatalf("Probe = %v, %v", reachable, err)
	}
	want := "postgres://" + u.User.Username() + "@" + u.Host + u.Path
	if address != want || strings.Contains(address, "hunter2") {
		t.Errorf("address %q, want %q", address, want)
	}

	var off *ledger.Ledger
	if reachable, _, err := off.Probe(testContext(t)); reachable || err == nil || err.Error() != ledger.Off() {
		t.Errorf("Probe with no ledger = %v, %v; want %q", reachable, err, ledger.Off())
	}
}
