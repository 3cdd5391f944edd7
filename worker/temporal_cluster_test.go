package worker_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/clustertest"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// temporalEnvVars are every variable TemporalSecurityFromEnv reads, unset
// by clearTemporalEnv so a test sees only the ones it sets.
var temporalEnvVars = []string{
	"TEMPORAL_TLS_CERT", "TEMPORAL_TLS_CERT_DATA", "TEMPORAL_TLS_KEY", "TEMPORAL_TLS_KEY_DATA", "TEMPORAL_TLS_CA", "TEMPORAL_TLS_CA_DATA",
	"TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_CLIENT_CERT_DATA", "TEMPORAL_TLS_CLIENT_KEY_PATH", "TEMPORAL_TLS_CLIENT_KEY_DATA",
	"TEMPORAL_TLS_SERVER_CA_CERT_PATH", "TEMPORAL_TLS_SERVER_CA_CERT_DATA", "TEMPORAL_TLS_SERVER_NAME", "TEMPORAL_TLS",
	"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION", "TEMPORAL_API_KEY",
}

// connectFromEnv sets the environment as an operator would and connects
// the way cmd/metaforge does: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and
// worker.TemporalSecurityFromEnv(os.Getenv).
func connectFromEnv(t *testing.T, address, namespace string, env map[string]string) (*worker.Temporal, error) {
	t.Helper()
	for _, k := range temporalEnvVars {
		t.Setenv(k, "")
	}
	t.Setenv("TEMPORAL_ADDRESS", address)
	t.Setenv("TEMPORAL_NAMESPACE", namespace)
	for k, v := range env {
		t.Setenv(k, v)
	}
	sec, err := worker.TemporalSecurityFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	tmp, err := worker.ConnectTemporal(ctx, worker.TemporalOptions{
		Address: os.Getenv("TEMPORAL_ADDRESS"), Namespace: os.Getenv("TEMPORAL_NAMESPACE"),
		Security: sec, Logger: workertest.QuietLogger(),
	})
	if err == nil {
		t.Cleanup(tmp.Close)
	}
	return tmp, err
}

func mustFail(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: connected", what)
	}
	t.Logf("%s: %v", what, err)
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: the error\n%v\ndoes not say %q", what, err, w)
		}
	}
}

// assertAttributes checks the namespace has every MetaForge attribute with
// its type.
func assertAttributes(t *testing.T, c client.Client, namespace string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	if len(worker.SearchAttributes) != 11 {
		t.Fatalf("%d search attributes, the test expects 10 Keyword and 1 KeywordList", len(worker.SearchAttributes))
	}
	for name, typ := range worker.SearchAttributes {
		if got := have.GetCustomAttributes()[name]; got != typ {
			t.Errorf("namespace %s: %s is %s, want %s", namespace, name, got, typ)
		}
	}
}

func echoWorkflow(ctx workflow.Context, s string) (string, error) { return "echo " + s, nil }

