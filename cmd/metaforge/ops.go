package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"go.temporal.io/sdk/interceptor"

	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/telemetry"
)

// operations is what a process keeps beside Temporal and the catalogue:
// the ledger (when DATABASE_URL is set), the metrics, the traces, and where
// solvers run.
type operations struct {
	ledger  *ledger.Ledger
	metrics *telemetry.Metrics
	tracing *telemetry.Tracing
	solvers solverSetup
	logger  *slog.Logger
}

// startOperations opens the ledger and sets up telemetry and the solver
// runtimes. A DATABASE_URL that cannot be reached stops start-up, naming
// it: a deployment that asked for a ledger must not run without one.
func startOperations(ctx context.Context, sf solverFlags, logger *slog.Logger) (*operations, error) {
	solvers, err := sf.setup()
	if err != nil {
		return nil, err
	}
	o := &operations{metrics: telemetry.NewMetrics(), solvers: solvers, logger: logger}
	if o.tracing, err = telemetry.Setup(ctx, "metaforge", version); err != nil {
		return nil, err
	}
	if url := os.Getenv("DATABASE_URL"); url != "" {
		if o.ledger, err = ledger.Open(ctx, url); err != nil {
			o.stop()
			return nil, fmt.Errorf("DATABASE_URL: %w", err)
		}
	}
	return o, nil
}

// stop closes the ledger and flushes the traces.
func (o *operations) stop() {
	if o.ledger != nil {
		o.ledger.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = o.tracing.Shutdown(ctx)
}

// temporalInterceptors trace every workflow and activity the client starts
// and the workers run.
func (o *operations) temporalInterceptors() ([]interceptor.ClientInterceptor, error) {
	i, err := o.tracing.TemporalInterceptor()
	if err != nil {
		return nil, err
	}
	return []interceptor.ClientInterceptor{i}, nil
}

// ledgerProbe is the ledger's line in health: off, and saying so, without
// DATABASE_URL.
func (o *operations) ledgerProbe(ctx context.Context) health.Component {
	if o.ledger == nil {
		return health.Component{Mode: "none", Detail: ledger.Off() + "; calls, decisions and sessions are not recorded"}
	}
	reachable, addr, err := o.ledger.Probe(ctx)
	c := health.Component{Mode: "postgresql", Reachable: reachable, Address: addr, Durable: true}
	if err != nil {
		c.Error = err.Error()
	}
	return c
}

// observers hear every call the MCP server ends.
func (o *operations) observers() []mcpserver.CallObserver {
	obs := []mcpserver.CallObserver{telemetry.CallCounter{Metrics: o.metrics}}
	if o.ledger != nil {
		obs = append(obs, ledger.Recorder{Ledger: o.ledger, Logger: o.logger})
	}
	return obs
}

// routes are /metrics, and the ledger's reads under /v1/ledger.
func (o *operations) routes() []mcpserver.Routes {
	return []mcpserver.Routes{metricsRoute{o.metrics}, ledger.Handler{Ledger: o.ledger}}
}

// metricsRoute serves Prometheus's /metrics outside the API's auth, as a
// scraper expects.
type metricsRoute struct{ m *telemetry.Metrics }

func (r metricsRoute) Register(api *http.ServeMux) { api.Handle("GET /metrics", r.m.Handler()) }
func (metricsRoute) Pages() []string               { return []string{"/metrics"} }
