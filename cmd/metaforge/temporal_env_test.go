package main

import (
	"context"
	"flag"
	"io"
	"strings"
	"testing"
)

// Every command that reaches Temporal reads TLS and the API key from the
// one place (readTemporalEnv), and a wrong setting stops it before
// anything starts, naming the variable.
func TestTemporalEnvReachesEveryCommand(t *testing.T) {
	for _, k := range []string{"TEMPORAL_TLS_CERT", "TEMPORAL_TLS_CERT_DATA", "TEMPORAL_TLS_KEY", "TEMPORAL_TLS_KEY_DATA",
		"TEMPORAL_TLS_CA", "TEMPORAL_TLS_CA_DATA", "TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_CLIENT_CERT_DATA",
		"TEMPORAL_TLS_CLIENT_KEY_PATH", "TEMPORAL_TLS_CLIENT_KEY_DATA", "TEMPORAL_TLS_SERVER_CA_CERT_PATH",
		"TEMPORAL_TLS_SERVER_CA_CERT_DATA", "TEMPORAL_TLS_SERVER_NAME", "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"} {
		t.Setenv(k, "")
	}
	t.Setenv("TEMPORAL_ADDRESS", "temporal.example:7233")
	t.Setenv("TEMPORAL_NAMESPACE", "site")
	t.Setenv("TEMPORAL_TLS", "true")
	t.Setenv("TEMPORAL_API_KEY", "key-never-sent")

	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var tf temporalFlags
	tf.register(fs)
	opts, _, err := tf.parse(fs, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Address != "temporal.example:7233" || opts.Namespace != "site" || opts.Security.Describe() != "TLS, API key" {
		t.Fatalf("options: %s %s %s", opts.Address, opts.Namespace, opts.Security.Describe())
	}

	t.Setenv("TEMPORAL_TLS_CERT", "/nonexistent/client.crt")
	want := "TEMPORAL_TLS_CERT is set but no key"
	ctx := context.Background()
	if err := runServe(ctx, []string{"--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0"}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("serve: %v, want %q", err, want)
	}
	if err := runWorker(ctx, []string{"--data-dir", t.TempDir()}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("worker: %v, want %q", err, want)
	}
	port := 1
	if _, _, err := (queueFlags{temporalPort: &port}).open(ctx); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ingest and run: %v, want %q", err, want)
	}
}