// MetaForge on a cluster with mTLS, certificates made here: the env
// reader's legacy names and _DATA forms both connect, register the
// attributes and run a workflow that sets them at once; no client
// certificate, a wrong CA and plaintext each fail naming what to set.
func TestClusterMutualTLS(t *testing.T) {
	pki := newTestPKI(t)
	t0 := time.Now()
	cl := clustertest.Start(t, clustertest.Options{Port: clustertest.PortTLS, Fresh: true, TLSDir: pki.dir})
	t.Cleanup(func() {
		t0 := time.Now()
		cl.Stop(t)
		t.Logf("cluster stopped in %s", time.Since(t0).Round(time.Millisecond))
	})
	t.Logf("cluster up in %s", time.Since(t0).Round(time.Millisecond))

	t1 := time.Now()
	tmp, err := connectFromEnv(t, cl.Address, "default", map[string]string{
		"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_KEY": pki.path("client.key"), "TEMPORAL_TLS_CA": pki.path("ca.crt"),
	})
	if err != nil {
		t.Fatalf("legacy names: %v\nfrontend log:\n%s", err, cl.Log("frontend", 20))
	}
	t.Logf("connected and registered the attributes in %s", time.Since(t1).Round(time.Millisecond))
	assertAttributes(t, tmp.Client, "default")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if h := tmp.Probe(ctx); !h.Reachable || !strings.Contains(h.Detail, "TLS (mTLS)") || h.Mode != worker.ModeExternal {
		t.Errorf("health: %+v", h)
	}

	// A workflow through the mTLS connection, started with MetaForge's
	// attributes the moment ConnectTemporal returned.
	w := sdkworker.New(tmp.Client, "tls-test", sdkworker.Options{})
	w.RegisterWorkflow(echoWorkflow)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := tmp.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "tls-echo", TaskQueue: "tls-test",
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrTool.ValueSet("echo"), workflows.AttrChange.ValueSet([]string{"PROPOSED"})),
	}, echoWorkflow, "over mTLS")
	if err != nil {
		t.Fatalf("start a workflow with the attributes: %v", err)
	}
	var out string
	if err := run.Get(ctx, &out); err != nil || out != "echo over mTLS" {
		t.Fatalf("workflow: %q, %v", out, err)
	}

	// The _DATA forms (PEM inline), the CA by its current name.
	if _, err := connectFromEnv(t, cl.Address, "default", map[string]string{
		"TEMPORAL_TLS_CERT_DATA": pki.read(t, "client.crt"), "TEMPORAL_TLS_KEY_DATA": pki.read(t, "client.key"),
		"TEMPORAL_TLS_SERVER_CA_CERT_DATA": pki.read(t, "ca.crt"),
	}); err != nil {
		t.Fatalf("_DATA forms: %v", err)
	}

	t2 := time.Now()
	_, err = connectFromEnv(t, cl.Address, "default", map[string]string{"TEMPORAL_TLS_CA": pki.path("ca.crt")})
	mustFail(t, "no client certificate", err, "client certificate (mTLS)", "set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (or TEMPORAL_TLS_CERT_DATA and TEMPORAL_TLS_KEY_DATA)")
	t.Logf("no client certificate: refused in %s", time.Since(t2).Round(time.Millisecond))

	other := newTestPKI(t)
	_, err = connectFromEnv(t, cl.Address, "default", map[string]string{
		"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_KEY": pki.path("client.key"), "TEMPORAL_TLS_CA": other.path("ca.crt"),
	})
	mustFail(t, "wrong CA", err, "not signed by the CA in TEMPORAL_TLS_CA")

	t3 := time.Now()
	_, err = connectFromEnv(t, cl.Address, "default", nil)
	mustFail(t, "plaintext", err, "TEMPORAL_TLS=true")
	t.Logf("plaintext: refused in %s", time.Since(t3).Round(time.Millisecond))
}

// testJWKS is an RS256 key whose public half the cluster reads from a
// JWKS file, and tokens signed with it.
type testJWKS struct {
	key  *rsa.PrivateKey
	kid  string
	path string
}

