package worker_test

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// What each combination of the temporal CLI's variables builds: TLS on or
// off, a client certificate, the CA, the key, and how health describes it.
func TestTemporalSecurityFromEnvBuilds(t *testing.T) {
	pki := newTestPKI(t)
	cases := []struct {
		name     string
		env      map[string]string
		describe string
		certs    int
		rootCAs  bool
		disabled bool
	}{
		{"nothing", map[string]string{}, "plaintext", 0, false, false},
		{"legacy paths", map[string]string{"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_KEY": pki.path("client.key"), "TEMPORAL_TLS_CA": pki.path("ca.crt")}, "TLS (mTLS)", 1, true, false},
		{"current paths", map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": pki.path("client.crt"), "TEMPORAL_TLS_CLIENT_KEY_PATH": pki.path("client.key"), "TEMPORAL_TLS_SERVER_CA_CERT_PATH": pki.path("ca.crt")}, "TLS (mTLS)", 1, true, false},
		{"legacy data", map[string]string{"TEMPORAL_TLS_CERT_DATA": pki.read(t, "client.crt"), "TEMPORAL_TLS_KEY_DATA": pki.read(t, "client.key"), "TEMPORAL_TLS_CA_DATA": pki.read(t, "ca.crt")}, "TLS (mTLS)", 1, true, false},
		{"current data", map[string]string{"TEMPORAL_TLS_CLIENT_CERT_DATA": pki.read(t, "client.crt"), "TEMPORAL_TLS_CLIENT_KEY_DATA": pki.read(t, "client.key"), "TEMPORAL_TLS_SERVER_CA_CERT_DATA": pki.read(t, "ca.crt")}, "TLS (mTLS)", 1, true, false},
		{"both names, same value", map[string]string{"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_CLIENT_CERT_PATH": pki.path("client.crt"), "TEMPORAL_TLS_KEY": pki.path("client.key")}, "TLS (mTLS)", 1, false, false},
		{"CA only", map[string]string{"TEMPORAL_TLS_CA": pki.path("ca.crt")}, "TLS", 0, true, false},
		{"TEMPORAL_TLS alone", map[string]string{"TEMPORAL_TLS": "true"}, "TLS", 0, false, false},
		{"API key alone turns TLS on", map[string]string{"TEMPORAL_API_KEY": "k"}, "TLS, API key", 0, false, false},
		{"API key with TEMPORAL_TLS=false", map[string]string{"TEMPORAL_API_KEY": "k", "TEMPORAL_TLS": "false"}, "API key over plaintext (TEMPORAL_TLS=false)", 0, false, true},
		{"mTLS and API key", map[string]string{"TEMPORAL_API_KEY": "k", "TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_KEY": pki.path("client.key")}, "TLS (mTLS), API key", 1, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := worker.TemporalSecurityFromEnv(envOf(c.env))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Describe(); got != c.describe {
				t.Errorf("Describe = %q, want %q", got, c.describe)
			}
			if s.TLSDisabled != c.disabled {
				t.Errorf("TLSDisabled = %v, want %v", s.TLSDisabled, c.disabled)
			}
			if c.describe == "plaintext" || c.disabled {
				if s.TLS != nil {
					t.Errorf("TLS = %+v, want nil", s.TLS)
				}
				return
			}
			if s.TLS == nil {
				t.Fatal("TLS is nil")
			}
			if len(s.TLS.Certificates) != c.certs {
				t.Errorf("%d client certificates, want %d", len(s.TLS.Certificates), c.certs)
			}
			if (s.TLS.RootCAs != nil) != c.rootCAs {
				t.Errorf("RootCAs set = %v, want %v", s.TLS.RootCAs != nil, c.rootCAs)
			}
			var o client.Options
			s.Apply(&o)
			if o.ConnectionOptions.TLS == nil || (s.APIKey != "") != (o.Credentials != nil) {
				t.Errorf("Apply: TLS %v, credentials %v", o.ConnectionOptions.TLS, o.Credentials)
			}
		})
	}
	s, err := worker.TemporalSecurityFromEnv(envOf(map[string]string{"TEMPORAL_TLS_SERVER_NAME": "temporal.example", "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": "true"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.TLS == nil || s.TLS.ServerName != "temporal.example" || !s.TLS.InsecureSkipVerify {
		t.Errorf("server name and host verification: %+v", s.TLS)
	}
	if got := strings.Join(s.Variables(), ","); got != "TEMPORAL_TLS_SERVER_NAME,TEMPORAL_TLS_DISABLE_HOST_VERIFICATION" {
		t.Errorf("Variables = %s", got)
	}
}

// Every wrong setting is refused by the variable's name, with what to set.
func TestTemporalSecurityFromEnvRefuses(t *testing.T) {
	pki := newTestPKI(t)
	other := newTestPKI(t)
	expired := newTestPKI(t)
	caKey, caCert, _ := makeCA(t, "expired CA")
	writeLeaf(t, expired.dir, "old", &x509.Certificate{
		SerialNumber: big.NewInt(9), Subject: pkix.Name{CommonName: "old client"},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, caCert, caKey)
	garbageDir := t.TempDir()
	writePEM(t, garbageDir, "garbage.pem", []byte("not PEM at all\n"))
	garbage := garbageDir + "/garbage.pem"

	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"two names, two values", map[string]string{"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_CLIENT_CERT_PATH": other.path("client.crt")},
			[]string{"TEMPORAL_TLS_CERT and TEMPORAL_TLS_CLIENT_CERT_PATH are both set", "unset one"}},
		{"two names of the CA data", map[string]string{"TEMPORAL_TLS_CA_DATA": pki.read(t, "ca.crt"), "TEMPORAL_TLS_SERVER_CA_CERT_DATA": other.read(t, "ca.crt")},
			[]string{"TEMPORAL_TLS_CA_DATA and TEMPORAL_TLS_SERVER_CA_CERT_DATA"}},
		{"file and inline", map[string]string{"TEMPORAL_TLS_CA": pki.path("ca.crt"), "TEMPORAL_TLS_CA_DATA": pki.read(t, "ca.crt")},
			[]string{"TEMPORAL_TLS_CA and TEMPORAL_TLS_CA_DATA are both set", "file or inline"}},
		{"certificate without key", map[string]string{"TEMPORAL_TLS_CERT": pki.path("client.crt")},
			[]string{"TEMPORAL_TLS_CERT is set but no key", "set TEMPORAL_TLS_KEY"}},
		{"key without certificate", map[string]string{"TEMPORAL_TLS_CLIENT_KEY_DATA": pki.read(t, "client.key")},
			[]string{"TEMPORAL_TLS_CLIENT_KEY_DATA is set but no certificate", "set TEMPORAL_TLS_CERT"}},
		{"missing file", map[string]string{"TEMPORAL_TLS_CERT": pki.path("nope.crt"), "TEMPORAL_TLS_KEY": pki.path("client.key")},
			[]string{"TEMPORAL_TLS_CERT: cannot read " + pki.path("nope.crt"), "existing PEM file"}},
		{"missing CA file", map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": pki.path("nope-ca.crt")},
			[]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read"}},
		{"unparsable certificate", map[string]string{"TEMPORAL_TLS_CERT": garbage, "TEMPORAL_TLS_KEY": pki.path("client.key")},
			[]string{"TEMPORAL_TLS_CERT: no PEM certificate in " + garbage}},
		{"unparsable key", map[string]string{"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_KEY_DATA": "junk"},
			[]string{"TEMPORAL_TLS_KEY_DATA: no PEM private key in its value"}},
		{"a certificate as the key", map[string]string{"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_KEY": pki.path("client.crt")},
			[]string{"TEMPORAL_TLS_KEY: no PEM private key"}},
		{"unparsable CA", map[string]string{"TEMPORAL_TLS_CA": garbage},
			[]string{"TEMPORAL_TLS_CA: no PEM certificate parses in " + garbage}},
		{"key of another certificate", map[string]string{"TEMPORAL_TLS_CERT": pki.path("client.crt"), "TEMPORAL_TLS_KEY": other.path("client.key")},
			[]string{"TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY do not belong together", "does not match"}},
		{"expired certificate", map[string]string{"TEMPORAL_TLS_CERT": expired.path("old.crt"), "TEMPORAL_TLS_KEY": expired.path("old.key")},
			[]string{"TEMPORAL_TLS_CERT: the client certificate \"old client\" expired on"}},
		{"TLS off with certificates", map[string]string{"TEMPORAL_TLS": "false", "TEMPORAL_TLS_CA": pki.path("ca.crt"), "TEMPORAL_TLS_SERVER_NAME": "x"},
			[]string{"TEMPORAL_TLS=false, but TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME are set"}},
		{"not a boolean", map[string]string{"TEMPORAL_TLS": "yes please"},
			[]string{`TEMPORAL_TLS="yes please" is not a boolean`}},
		{"host verification not a boolean", map[string]string{"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": "maybe"},
			[]string{"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION=\"maybe\" is not a boolean"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := worker.TemporalSecurityFromEnv(envOf(c.env))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not say %q", err, w)
				}
			}
		})
	}
}

// The key never appears in what health and logs print.
func TestTemporalSecurityNeverPrintsTheKey(t *testing.T) {
	s, err := worker.TemporalSecurityFromEnv(envOf(map[string]string{"TEMPORAL_API_KEY": "sekrit-123"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range append(s.Variables(), s.Describe()) {
		if strings.Contains(out, "sekrit") {
			t.Errorf("%q shows the key", out)
		}
	}
}

// The embedded server speaks plaintext on loopback: TLS and API key
// settings are ignored there, and health says so without the key.
func TestEmbeddedIgnoresTemporalSecurity(t *testing.T) {
	sec, err := worker.TemporalSecurityFromEnv(envOf(map[string]string{"TEMPORAL_API_KEY": "sekrit-embedded", "TEMPORAL_TLS": "true"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tmp, err := worker.ConnectTemporal(ctx, worker.TemporalOptions{Security: sec, Logger: workertest.QuietLogger(),
		Embed: worker.DevServerOptions{DataDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	h := tmp.Probe(ctx)
	if !h.Reachable || !strings.Contains(h.Detail, "TEMPORAL_TLS, TEMPORAL_API_KEY ignored") || strings.Contains(h.Detail, "sekrit") {
		t.Errorf("health: %+v", h)
	}
}
