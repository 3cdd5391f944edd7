package worker

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
)

// TemporalSecurity is how MetaForge proves itself to an external Temporal
// cluster and checks the cluster back: TLS (with a client certificate for
// mTLS) and an API key. TemporalSecurityFromEnv reads it from the variables
// the Temporal CLI reads, so the environment that lets `temporal` reach a
// cluster lets MetaForge reach it too. An embedded or shared dev server
// speaks plaintext on loopback and ignores it.
type TemporalSecurity struct {
	// TLS is the client's TLS configuration; nil means plaintext.
	TLS *tls.Config
	// TLSDisabled sends the API key over plaintext (TEMPORAL_TLS=false):
	// without it the SDK would turn TLS on because a key is set.
	TLSDisabled bool
	// APIKey is sent as "authorization: Bearer KEY" on every call.
	APIKey string
	// set names the variables that were set, for the note that an
	// embedded server ignores them.
	set []string
}

// The CLI's names for one setting: the legacy name (issue 27 and older
// CLIs) and the current one (temporal CLI 1.x, envconfig). Either works;
// both set to different values is refused.
type temporalEnvName struct{ legacy, current, what string }

var (
	envClientCert     = temporalEnvName{"TEMPORAL_TLS_CERT", "TEMPORAL_TLS_CLIENT_CERT_PATH", "the client certificate's PEM file"}
	envClientCertData = temporalEnvName{"TEMPORAL_TLS_CERT_DATA", "TEMPORAL_TLS_CLIENT_CERT_DATA", "the client certificate, PEM inline"}
	envClientKey      = temporalEnvName{"TEMPORAL_TLS_KEY", "TEMPORAL_TLS_CLIENT_KEY_PATH", "the client key's PEM file"}
	envClientKeyData  = temporalEnvName{"TEMPORAL_TLS_KEY_DATA", "TEMPORAL_TLS_CLIENT_KEY_DATA", "the client key, PEM inline"}
	envServerCA       = temporalEnvName{"TEMPORAL_TLS_CA", "TEMPORAL_TLS_SERVER_CA_CERT_PATH", "the PEM file of the CA that signed the cluster's certificate"}
	envServerCAData   = temporalEnvName{"TEMPORAL_TLS_CA_DATA", "TEMPORAL_TLS_SERVER_CA_CERT_DATA", "the CA that signed the cluster's certificate, PEM inline"}
)

// Variables with one name only.
const (
	envTLS             = "TEMPORAL_TLS"
	envTLSServerName   = "TEMPORAL_TLS_SERVER_NAME"
	envTLSNoHostVerify = "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"
	envTemporalAPIKey  = "TEMPORAL_API_KEY"
)

