// Package neo4jtest gives tests a real Neo4j server on loopback, started by
// deploy/start-neo4j.sh (and left running, so the next test process reuses
// it).
package neo4jtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/metaforge/metaforge/internal/deployscript"
)

// Test ports. Each package that needs Neo4j gets its own server, because
// go test runs packages in parallel and one package's Wipe must not reach
// another's data. .ci/run starts them all up front (deploy/start-neo4j.sh
// reuses a server that already answers).
const (
	PortTwin        = "7688"
	PortDigitalTwin = "7689"
	PortBench       = "7690"
	// PortE2E is the end-to-end durability test's twin. It shares the
	// benchmarks' server: benchmarks do not run in make test, and the
	// test writes only into a project of its own.
	PortE2E = PortBench
)

// startTimeout bounds deploy/start-neo4j.sh: the first run on a machine
// builds the server with Maven (and may apt-get a JDK and Maven).
const startTimeout = 20 * time.Minute

type server struct {
	once    sync.Once
	env     [3]string // uri, user, password
	failure string
}

var (
	mu      sync.Mutex
	servers = map[string]*server{}
)

// URI returns the address and credentials of the test Neo4j server on
// port, starting it with deploy/start-neo4j.sh PORT the first time in this
// process. It fails the test, never skips it, when there is no server.
func URI(t testing.TB, port string) (uri, user, password string) {
	t.Helper()
	if own := os.Getenv("METAFORGE_TEST_NEO4J_PORT"); own != "" {
		// A developer running one package's tests beside another
		// checkout's gives them a server of their own, out of reach of
		// the other's Wipe.
		port = own
	}
	mu.Lock()
	srv := servers[port]
	if srv == nil {
		srv = &server{}
		servers[port] = srv
	}
	mu.Unlock()
	srv.once.Do(func() {
		t0 := time.Now()
		srv.env, srv.failure = start(port)
		if srv.failure == "" {
			t.Logf("neo4jtest: Neo4j test server on %s (deploy/start-neo4j.sh %s took %s)", srv.env[0], port, time.Since(t0).Round(time.Millisecond))
		}
	})
	if srv.failure != "" {
		t.Fatal(srv.failure)
	}
	return srv.env[0], srv.env[1], srv.env[2]
}

// start runs the start script and parses its export lines; on failure it
// returns a message saying what went wrong and what to do.
func start(port string) (env [3]string, failure string) {
	script, err := deployscript.Path("start-neo4j.sh")
	if err != nil {
		return env, fmt.Sprintf("neo4jtest: cannot find deploy/start-neo4j.sh: %v; "+
			"it needs the repository's deploy/ folder", err)
	}
	root := filepath.Dir(filepath.Dir(script))
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, port)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The server runs on in the background; should it hold a pipe, do
	// not wait for it.
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	vars := parseExports(stdout.String())
	if runErr != nil || vars["NEO4J_URI"] == "" {
		why := "it printed no NEO4J_URI"
		if runErr != nil {
			why = runErr.Error()
		}
		return env, fmt.Sprintf("neo4jtest: %s %s failed (%s). Last lines of its output:\n%s\n"+
			"It builds and starts a test Neo4j 5 server and needs bash, a JDK 17+ (java and javac; "+
			"apt-get install openjdk-17-jdk-headless), Maven (apt-get install maven) and Maven Central "+
			"the first time; as root it installs the JDK and Maven itself.",
			script, port, why, deployscript.Tail(stderr.String(), 40))
	}
	return [3]string{vars["NEO4J_URI"], vars["NEO4J_USER"], vars["NEO4J_PASSWORD"]}, ""
}

// Wipe deletes every node and relationship in the server's default
// database, so a test starts from nothing. Constraints and indexes stay.
// Tests that share a server must not wipe it while another runs.
func Wipe(t testing.TB, uri, user, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	auth := neo4j.NoAuth()
	if user != "" || password != "" {
		auth = neo4j.BasicAuth(user, password, "")
	}
	driver, err := neo4j.NewDriverWithContext(uri, auth)
	if err != nil {
		t.Fatalf("neo4jtest: wipe %s: %v", uri, err)
	}
	defer driver.Close(ctx)
	if _, err := neo4j.ExecuteQuery(ctx, driver, "MATCH (n) DETACH DELETE n", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatalf("neo4jtest: wipe %s: %v", uri, err)
	}
}

// parseExports reads "export K=V" lines (several may share a line).
func parseExports(out string) map[string]string {
	vars := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "export" {
			continue
		}
		for _, f := range fields[1:] {
			if k, v, ok := strings.Cut(f, "="); ok {
				vars[k] = strings.Trim(v, `'"`)
			}
		}
	}
	return vars
}
