# MetaForge. Every target uses the toolchain go1.27.3 (Go fetches it through
# the module proxy the first time): the machine's own Go is older than the
# Temporal server needs.
export GOTOOLCHAIN := go1.27.3

GO            ?= go
BIN           := bin/metaforge
WORKFLOWCHECK := go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
MODULE        := github.com/metaforge/metaforge
# The packages whose goroutines meet Temporal's (workflows, the MCP server's
# waits, the worker, the runs): their tests run under the race detector.
RACE_PKGS     := workflows mcpserver worker runs
TEST_TIMEOUT  ?= 25m

.PHONY: build run solvers test hostile fuzz-short test-deps check fmt-check vet workflowcheck staticcheck bench

build:
	$(GO) build -o $(BIN) ./cmd/metaforge

# Starts MetaForge with everything embedded: Temporal on :7233, its UI on
# :8233, MCP on http://127.0.0.1:8765/mcp. The solvers the served adapters
# drive are installed first where missing (as root), or the one command that
# installs them is printed and the server starts anyway.
run: solvers build
	./$(BIN) serve

# The solvers the adapters drive (ccx, gmsh, ngspice, KiCad's pcbnew,
# CadQuery), installed if missing (deploy/install-solvers.sh).
solvers:
	@bash deploy/install-solvers.sh --or-advise

# The whole suite: static checks, then every package's tests (the embedded
# Temporal server, the TypeScript MCP SDK as an independent client): those
# of RACE_PKGS under the race detector, the rest without, each once.
test: test-deps check
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -skip '^TestHostile' -race $(addprefix ./,$(RACE_PKGS))
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -skip '^TestHostile' $$($(GO) list ./... | grep -vxF $(foreach p,$(RACE_PKGS),-e $(MODULE)/$(p)))
	$(MAKE) hostile
	$(MAKE) fuzz-short

# The hostile catalogue: what an attacker or a careless client tries, per
# area (frames over /mcp, /rpc and stdio; paths per file argument and solver
# input construct per runtime; every write as an untrusted caller; decisions
# per route). Each area prints "hostile AREA: tried N held H failed F"; the
# target fails when anything got through.
HOSTILE_PKGS := ./cmd/metaforge ./internal/solver ./mcpserver ./e2e
hostile:
	@out=$$(mktemp); status=0; \
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run '^TestHostile' -v $(HOSTILE_PKGS) >$$out 2>&1 || status=$$?; \
	grep -E '^hostile |^--- FAIL|^FAIL|^ok|^panic' $$out; \
	if [ $$status -ne 0 ]; then echo "--- the catalogue failed; the end of its output:"; tail -60 $$out; fi; \
	rm -f $$out; exit $$status

# A short fuzzing run of the MCP frame screen and of the dispatcher over
# stdio, /mcp and /rpc (their seed corpus in mcpserver/testdata/fuzz also
# runs in every go test). A crasher is written under testdata and fails.
# Go prints the rate (execs, execs/sec) every 3 s; each new interesting
# input is minimized for at most 20 runs, so the run fuzzes rather than
# minimizes.
fuzz-short:
	$(GO) test ./mcpserver -run '^$$' -fuzz '^FuzzScreen$$' -fuzztime 15s -fuzzminimizetime 20x
	$(GO) test ./mcpserver/dispatchfuzz -run '^$$' -fuzz '^FuzzDispatch$$' -fuzztime 15s -fuzzminimizetime 20x -parallel 2

# What the tests need beyond Go, installed if missing (deploy/test-deps.sh).
test-deps:
	bash deploy/test-deps.sh

check: fmt-check vet workflowcheck staticcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './e2e/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Workflows must be deterministic: no I/O, clocks, randomness or map-order
# decisions. Over every package, so a workflow registered outside workflows/
# is checked too.
workflowcheck:
	$(GO) run $(WORKFLOWCHECK) ./...

# No findings; a false positive gets a //lint:ignore saying why, on its line.
staticcheck:
	$(GO) run $(STATICCHECK) ./...

# Latency and throughput of a tools/call through the durable path, beside the
# same tool in-process and the floor (a bare workflow with one local activity:
# x-floor-p50); 1000 held calls; a real FEA solve through MCP beside ccx
# alone; a gate decision; health.check from 32 clients with the solver
# adapters; serve's cold start; the sandbox; calls/s over one and two
# worker processes on a real Temporal cluster (deploy/start-temporal.sh on
# PostgreSQL, about 3 minutes). Figures go to BENCHMARKS.md.
bench:
	$(GO) test ./bench -run '^$$' -bench 'ToolCall|HeldCalls' -benchtime 500x -count 1 -timeout 20m
	$(GO) test ./bench -run '^$$' -bench 'CantileverFEA' -benchtime 10x -count 1 -timeout 20m
	$(GO) test ./bench -run '^$$' -bench 'GateDecisionToClaimable' -benchtime 100x -count 1 -timeout 20m
	$(GO) test ./bench -run '^$$' -bench 'HealthCheck' -benchtime 640x -count 1 -timeout 20m
	$(GO) test ./bench -run '^$$' -bench 'ColdStart' -benchtime 10x -count 1 -timeout 20m
	$(GO) test ./bench -run '^$$' -bench '^BenchmarkCluster$$' -benchtime 1600x -count 1 -timeout 20m
	$(GO) test ./internal/solver -run '^$$' -bench 'SandboxOverhead' -benchtime 200x -count 1
