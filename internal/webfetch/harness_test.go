package webfetch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/metaforge/metaforge/internal/webfetch"
	"github.com/metaforge/metaforge/protocol"
)

// publicIP is the address the test's resolver gives the public names; a
// dial to it reaches the test's local server, as if it were that host.
const publicIP = "93.184.216.34"

// harness is a local HTTP server standing in for a public web host, a
// resolver injected in the Fetcher that maps names to addresses written in
// the test, and a dial function that routes only publicIP to the server
// and records every address the Fetcher tried to reach.
type harness struct {
	srv    *httptest.Server
	mux    *http.ServeMux
	mu     sync.Mutex
	names  map[string][]string
	dialed []string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{mux: http.NewServeMux(), names: map[string][]string{
		"datasheets.example": {publicIP},
		"intranet.example":   {"10.1.2.3"},
		"metadata.example":   {"169.254.169.254"},
		"loop.example":       {"127.0.0.1"},
		"loop6.example":      {"::1"},
		"mapped.example":     {"::ffff:127.0.0.1"},
		"cgnat.example":      {"100.64.7.7"},
		"ula.example":        {"fd12:3456::1"},
		"linklocal6.example": {"fe80::1"},
		"mixed.example":      {publicIP, "192.168.1.10"},
	}}
	h.srv = httptest.NewServer(h.mux)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *harness) resolve(name string, addrs ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.names[name] = addrs
}

func (h *harness) lookup(_ context.Context, _, host string) ([]net.IP, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	addrs, ok := h.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IP, len(addrs))
	for i, a := range addrs {
		out[i] = net.ParseIP(a)
	}
	return out, nil
}

func (h *harness) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	h.mu.Lock()
	h.dialed = append(h.dialed, addr)
	h.mu.Unlock()
	host, _, _ := net.SplitHostPort(addr)
	if host != publicIP {
		return nil, fmt.Errorf("test dial: %s is not the test's public host", addr)
	}
	return (&net.Dialer{}).DialContext(ctx, network, h.srv.Listener.Addr().String())
}

// dialedOnly fails unless every address the Fetcher dialled is publicIP:
// a refused address must never have been connected to.
func (h *harness) dialedOnly(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range h.dialed {
		if !strings.HasPrefix(a, publicIP+":") {
			t.Errorf("the fetcher dialled %s; only %s may be reached", a, publicIP)
		}
	}
}

func (h *harness) fetcher(opts webfetch.Options) *webfetch.Fetcher {
	opts.LookupIP, opts.Dial = h.lookup, h.dial
	return webfetch.New(opts)
}

// refusedWith fails unless err is a protocol error of code whose details
// contain every want.
func refusedWith(t *testing.T, err error, code protocol.Code, want ...string) {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("want a %s error, got %v", code.Name(), err)
	}
	if pe.Code != code {
		t.Fatalf("want %s, got %s: %s", code.Name(), pe.Code.Name(), pe.Details)
	}
	for _, w := range want {
		if !strings.Contains(pe.Details, w) {
			t.Errorf("the error %q does not say %q", pe.Details, w)
		}
	}
}

// makePDF writes a PDF with reportlab (python3) whose page i holds lines[i],
// encrypted with userPassword/ownerPassword when given, and returns its
// bytes. A page with the text "" gets a filled rectangle and no text, as a
// scanned page has none.
func makePDF(t *testing.T, pages []string, userPassword, ownerPassword string) []byte {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 with reportlab is needed to make the test's PDFs (deploy/test-deps.sh)")
	}
	out := filepath.Join(t.TempDir(), "made.pdf")
	script := `
import sys, json
from reportlab.pdfgen import canvas
from reportlab.lib import pdfencrypt
out, pages, user, owner = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
enc = pdfencrypt.StandardEncryption(user, ownerPassword=owner, canCopy=0) if (user or owner) else None
c = canvas.Canvas(out, encrypt=enc)
c.setTitle("LM2596 datasheet")
for text in pages:
    if text:
        y = 750
        for line in text.split("\n"):
            c.drawString(72, y, line); y -= 16
    else:
        c.rect(72, 72, 300, 300, fill=1)
    c.showPage()
c.save()
`
	pagesJSON, err := json.Marshal(pages)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "-c", script, out, string(pagesJSON), userPassword, ownerPassword)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the PDF with reportlab failed (deploy/test-deps.sh installs it): %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
