package worker

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"

	"github.com/metaforge/metaforge/adapters/health"
)

// Temporal modes, as health reports them.
const (
	ModeEmbedded = "embedded" // this process runs the dev server
	ModeExternal = "external" // TEMPORAL_ADDRESS
	ModeShared   = "shared"   // a metaforge serve already running on this machine
)

// TemporalOptions say where Temporal is. With Address set, MetaForge
// connects there and embeds nothing; otherwise it embeds a dev server, or
// (with UseRunning) first looks for one already serving Embed's port.
type TemporalOptions struct {
	Address    string
	Namespace  string
	Embed      DevServerOptions
	UseRunning bool
	Logger     *slog.Logger
	// Interceptors wrap the client and every worker built on it (the
	// OpenTelemetry tracing interceptor).
	Interceptors []interceptor.ClientInterceptor
	// Security is TLS and the API key for the cluster at Address
	// (TemporalSecurityFromEnv). An embedded or shared dev server speaks
	// plaintext on loopback and ignores it, saying so in a log line and
	// in health.
	Security TemporalSecurity
}

// Temporal is a connection to Temporal and, when embedded, its server.
type Temporal struct {
	Client    client.Client
	Dev       *DevServer
	Mode      string
	Address   string
	Namespace string
	UIAddress string
	// Security describes TLS and the API key in use (TemporalSecurity.Describe).
	Security string
	// ignoredSecurity names the TLS and API key variables set while the
	// server is embedded or shared, which ignores them.
	ignoredSecurity []string
}

// ConnectTemporal connects (or embeds and connects) and registers the
// search attributes.
func ConnectTemporal(ctx context.Context, opts TemporalOptions) (*Temporal, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	nameBinaryByBuildID()
	t := &Temporal{Namespace: opts.Namespace}
	switch {
	case opts.Address != "":
		t.Mode, t.Address = ModeExternal, opts.Address
	case opts.UseRunning && answers(fmt.Sprintf("%s:%d", hostOr(opts.Embed.IP), opts.Embed.FrontendPort)):
		t.Mode, t.Address = ModeShared, fmt.Sprintf("%s:%d", hostOr(opts.Embed.IP), opts.Embed.FrontendPort)
	default:
		opts.Embed.Namespace = opts.Namespace
		if opts.Embed.Logger == nil {
			opts.Embed.Logger = opts.Logger
		}
		dev, err := StartDevServer(opts.Embed)
		if err != nil {
			return nil, err
		}
		t.Mode, t.Dev, t.Address, t.UIAddress = ModeEmbedded, dev, dev.Address(), dev.UIAddress()
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = waitListening(wctx, dev.Address())
		cancel()
		if err != nil {
			dev.Stop()
			return nil, err
		}
	}
	copts := client.Options{
		HostPort:     t.Address,
		Namespace:    t.Namespace,
		Logger:       sdklog.NewStructuredLogger(opts.Logger.With("component", "temporal-sdk")),
		Interceptors: opts.Interceptors,
	}
	if t.Mode == ModeExternal {
		opts.Security.Apply(&copts)
		t.Security = opts.Security.Describe()
	} else if !opts.Security.IsZero() {
		t.ignoredSecurity = opts.Security.Variables()
		opts.Logger.Warn("Temporal TLS and API key settings ignored: they apply only to a cluster named by TEMPORAL_ADDRESS",
			"mode", t.Mode, "variables", strings.Join(t.ignoredSecurity, ", "))
	}
	if t.Mode == ModeEmbedded {
		// Loopback to our own process: gzip only costs CPU (about 4% of a
		// call's, measured in BENCHMARKS.md). A cluster elsewhere keeps the
		// SDK's default.
		copts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	}
	c, err := client.DialContext(ctx, copts)
	if err != nil {
		t.Close()
		if t.Mode == ModeExternal {
			return nil, fmt.Errorf("connect to Temporal at %s (namespace %s, %s): %w; %s", t.Address, t.Namespace, t.Security, err, opts.Security.explainDialError(err))
		}
		return nil, fmt.Errorf("connect to Temporal at %s (namespace %s): %w; check TEMPORAL_ADDRESS", t.Address, t.Namespace, err)
	}
	t.Client = c
	if t.Mode == ModeExternal {
		// A cluster MetaForge did not create: its namespace is someone
		// else's to make, so a missing one is an error that says how.
		if err := checkNamespace(ctx, c, t.Address, t.Namespace, opts.Security); err != nil {
			t.Close()
			return nil, err
		}
	}
	if err := RegisterSearchAttributes(ctx, c, t.Namespace); err != nil {
		t.Close()
		if t.Mode == ModeExternal {
			return nil, fmt.Errorf("the Temporal cluster at %s: %w", t.Address, err)
		}
		return nil, err
	}
	return t, nil
}

// Close closes the client and stops an embedded server.
func (t *Temporal) Close() {
	if t.Client != nil {
		t.Client.Close()
	}
	if t.Dev != nil {
		t.Dev.Stop()
	}
}

// Probe measures Temporal for health.check: it asks the frontend, it does
// not assume.
func (t *Temporal) Probe(ctx context.Context) health.Component {
	c := health.Component{Mode: t.Mode, Address: t.Address, Durable: t.Dev == nil || t.Dev.durable}
	switch t.Mode {
	case ModeEmbedded:
		c.Detail = "embedded Temporal dev server in this process"
		if t.Dev.durable {
			c.Detail += "; runs are kept in " + t.Dev.databaseFile
		} else {
			c.Detail += "; in memory, nothing survives a restart"
		}
		if t.UIAddress != "" {
			c.Detail += "; Temporal UI at " + t.UIAddress
		}
	case ModeShared:
		c.Detail = "the Temporal server of a metaforge serve on this machine"
	case ModeExternal:
		c.Detail = "external Temporal (TEMPORAL_ADDRESS), namespace " + t.Namespace + "; " + t.Security
	}
	if len(t.ignoredSecurity) > 0 {
		c.Detail += "; " + strings.Join(t.ignoredSecurity, ", ") + " ignored: TLS and API keys apply only to a cluster named by TEMPORAL_ADDRESS"
	}
	if _, err := t.Client.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		c.Error = err.Error()
		return c
	}
	c.Reachable = true
	return c
}

func answers(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}

func hostOr(ip string) string {
	if ip == "" {
		return "127.0.0.1"
	}
	return ip
}
