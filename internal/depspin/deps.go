// Package depspin holds the new modules in go.mod while the packages that use
// them are written. Temporary: removed once they are imported for real.
package depspin

import (
	_ "github.com/docker/docker/api/types/container"
	_ "github.com/docker/docker/client"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/prometheus/client_golang/prometheus/testutil"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	_ "go.opentelemetry.io/otel/sdk/trace"
	_ "go.opentelemetry.io/otel/sdk/trace/tracetest"
	_ "go.temporal.io/sdk/contrib/opentelemetry"
)
