# MetaForge. Every target uses the toolchain go1.27.3 (Go fetches it through
# the module proxy the first time): the machine's own Go is older than the
# Temporal server needs.
export GOTOOLCHAIN := go1.27.3

GO            ?= go
BIN           := bin/metaforge
WORKFLOWCHECK := go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
TEST_TIMEOUT  ?= 25m

.PHONY: build run test fuzz-short test-deps check fmt-check vet workflowcheck bench

build:
	$(GO) build -o $(BIN) ./cmd/metaforge

# Starts MetaForge with everything embedded: Temporal on :7233, its UI on
# :8233, MCP on http://127.0.0.1:8765/mcp.
run: build
	./$(BIN) serve

# The whole suite: static checks, then every package's tests (the embedded
# Temporal server, the TypeScript MCP SDK as an independent client).
test: test-deps check
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...
	$(MAKE) fuzz-short

# A short fuzzing run of the MCP frame screen and of the dispatcher over
# stdio, /mcp and /rpc (their seed corpus in mcpserver/testdata/fuzz also
# runs in every go test). A crasher is written under testdata and fails.
fuzz-short:
	$(GO) test ./mcpserver -run '^$$' -fuzz '^FuzzScreen$$' -fuzztime 15s
	$(GO) test ./mcpserver -run '^$$' -fuzz '^FuzzDispatch$$' -fuzztime 15s -parallel 2

# What the tests need beyond Go, installed if missing (deploy/test-deps.sh).
test-deps:
	bash deploy/test-deps.sh

check: fmt-check vet workflowcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './e2e/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Workflows must be deterministic: no I/O, clocks, randomness or map-order
# decisions.
workflowcheck:
	$(GO) run $(WORKFLOWCHECK) ./workflows/...

# Latency and throughput of a tools/call through the durable path, beside the
# same tool in-process; then a real FEA solve through MCP beside ccx alone.
# Figures go to BENCHMARKS.md.
bench:
	$(GO) test ./bench -run '^$$' -bench 'ToolCall|HeldCalls' -benchtime 500x -count 1 -timeout 20m
	$(GO) test ./bench -run '^$$' -bench 'CantileverFEA' -benchtime 10x -count 1 -timeout 20m
	$(GO) test ./bench -run '^$$' -bench 'GateDecisionToClaimable' -benchtime 100x -count 1 -timeout 20m
	$(GO) test ./internal/solver -run '^$$' -bench 'SandboxOverhead' -benchtime 200x -count 1
