package webfetch_test

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/internal/webfetch"
	"github.com/metaforge/metaforge/protocol"
)

func TestBlockedReasonClassifiesAddresses(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":              "loopback",
		"127.8.9.10":             "loopback",
		"10.0.0.7":               "private (RFC 1918)",
		"172.16.5.4":             "private (RFC 1918)",
		"172.31.255.255":         "private (RFC 1918)",
		"192.168.1.1":            "private (RFC 1918)",
		"169.254.169.254":        "link-local",
		"100.64.0.1":             "carrier-grade NAT",
		"100.127.255.254":        "carrier-grade NAT",
		"0.0.0.0":                "this network",
		"224.0.0.251":            "multicast",
		"255.255.255.255":        "reserved",
		"::1":                    "loopback",
		"::":                     "unspecified",
		"fc00::1":                "unique local",
		"fd12:3456::1":           "unique local",
		"fe80::1":                "link-local",
		"fe80::1%eth0":           "link-local",
		"ff02::1":                "multicast",
		"::ffff:127.0.0.1":       "loopback, carried in the IPv6 address ::ffff:127.0.0.1",
		"::ffff:10.1.1.1":        "private (RFC 1918), carried",
		"::ffff:169.254.169.254": "link-local",
		"64:ff9b::7f00:1":        "loopback, carried",
		"2002:a00:1::1":          "private (RFC 1918), carried",
		// Public addresses pass.
		"93.184.216.34":   "",
		"8.8.8.8":         "",
		"172.32.0.1":      "",
		"100.128.0.1":     "",
		"::ffff:8.8.8.8":  "",
		"2606:4700::1111": "",
	}
	for addr, want := range cases {
		got := webfetch.BlockedReason(netip.MustParseAddr(addr))
		if want == "" && got != "" {
			t.Errorf("%s is public, but BlockedReason says %q", addr, got)
		}
		if want != "" && !strings.Contains(got, want) {
			t.Errorf("BlockedReason(%s) = %q; want it to say %q", addr, got, want)
		}
	}
}

// The guard refuses the first URL when its host is, or resolves to, an
// address that is not public, and never dials it.
func TestGuardRefusesNonPublicHosts(t *testing.T) {
	h := newHarness(t)
	f := h.fetcher(webfetch.Options{})
	cases := map[string]string{
		"http://127.0.0.1/":                         "127.0.0.1 is loopback, not a public address",
		"http://127.0.0.1:80/admin":                 "loopback",
		"http://[::1]/":                             "loopback",
		"http://[::ffff:127.0.0.1]/":                "loopback, carried in the IPv6 address",
		"http://169.254.169.254/latest/meta-data/":  "link-local",
		"http://10.0.0.5/":                          "private (RFC 1918)",
		"http://localhost/":                         "is this machine (loopback)",
		"http://LOCALHOST./":                        "is this machine (loopback)",
		"http://api.localhost/":                     "is this machine (loopback)",
		"http://loop.example/":                      "resolves to 127.0.0.1: loopback",
		"http://intranet.example/wiki":              "resolves to 10.1.2.3: private (RFC 1918)",
		"http://metadata.example/latest/meta-data/": "resolves to 169.254.169.254: link-local",
		"http://loop6.example/":                     "resolves to ::1: loopback",
		"http://mapped.example/":                    "resolves to 127.0.0.1: loopback",
		"http://cgnat.example/":                     "carrier-grade NAT",
		"http://ula.example/":                       "unique local",
		"http://linklocal6.example/":                "link-local (fe80::/10)",
		"http://mixed.example/":                     "resolves to 192.168.1.10: private (RFC 1918)",
		"https://intranet.example/":                 "private (RFC 1918)",
	}
	for u, want := range cases {
		_, err := f.Fetch(context.Background(), u, 0)
		refusedWith(t, err, protocol.ToolExecutionError, want)
	}
	h.dialedOnly(t)
	if len(h.dialed) != 0 {
		t.Errorf("refused hosts were dialled: %v", h.dialed)
	}
}