// TemporalSecurityFromEnv reads TLS and the API key as the Temporal CLI
// names them (getenv is os.Getenv; an empty value counts as unset):
//
//	TEMPORAL_TLS_CERT / TEMPORAL_TLS_CLIENT_CERT_PATH       client certificate (PEM file)
//	TEMPORAL_TLS_CERT_DATA / TEMPORAL_TLS_CLIENT_CERT_DATA  the same, PEM inline
//	TEMPORAL_TLS_KEY / TEMPORAL_TLS_CLIENT_KEY_PATH         its private key (PEM file)
//	TEMPORAL_TLS_KEY_DATA / TEMPORAL_TLS_CLIENT_KEY_DATA    the same, PEM inline
//	TEMPORAL_TLS_CA / TEMPORAL_TLS_SERVER_CA_CERT_PATH      CA of the cluster's certificate (PEM file; default: the system's roots)
//	TEMPORAL_TLS_CA_DATA / TEMPORAL_TLS_SERVER_CA_CERT_DATA the same, PEM inline
//	TEMPORAL_TLS_SERVER_NAME                                name to verify the cluster's certificate against (default: the host of TEMPORAL_ADDRESS)
//	TEMPORAL_TLS_DISABLE_HOST_VERIFICATION                  true: do not verify the cluster's certificate at all
//	TEMPORAL_TLS                                            true: TLS with no other setting; false: see below
//	TEMPORAL_API_KEY                                        sent as "authorization: Bearer KEY"
//
// TLS is on when TEMPORAL_TLS=true or any TLS setting is given. An API key
// alone also turns TLS on, as the SDK and the CLI do, because a bearer
// key sent in plaintext can be read off the wire; TEMPORAL_TLS=false
// (the CLI's --tls=false) sends it in plaintext anyway, for a cluster on
// loopback or behind a TLS-terminating proxy. TEMPORAL_TLS=false together
// with certificates is a contradiction and refused, as are two names of
// one setting with different values, a file and inline data for one
// setting, a certificate without its key (or the reverse), a file that
// cannot be read, PEM that does not parse, a key that does not match its
// certificate, and an expired client certificate: each error names the
// variable and what to set.
func TemporalSecurityFromEnv(getenv func(string) string) (TemporalSecurity, error) {
	var s TemporalSecurity
	get := func(name string) string {
		v := getenv(name)
		if v != "" {
			s.set = append(s.set, name)
		}
		return v
	}
	pick := func(n temporalEnvName) (value, name string, err error) {
		l, c := get(n.legacy), get(n.current)
		switch {
		case l != "" && c != "" && l != c:
			return "", "", fmt.Errorf("%s and %s are both set, to different values; they name the same setting (%s): unset one", n.legacy, n.current, n.what)
		case l != "":
			return l, n.legacy, nil
		default:
			return c, n.current, nil
		}
	}
	boolean := func(name string) (value, given bool, err error) {
		v := get(name)
		if v == "" {
			return false, false, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, false, fmt.Errorf("%s=%q is not a boolean: set it to true or false", name, v)
		}
		return b, true, nil
	}

	var pems [6]pemSource
	for i, n := range []temporalEnvName{envClientCert, envClientCertData, envClientKey, envClientKeyData, envServerCA, envServerCAData} {
		v, name, err := pick(n)
		if err != nil {
			return TemporalSecurity{}, err
		}
		pems[i] = pemSource{name: name, value: v, inline: i%2 == 1}
	}
	cert, key, ca := oneOf(pems[0], pems[1]), oneOf(pems[2], pems[3]), oneOf(pems[4], pems[5])
	for _, pair := range [][2]pemSource{{pems[0], pems[1]}, {pems[2], pems[3]}, {pems[4], pems[5]}} {
		if pair[0].value != "" && pair[1].value != "" {
			return TemporalSecurity{}, fmt.Errorf("%s and %s are both set: give it as a file or inline, not both (unset one)", pair[0].name, pair[1].name)
		}
	}
	serverName := get(envTLSServerName)
	noVerify, _, err := boolean(envTLSNoHostVerify)
	if err != nil {
		return TemporalSecurity{}, err
	}
	tlsOn, tlsGiven, err := boolean(envTLS)
	if err != nil {
		return TemporalSecurity{}, err
	}
	s.APIKey = get(envTemporalAPIKey)

	var tlsSettings []string
	for _, p := range []pemSource{cert, key, ca} {
		if p.value != "" {
			tlsSettings = append(tlsSettings, p.name)
		}
	}
	if serverName != "" {
		tlsSettings = append(tlsSettings, envTLSServerName)
	}
	if noVerify {
		tlsSettings = append(tlsSettings, envTLSNoHostVerify)
	}
	if tlsGiven && !tlsOn {
		if len(tlsSettings) > 0 {
			return TemporalSecurity{}, fmt.Errorf("%s=false, but %s %s set: unset %s to use TLS, or unset the TLS settings for plaintext",
				envTLS, strings.Join(tlsSettings, ", "), isAre(len(tlsSettings)), envTLS)
		}
		s.TLSDisabled = s.APIKey != ""
		return s, nil
	}
	if !tlsOn && len(tlsSettings) == 0 && s.APIKey == "" {
		return s, nil
	}

	conf := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName, InsecureSkipVerify: noVerify}
	switch {
	case cert.value != "" && key.value == "":
		return TemporalSecurity{}, fmt.Errorf("%s is set but no key: set %s (or %s) to the client certificate's private key", cert.name, envClientKey.legacy, envClientKeyData.legacy)
	case key.value != "" && cert.value == "":
		return TemporalSecurity{}, fmt.Errorf("%s is set but no certificate: set %s (or %s) to the client certificate", key.name, envClientCert.legacy, envClientCertData.legacy)
	case cert.value != "":
		pair, err := loadKeyPair(cert, key)
		if err != nil {
			return TemporalSecurity{}, err
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	if ca.value != "" {
		b, err := ca.read()
		if err != nil {
			return TemporalSecurity{}, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return TemporalSecurity{}, fmt.Errorf("%s: no PEM certificate parses in %s (expected -----BEGIN CERTIFICATE-----): set it to the CA certificate that signed the cluster's", ca.name, ca.where())
		}
		conf.RootCAs = pool
	}
	s.TLS = conf
	return s, nil
}

// pemSource is one PEM setting: a file path, or PEM inline.
type pemSource struct {
	name   string
	value  string
	inline bool
}

func oneOf(path, data pemSource) pemSource {
	if data.value != "" {
		return data
	}
	return path
}

func (p pemSource) where() string {
	if p.inline {
		return "its value"
	}
	return p.value
}

func (p pemSource) read() ([]byte, error) {
	if p.inline {
		return []byte(p.value), nil
	}
	b, err := os.ReadFile(p.value)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read %s (%v): set it to an existing PEM file", p.name, p.value, err)
	}
	return b, nil
}

