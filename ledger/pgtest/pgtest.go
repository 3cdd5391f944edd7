// Package pgtest gives tests a real PostgreSQL server on loopback, started
// by deploy/start-postgres.sh (and left running, so the next test process
// reuses it), and a fresh database on it for each test.
package pgtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/metaforge/metaforge/internal/deployscript"
)

// Test ports.
const (
	// PortShared is the server every test shares, each in a database of
	// its own.
	PortShared = "5433"
	// PortRestart is a server a test may stop and start again; only one
	// test uses it, so nothing else sees it go away.
	PortRestart = "5434"
)

// EnvURL, when set, names the server URL uses instead of starting one. Its
// role must be allowed to create databases.
const EnvURL = "METAFORGE_TEST_DATABASE_URL"

// scriptTimeout bounds deploy/start-postgres.sh: the first run on a
// machine may apt-get postgresql.
const scriptTimeout = 10 * time.Minute

var shared struct {
	once    sync.Once
	url     string
	failure string
}

// URL returns the DATABASE_URL of a database made for this test alone, on
// the shared server ($METAFORGE_TEST_DATABASE_URL, or deploy/start-postgres.sh
// on PortShared, run once per process). The database is dropped when the
// test ends. It fails the test, never skips it, when there is no server.
func URL(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() {
		if shared.url = os.Getenv(EnvURL); shared.url != "" {
			return
		}
		t0 := time.Now()
		shared.url, shared.failure = start(PortShared)
		if shared.failure == "" {
			t.Logf("pgtest: PostgreSQL test server on 127.0.0.1:%s (deploy/start-postgres.sh took %s)", PortShared, time.Since(t0).Round(time.Millisecond))
		}
	})
	if shared.failure != "" {
		t.Fatal(shared.failure)
	}
	return Database(t, shared.url)
}

// Server starts the server on port with deploy/start-postgres.sh, or finds
// it already up, and returns its DATABASE_URL.
func Server(t testing.TB, port string) string {
	t.Helper()
	u, failure := start(port)
	if failure != "" {
		t.Fatal(failure)
	}
	return u
}

// Stop stops the server on port with deploy/stop-postgres.sh. Its data
// stay for the next Server.
func Stop(t testing.TB, port string) {
	t.Helper()
	if _, out, err := run("stop-postgres.sh", port); err != nil {
		t.Fatalf("pgtest: deploy/stop-postgres.sh %s: %v\n%s", port, err, deployscript.Tail(out, 40))
	}
}

// Database creates a database named ledger_<random> on the server at
// serverURL, drops it when the test ends, and returns its URL.
func Database(t testing.TB, serverURL string) string {
	t.Helper()
	name := "ledger_" + randomHex(6)
	admin(t, serverURL, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		// FORCE: a connection the test left open must not keep it.
		admin(t, serverURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := withDatabase(serverURL, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return u
}

// admin runs one statement on the server at serverURL.
func admin(t testing.TB, serverURL, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		t.Fatalf("pgtest: connect to the test server for %q: %v", sql, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// withDatabase is serverURL naming database name instead of its own.
func withDatabase(serverURL, name string) (string, error) {
	if !strings.Contains(serverURL, "://") { // key=value form: the last dbname wins
		return serverURL + " dbname=" + name, nil
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("the test server's URL: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// start runs the start script and returns the DATABASE_URL it prints, or a
// message saying what went wrong and what to do.
func start(port string) (databaseURL, failure string) {
	stdout, stderr, err := run("start-postgres.sh", port)
	const prefix = "export DATABASE_URL="
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			databaseURL = strings.Trim(v, `'"`)
		}
	}
	if err != nil || databaseURL == "" {
		why := "it printed no DATABASE_URL"
		if err != nil {
			why = err.Error()
		}
		return "", fmt.Sprintf("pgtest: deploy/start-postgres.sh %s failed (%s). Last lines of its output:\n%s\n"+
			"It starts a test PostgreSQL server and needs bash and PostgreSQL (apt-get install postgresql; "+
			"as root it installs it itself), or set %s to a server whose role may create databases.",
			port, why, deployscript.Tail(stderr, 40), EnvURL)
	}
	return databaseURL, ""
}

// run runs deploy/<script> port from the repository root.
func run(script, port string) (stdout, stderr string, err error) {
	path, err := deployscript.Path(script)
	if err != nil {
		return "", "", fmt.Errorf("cannot find deploy/%s: %w", script, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", path, port)
	cmd.Dir = filepath.Dir(filepath.Dir(path))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// The server runs on in the background; should it hold a pipe, do not
	// wait for it.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	return out.String(), errOut.String(), err
}