func newTestJWKS(t *testing.T) testJWKS {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	j := testJWKS{key: key, kid: "metaforge-test", path: filepath.Join(t.TempDir(), "jwks.json")}
	b64 := base64.RawURLEncoding.EncodeToString
	doc, _ := json.Marshal(map[string]any{"keys": []any{map[string]string{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": j.kid,
		"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
	}}})
	if err := os.WriteFile(j.path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return j
}

// token is a JWT for Temporal's default claim mapper: "sub" and the
// "permissions" claim ("namespace:role"; temporal-system is the system).
func (j testJWKS) token(t *testing.T, permissions ...string) string {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": j.kid})
	claims, _ := json.Marshal(map[string]any{"sub": "metaforge-test", "permissions": permissions,
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	signing := b64(header) + "." + b64(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, j.key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + b64(sig)
}

// MetaForge on a cluster that authorizes with JWTs (API keys): an admin
// key registers the attributes; a key with write but not admin rights on
// a fresh namespace is refused with each missing attribute and the command
// that creates them; no key, and a namespace that does not exist, each
// say what to do.
func TestClusterAPIKeys(t *testing.T) {
	jwks := newTestJWKS(t)
	admin := jwks.token(t, "temporal-system:admin", "default:admin")
	t0 := time.Now()
	cl := clustertest.Start(t, clustertest.Options{Port: clustertest.PortAuth, Fresh: true, JWKS: jwks.path, AdminToken: admin})
	t.Cleanup(func() {
		t0 := time.Now()
		cl.Stop(t)
		t.Logf("cluster stopped in %s", time.Since(t0).Round(time.Millisecond))
	})
	t.Logf("cluster up in %s", time.Since(t0).Round(time.Millisecond))

	plaintext := map[string]string{"TEMPORAL_TLS": "false"}
	withKey := func(key string) map[string]string {
		return map[string]string{"TEMPORAL_TLS": "false", "TEMPORAL_API_KEY": key}
	}

	t1 := time.Now()
	tmp, err := connectFromEnv(t, cl.Address, "default", withKey(admin))
	if err != nil {
		t.Fatalf("admin key: %v\nfrontend log:\n%s", err, cl.Log("frontend", 20))
	}
	t.Logf("admin key: connected and registered the attributes in %s", time.Since(t1).Round(time.Millisecond))
	assertAttributes(t, tmp.Client, "default")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := tmp.Probe(ctx)
	if !h.Reachable || !strings.Contains(h.Detail, "API key over plaintext") || strings.Contains(h.Detail, admin) {
		t.Errorf("health: %+v", h)
	}

	// A second namespace, registered with the admin key through the
	// SDK, as an administrator would prepare one.
	sec, err := worker.TemporalSecurityFromEnv(envOf(withKey(admin)))
	if err != nil {
		t.Fatal(err)
	}
	nsOpts := client.Options{HostPort: cl.Address, Logger: sdklog.NewStructuredLogger(workertest.QuietLogger())}
	sec.Apply(&nsOpts)
	nc, err := client.NewNamespaceClient(nsOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "restricted", WorkflowExecutionRetentionPeriod: durationpb.New(72 * time.Hour),
	}); err != nil {
		t.Fatal(err)
	}

	writer := jwks.token(t, "restricted:write")
	_, err = connectFromEnv(t, cl.Address, "restricted", withKey(writer))
	var wantNames []string
	for name, typ := range worker.SearchAttributes {
		wantNames = append(wantNames, " --name "+name+" --type "+typ.String())
	}
	mustFail(t, "write-only key", err, append(wantNames,
		"namespace restricted lacks MetaForge's search attributes", "MfChange (KeywordList)", "MfTool (Keyword)",
		"temporal operator search-attribute create --namespace restricted --name ", "admin rights on restricted", cl.Address)...)
	// Nothing was added: the namespace is as the administrator left it.
	list, err := tmp.Client.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "restricted"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.GetCustomAttributes()); n != 0 {
		t.Errorf("restricted has %d custom attributes after a refused start", n)
	}

	// Once an administrator has added them, the same key is enough.
	if _, err := tmp.Client.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: "restricted", SearchAttributes: worker.SearchAttributes,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := connectFromEnv(t, cl.Address, "restricted", withKey(writer)); err != nil {
		t.Fatalf("write key on a prepared namespace: %v", err)
	}

	// An attribute of another type is refused by name.
	if err := nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "clash", WorkflowExecutionRetentionPeriod: durationpb.New(72 * time.Hour),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Client.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: "clash", SearchAttributes: map[string]enumspb.IndexedValueType{"MfProject": enumspb.INDEXED_VALUE_TYPE_TEXT},
	}); err != nil {
		t.Fatal(err)
	}
	_, err = connectFromEnv(t, cl.Address, "clash", withKey(admin))
	mustFail(t, "wrong type", err, "MfProject is Text, MetaForge needs Keyword", "search-attribute remove --namespace clash --name NAME")

	_, err = connectFromEnv(t, cl.Address, "default", plaintext)
	mustFail(t, "no key", err, "no TEMPORAL_API_KEY is set", "read rights on namespace default")

	_, err = connectFromEnv(t, cl.Address, "default", withKey(jwks.token(t, "default:read")[:40]+"garbage"))
	mustFail(t, "bad key", err, "does not accept the TEMPORAL_API_KEY given")

	_, err = connectFromEnv(t, cl.Address, "nope", withKey(admin))
	mustFail(t, "missing namespace", err, "namespace nope does not exist on the Temporal cluster at "+cl.Address,
		"temporal operator namespace create --namespace nope --retention 72h")
}