// loadKeyPair reads the client certificate and key, each checked on its
// own first so that the error names the variable that is wrong.
func loadKeyPair(cert, key pemSource) (tls.Certificate, error) {
	certPEM, err := cert.read()
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := key.read()
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := firstCertificate(certPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %v in %s: set it to the client certificate (-----BEGIN CERTIFICATE-----)", cert.name, err, cert.where())
	}
	if !hasPrivateKeyBlock(keyPEM) {
		return tls.Certificate{}, fmt.Errorf("%s: no PEM private key in %s (expected -----BEGIN PRIVATE KEY----- or -----BEGIN RSA/EC PRIVATE KEY-----): set it to the client certificate's key", key.name, key.where())
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		if strings.Contains(err.Error(), "does not match") {
			return tls.Certificate{}, fmt.Errorf("%s and %s do not belong together: the private key does not match the certificate's public key; set the key made with that certificate", cert.name, key.name)
		}
		return tls.Certificate{}, fmt.Errorf("%s and %s: %v; set them to a PEM certificate and its PEM private key", cert.name, key.name, err)
	}
	if now := time.Now(); now.After(leaf.NotAfter) {
		return tls.Certificate{}, fmt.Errorf("%s: the client certificate %q expired on %s: set a current one", cert.name, leaf.Subject.CommonName, leaf.NotAfter.Format(time.DateOnly))
	}
	return pair, nil
}

func firstCertificate(b []byte) (*x509.Certificate, error) {
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return nil, fmt.Errorf("no PEM certificate")
		}
		if block.Type == "CERTIFICATE" {
			c, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("the PEM certificate does not parse (%v)", err)
			}
			return c, nil
		}
	}
}

func hasPrivateKeyBlock(b []byte) bool {
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return false
		}
		if strings.HasSuffix(block.Type, "PRIVATE KEY") {
			return true
		}
	}
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// IsZero says no variable was set: plaintext, no key.
func (s TemporalSecurity) IsZero() bool { return len(s.set) == 0 }

// Variables names the variables that were set, never their values.
func (s TemporalSecurity) Variables() []string { return append([]string(nil), s.set...) }

// MutualTLS says a client certificate is presented.
func (s TemporalSecurity) MutualTLS() bool { return s.TLS != nil && len(s.TLS.Certificates) > 0 }

// Describe is the connection's security for health and logs: "TLS
// (mTLS), API key", "TLS", "API key over plaintext (TEMPORAL_TLS=false)"
// or "plaintext". It never includes the key.
func (s TemporalSecurity) Describe() string {
	var parts []string
	switch {
	case s.MutualTLS():
		parts = append(parts, "TLS (mTLS)")
	case s.TLS != nil:
		parts = append(parts, "TLS")
	}
	switch {
	case s.APIKey != "" && s.TLS != nil:
		parts = append(parts, "API key")
	case s.APIKey != "":
		parts = append(parts, "API key over plaintext ("+envTLS+"=false)")
	}
	if len(parts) == 0 {
		return "plaintext"
	}
	return strings.Join(parts, ", ")
}