// Only http and https on ports 80 and 443, and no credentials.
func TestGuardRefusesOtherSchemesPortsAndCredentials(t *testing.T) {
	h := newHarness(t)
	f := h.fetcher(webfetch.Options{})
	cases := []struct {
		url  string
		code protocol.Code
		want string
	}{
		{"http://datasheets.example:8080/", protocol.ToolExecutionError, "ports 80 and 443 only; http://datasheets.example:8080/ asks for port 8080"},
		{"https://datasheets.example:8443/x.pdf", protocol.ToolExecutionError, "asks for port 8443"},
		{"http://93.184.216.34:22/", protocol.ToolExecutionError, "asks for port 22"},
		{"ftp://datasheets.example/lm2596.pdf", protocol.InvalidParams, "http and https URLs only"},
		{"file:///etc/passwd", protocol.InvalidParams, "http and https URLs only"},
		{"gopher://datasheets.example:70/", protocol.InvalidParams, "http and https URLs only"},
		{"http://user:secret@datasheets.example/", protocol.InvalidParams, "credentials"},
		{"datasheets.example/page", protocol.InvalidParams, "not an absolute"},
	}
	for _, c := range cases {
		_, err := f.Fetch(context.Background(), c.url, 0)
		refusedWith(t, err, c.code, c.want)
	}
	h.dialedOnly(t)
	if len(h.dialed) != 0 {
		t.Errorf("refused URLs were dialled: %v", h.dialed)
	}
}

// A public URL that redirects to a private, loopback or metadata address,
// or to another port, is refused at that hop, and the private address is
// never dialled.
func TestGuardRefusesRedirectsToPrivateAddresses(t *testing.T) {
	h := newHarness(t)
	redirect := func(path, to string) {
		h.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) })
	}
	redirect("/to-intranet", "http://intranet.example/secrets")
	redirect("/to-loopback", "http://127.0.0.1/")
	redirect("/to-metadata", "http://169.254.169.254/latest/meta-data/iam/")
	redirect("/to-mapped", "http://[::ffff:10.0.0.1]/")
	redirect("/to-port", "http://datasheets.example:2375/containers/json")
	redirect("/to-file", "file:///etc/passwd")
	redirect("/hop1", "/hop2")
	redirect("/hop2", "/to-intranet")
	redirect("/loop", "/loop")
	f := h.fetcher(webfetch.Options{})
	cases := map[string]string{
		"/to-intranet": "resolves to 10.1.2.3: private (RFC 1918)",
		"/to-loopback": "refuses http://127.0.0.1/ (redirect 1 from http://datasheets.example/to-loopback): 127.0.0.1 is loopback",
		"/to-metadata": "169.254.169.254 is link-local",
		"/to-mapped":   "private (RFC 1918), carried in the IPv6 address ::ffff:10.0.0.1",
		"/to-port":     "redirect 1 from http://datasheets.example/to-port) asks for port 2375",
		"/to-file":     "http and https URLs only",
		"/hop1":        "resolves to 10.1.2.3",
		"/loop":        "at most 5 redirects",
	}
	for path, want := range cases {
		_, err := f.Fetch(context.Background(), "http://datasheets.example"+path, 0)
		if err == nil {
			t.Errorf("%s: fetched, want refused", path)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not say %q", path, err, want)
		}
	}
	h.dialedOnly(t)
}

// The guard checks the addresses when it dials, not once per name: a name
// that answered a public address and now answers 127.0.0.1 (DNS
// rebinding) is refused on the next connection.
func TestGuardChecksAddressesAtEveryDial(t *testing.T) {
	h := newHarness(t)
	h.mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close") // every fetch dials anew
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("public text"))
	})
	h.resolve("rebind.example", publicIP)
	f := h.fetcher(webfetch.Options{})
	doc, err := f.Fetch(context.Background(), "http://rebind.example/page", 0)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "public text" {
		t.Fatalf("text %q, want %q", doc.Text, "public text")
	}
	h.resolve("rebind.example", "127.0.0.1")
	_, err = f.Fetch(context.Background(), "http://rebind.example/page", 0)
	refusedWith(t, err, protocol.ToolExecutionError, "rebind.example: it resolves to 127.0.0.1: loopback")
	h.dialedOnly(t)
}
