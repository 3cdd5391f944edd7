package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

// DevServerOptions configure the Temporal dev server MetaForge embeds when
// nothing else is configured.
type DevServerOptions struct {
	// DataDir holds the SQLite database (temporal.db) and the cluster id.
	// Empty means an in-memory database that nothing survives (tests).
	DataDir string
	IP      string // 127.0.0.1 when empty
	// FrontendPort is the gRPC frontend (7233 for metaforge serve; 0 picks a
	// free port).
	FrontendPort int
	// UIPort serves the Temporal UI; 0 means no UI.
	UIPort    int
	Namespace string // "default" when empty
	Logger    *slog.Logger
}

// DevServer is a running embedded Temporal server (and its UI).
type DevServer struct {
	server    temporal.Server
	logger    temporalLogger
	ui        *uiserver.Server
	address   string
	uiAddress string
	namespace string
	// durable is true when runs live in a database file that survives a
	// restart.
	durable      bool
	databaseFile string
}

// Address is the frontend's host:port.
func (d *DevServer) Address() string { return d.address }

// UIAddress is the Temporal UI's URL, or "" when it is not served.
func (d *DevServer) UIAddress() string { return d.uiAddress }

// Namespace is the namespace created for MetaForge.
func (d *DevServer) Namespace() string { return d.namespace }

// fastPolling is the dynamic config that makes one tools/call cost a few
// milliseconds instead of one 50 ms dispatch per step: the history queue
// processors' poll rates (20/s by default) and their backoffs. Measured one
// call at a time: 50 ms at p50 with the defaults, 14.5 ms with these.
var fastPolling = map[dynamicconfig.Key]any{
	dynamicconfig.TransferProcessorMaxPollRPS.Key():                  10000,
	dynamicconfig.TransferProcessorMaxPollHostRPS.Key():              10000,
	dynamicconfig.TimerProcessorMaxPollRPS.Key():                     10000,
	dynamicconfig.TimerProcessorMaxPollHostRPS.Key():                 10000,
	dynamicconfig.VisibilityProcessorMaxPollRPS.Key():                10000,
	dynamicconfig.VisibilityProcessorMaxPollHostRPS.Key():            10000,
	dynamicconfig.OutboundProcessorMaxPollRPS.Key():                  10000,
	dynamicconfig.OutboundProcessorMaxPollHostRPS.Key():              10000,
	dynamicconfig.TransferProcessorPollBackoffInterval.Key():         time.Millisecond,
	dynamicconfig.TimerProcessorPollBackoffInterval.Key():            time.Millisecond,
	dynamicconfig.VisibilityProcessorPollBackoffInterval.Key():       time.Millisecond,
	dynamicconfig.HistoryCacheHostLevelMaxSize.Key():                 8096,
	dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 1000,
	// A wait for a workflow's result is a history long poll. The server
	// can drop the "closed" notification when another is queued (seen in
	// the benchmark: 0.2-1% of calls waited the full 20 s default), so
	// polls end early and are renewed: a lost wake-up then costs 250 ms.
	dynamicconfig.HistoryLongPollExpirationInterval.Key(): 250 * time.Millisecond,
	// ForceSearchAttributesCacheRefreshOnRead stays off: it re-read the
	// cluster metadata from SQLite under one mutex on every start, Describe
	// and List. The attributes are in the namespace record before the
	// server starts (prepareSQLite), so nothing needs a refresh.
	dynamicconfig.FrontendPersistenceMaxQPS.Key(): 10000,
	// One partition per task queue: with one worker process, more partitions
	// only add forwarding hops.
	dynamicconfig.MatchingNumTaskqueueReadPartitions.Key():  1,
	dynamicconfig.MatchingNumTaskqueueWritePartitions.Key(): 1,
}

// clusterName is the embedded server's only cluster.
const clusterName = "active"

// sqlitePragmas trade a little durability on power loss (not on a crash of
// the process) for write throughput.
var sqlitePragmas = map[string]string{"journal_mode": "wal", "synchronous": "normal"}