// Apply puts TLS and the key on a client's options.
func (s TemporalSecurity) Apply(o *client.Options) {
	if s.TLS != nil {
		o.ConnectionOptions.TLS = s.TLS.Clone()
	}
	o.ConnectionOptions.TLSDisabled = s.TLSDisabled
	if s.APIKey != "" {
		o.Credentials = client.NewAPIKeyStaticCredentials(s.APIKey)
	}
}

// explainDenied says what to set when the cluster's authorizer refused a
// call that needs the given right ("read", "admin") on the namespace.
func (s TemporalSecurity) explainDenied(namespace, right string) string {
	if s.APIKey == "" {
		return fmt.Sprintf("no %s is set and the cluster authorizes its callers: set %s to a key it accepts with at least %s rights on namespace %s",
			envTemporalAPIKey, envTemporalAPIKey, right, namespace)
	}
	return fmt.Sprintf("the cluster refused the %s given: it is not valid there (signing key, expiry) or grants no %s rights on namespace %s; set one that does",
		envTemporalAPIKey, right, namespace)
}

// explainDialError says which variable to set when the connection itself
// failed: the TLS handshake's errors are precise, but they name no
// variable.
func (s TemporalSecurity) explainDialError(err error) string {
	msg := err.Error()
	has := func(subs ...string) bool {
		for _, sub := range subs {
			if strings.Contains(msg, sub) {
				return true
			}
		}
		return false
	}
	switch {
	case has("PermissionDenied", "Request unauthorized") && s.APIKey == "":
		return fmt.Sprintf("the cluster authorizes its callers: set %s to a key it accepts", envTemporalAPIKey)
	case has("PermissionDenied", "Request unauthorized"):
		// Only the key itself is checked before GetSystemInfo, which
		// needs no rights.
		return fmt.Sprintf("the cluster does not accept the %s given (its signature, signing key id or expiry): set a valid key", envTemporalAPIKey)
	case has("certificate required", "bad certificate", "unknown certificate", "certificate_required") && !s.MutualTLS():
		return fmt.Sprintf("the cluster asks for a client certificate (mTLS): set %s and %s (or %s and %s)",
			envClientCert.legacy, envClientKey.legacy, envClientCertData.legacy, envClientKeyData.legacy)
	case s.TLS != nil && !s.MutualTLS() && has("broken pipe", "connection reset", "EOF", "server preface"):
		// The server's "certificate required" alert races the client's
		// first write: the client may see only the closed connection.
		return fmt.Sprintf("the cluster closed the TLS connection, as one that asks for a client certificate (mTLS) does: set %s and %s (or %s and %s)",
			envClientCert.legacy, envClientKey.legacy, envClientCertData.legacy, envClientKeyData.legacy)
	case has("certificate required", "bad certificate", "unknown certificate", "expired certificate", "certificate_required"):
		return fmt.Sprintf("the cluster did not accept the client certificate (%s): it must be signed by a CA the cluster trusts, and current",
			envClientCert.legacy)
	case has("unknown authority"):
		if s.TLS != nil && s.TLS.RootCAs != nil {
			return fmt.Sprintf("the cluster's certificate is not signed by the CA in %s: set it to the CA that signed the cluster's certificate", envServerCA.legacy)
		}
		return fmt.Sprintf("the cluster's certificate is not signed by a CA this machine trusts: set %s (or %s) to the CA that signed it", envServerCA.legacy, envServerCAData.legacy)
	case has("certificate is valid for", "certificate is not valid for", "doesn't contain any IP SANs"):
		return fmt.Sprintf("the cluster's certificate does not name the host of TEMPORAL_ADDRESS: set %s to a name it carries", envTLSServerName)
	case has("first record does not look like a TLS handshake"):
		return fmt.Sprintf("the cluster speaks plaintext: unset the TLS settings (%s=false sends an API key in plaintext)", envTLS)
	case s.TLS == nil && has("server preface", "connection closed", "EOF", "connection reset"):
		return fmt.Sprintf("if the cluster requires TLS, set %s=true, or %s (and %s/%s for mTLS)", envTLS, envServerCA.legacy, envClientCert.legacy, envClientKey.legacy)
	default:
		return "check TEMPORAL_ADDRESS, that the cluster is running, and its TLS and API key settings"
	}
}