// StartDevServer starts the embedded Temporal server. Every port is checked
// first, so a busy one is an error naming it before anything starts.
func StartDevServer(opts DevServerOptions) (*DevServer, error) {
	if opts.IP == "" {
		opts.IP = "127.0.0.1"
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if opts.FrontendPort == 0 {
		p, err := FreePort(opts.IP)
		if err != nil {
			return nil, err
		}
		opts.FrontendPort = p
	}
	if err := CheckPortFree(opts.IP, opts.FrontendPort, "Temporal frontend (--temporal-port)"); err != nil {
		return nil, err
	}
	if opts.UIPort != 0 {
		if err := CheckPortFree(opts.IP, opts.UIPort, "Temporal UI (--ui-port)"); err != nil {
			return nil, err
		}
	}
	ports, err := freePorts(opts.IP, 4) // frontend HTTP, history, matching, worker
	if err != nil {
		return nil, err
	}
	clusterID, err := persistentClusterID(opts.DataDir)
	if err != nil {
		return nil, err
	}
	sqlConf, err := prepareSQLite(opts.DataDir, opts.Namespace)
	if err != nil {
		return nil, err
	}
	conf := serverConfig(opts, ports, clusterID, sqlConf)

	logger := newTemporalLogger(opts.Logger)
	authorizer, err := authorization.GetAuthorizerFromConfig(&conf.Global.Authorization)
	if err != nil {
		return nil, fmt.Errorf("temporal authorizer: %w", err)
	}
	claimMapper, err := authorization.GetClaimMapperFromConfig(&conf.Global.Authorization, logger)
	if err != nil {
		return nil, fmt.Errorf("temporal claim mapper: %w", err)
	}
	dyn := dynamicconfig.StaticClient{}
	for k, v := range fastPolling {
		dyn[k] = v
	}
	hostPort := func(svc primitives.ServiceName) static.Hosts {
		return static.SingleLocalHost(fmt.Sprintf("%s:%d", opts.IP, conf.Services[string(svc)].RPC.GRPCPort))
	}
	server, err := temporal.NewServer(
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(map[primitives.ServiceName]static.Hosts{
			primitives.FrontendService: hostPort(primitives.FrontendService),
			primitives.MatchingService: hostPort(primitives.MatchingService),
			primitives.HistoryService:  hostPort(primitives.HistoryService),
			primitives.WorkerService:   hostPort(primitives.WorkerService),
		}),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper }),
		temporal.WithDynamicConfigClient(dyn),
	)
	if err != nil {
		return nil, fmt.Errorf("build embedded temporal server: %w", err)
	}
	if err := server.Start(); err != nil {
		return nil, fmt.Errorf("start embedded temporal server: %w", err)
	}
	d := &DevServer{server: server, logger: logger, address: fmt.Sprintf("%s:%d", opts.IP, opts.FrontendPort), namespace: opts.Namespace,
		durable: opts.DataDir != ""}
	if d.durable {
		d.databaseFile = sqlConf.DatabaseName
	}
	if opts.UIPort != 0 {
		d.ui = uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
			Host:                opts.IP,
			Port:                opts.UIPort,
			TemporalGRPCAddress: d.address,
			EnableUI:            true,
			CORS:                uiconfig.CORS{CookieInsecure: true},
			HideLogs:            true,
			DisableNewsFetch:    true,
		}))
		// Start blocks; the port was checked above, so its own Fatal on a
		// busy port cannot fire except in a race with another program.
		go func() {
			if err := d.ui.Start(); err != nil && !errors.Is(err, net.ErrClosed) {
				opts.Logger.Error("temporal UI stopped", "error", err)
			}
		}()
		d.uiAddress = fmt.Sprintf("http://%s:%d", opts.IP, opts.UIPort)
	}
	return d, nil
}

// Stop stops the UI and the server. Workflows in flight stay in the
// database and resume on the next start. What the server logs while its
// services stop one after another is debug (temporalLogger).
func (d *DevServer) Stop() {
	d.logger.stopped()
	if d.ui != nil {
		d.ui.Stop()
	}
	_ = d.server.Stop()
}

// prepareSQLite returns the SQL store config, creating the schema when the
// database file is new and the namespace when it is missing.
func prepareSQLite(dataDir, namespace string) (*config.SQL, error) {
	conf := &config.SQL{PluginName: sqliteplugin.PluginName}
	if dataDir == "" {
		conf.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
		conf.DatabaseName = "metaforge-" + randomHex(6)
	} else {
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, fmt.Errorf("create data dir %s: %w", dataDir, err)
		}
		conf.ConnectAttributes = map[string]string{"mode": "rwc"}
		conf.DatabaseName = filepath.Join(dataDir, "temporal.db")
	}
	for k, v := range sqlitePragmas {
		conf.ConnectAttributes[k] = v
	}
	// An in-memory database gets its schema from the SQLite plugin; a file
	// needs it once, when new.
	existing := false
	if dataDir != "" {
		if _, err := os.Stat(conf.DatabaseName); errors.Is(err, os.ErrNotExist) {
			if err := sqliteschema.SetupSchema(conf); err != nil {
				return nil, fmt.Errorf("set up temporal schema in %s: %w", conf.DatabaseName, err)
			}
		} else {
			existing = true
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, namespace, false, SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: %w", namespace, err)
	}
	// A namespace that already exists is left as it is by CreateNamespaces,
	// so the attributes a newer MetaForge added are written to it here.
	if err := sqliteschema.CreateNamespaces(conf, ns); err != nil {
		return nil, fmt.Errorf("create namespace %s: %w", namespace, err)
	}
	if existing {
		if err := addMissingSearchAttributesToStore(context.Background(), conf, namespace, clusterName); err != nil {
			return nil, err
		}
	}
	return conf, nil
}

func serverConfig(opts DevServerOptions, ports []int, clusterID string, sqlConf *config.SQL) *config.Config {
	var conf config.Config
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = opts.IP
	conf.Persistence.DefaultStore = "sqlite-default"
	conf.Persistence.VisibilityStore = "sqlite-default"
	conf.Persistence.NumHistoryShards = 1
	conf.Persistence.DataStores = map[string]config.DataStore{"sqlite-default": {SQL: sqlConf}}
	frontend := fmt.Sprintf("%s:%d", opts.IP, opts.FrontendPort)
	conf.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			clusterName: {
				Enabled:                true,
				InitialFailoverVersion: 1,
				RPCAddress:             frontend,
				HTTPAddress:            fmt.Sprintf("%s:%d", opts.IP, ports[0]),
				ClusterID:              clusterID,
			},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	service := func(grpcPort, httpPort int) config.Service {
		var s config.Service
		s.RPC.GRPCPort = grpcPort
		s.RPC.HTTPPort = httpPort
		s.RPC.BindOnIP = opts.IP
		return s
	}
	conf.Services = map[string]config.Service{
		"frontend": service(opts.FrontendPort, ports[0]),
		"history":  service(ports[1], 0),
		"matching": service(ports[2], 0),
		"worker":   service(ports[3], 0),
	}
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	conf.PublicClient.HostPort = frontend
	return &conf
}

// persistentClusterID keeps one cluster id per data dir: the database
// remembers the id it was created with and refuses another.
func persistentClusterID(dataDir string) (string, error) {
	if dataDir == "" {
		return newUUID(), nil
	}
	path := filepath.Join(dataDir, "cluster-id")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", fmt.Errorf("create data dir %s: %w", dataDir, err)
	}
	id := newUUID()
	if err := os.WriteFile(path, []byte(id+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return id, nil
}

// newUUID is a random (version 4) UUID: Temporal wants its cluster id in
// that form.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// CheckPortFree returns an error naming the port and its purpose when
// something already listens there.
func CheckPortFree(ip string, port int, purpose string) error {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, fmt.Sprint(port)))
	if err != nil {
		return fmt.Errorf("port %d for the %s is in use: %s (stop what holds it or choose another port)", port, purpose, simplifyListenError(err))
	}
	return l.Close()
}

func simplifyListenError(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// FreePort asks the kernel for a free TCP port on ip.
func FreePort(ip string) (int, error) {
	ports, err := freePorts(ip, 1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

func freePorts(ip string, n int) ([]int, error) {
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			return nil, fmt.Errorf("find a free port on %s: %w", ip, err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitListening waits for the frontend to accept connections, which it does a
// moment after Start returns.
func waitListening(ctx context.Context, addr string) error {
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			return c.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("temporal frontend %s did not come up: %w", addr, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
