// Package webfetch fetches one public http(s) URL as readable text, HTML
// or PDF, behind a guard that keeps the fetch on the public web: only
// http/https on ports 80 and 443, no credentials, and every address a
// connection is made to, on the first URL and on each redirect, checked
// when it is dialled (so DNS rebinding is covered) and refused when it is
// loopback, private, link-local (the cloud metadata service), CGNAT,
// multicast or otherwise not public. Sizes are capped: HTML and text are
// read to a cap and said to be truncated; a PDF is never cut (a cut PDF
// loses its cross-reference table), it is refused past its cap, and read
// up to a page limit as the knowledge base reads a PDF (poppler's
// pdftotext -layout).
//
// It knows nothing of MCP or Temporal; adapters/web is its MCP face.
package webfetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/metaforge/metaforge/knowledge"
	"github.com/metaforge/metaforge/protocol"
)

// Defaults of Options and of a fetch.
const (
	DefaultMaxRedirects = 5
	DefaultMaxTextBytes = 2 << 20  // HTML and text: 2 MB
	DefaultMaxPDFBytes  = 25 << 20 // a PDF: 25 MB, refused beyond
	DefaultTimeout      = 60 * time.Second
	DefaultMaxPages     = 30
	// MaxPages bounds max_pages: a reference manual's worth.
	MaxPages = 2000
)

// Options configure a Fetcher. The zero value is a production fetcher:
// the system resolver, a plain dialer and the defaults above.
type Options struct {
	// LookupIP resolves a host name to its addresses, as
	// net.Resolver.LookupIP; every address it answers is checked.
	LookupIP func(ctx context.Context, network, host string) ([]net.IP, error)
	// Dial opens a connection to a checked address ("203.0.113.7:443"),
	// as net.Dialer.DialContext. Tests route it to a local server.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxRedirects is how many redirects a fetch follows.
	MaxRedirects int
	// MaxTextBytes caps the HTML or text read; the rest is dropped and
	// the document says it was truncated.
	MaxTextBytes int64
	// MaxPDFBytes caps a PDF download; a larger PDF is refused.
	MaxPDFBytes int64
	// Timeout bounds one fetch, body included (not the PDF's reading).
	Timeout time.Duration
	// TempDir is where a PDF is written for poppler to read (a folder
	// per fetch, removed after). Default: the system's.
	TempDir string
	// UserAgent is sent with every request.
	UserAgent string
}

// Fetcher fetches public URLs. Use New; it is safe for concurrent use.
type Fetcher struct {
	opts   Options
	client *http.Client
}

// New returns a Fetcher with opts, defaults filled in.
func New(opts Options) *Fetcher {
	if opts.LookupIP == nil {
		opts.LookupIP = net.DefaultResolver.LookupIP
	}
	if opts.Dial == nil {
		opts.Dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.MaxTextBytes <= 0 {
		opts.MaxTextBytes = DefaultMaxTextBytes
	}
	if opts.MaxPDFBytes <= 0 {
		opts.MaxPDFBytes = DefaultMaxPDFBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "MetaForge-webfetch/1 (engineering datasheet reader)"
	}
	dialer := guardedDialer{lookup: opts.LookupIP, dial: opts.Dial}
	transport := &http.Transport{
		// No proxy from the environment: a proxy would be dialled in
		// place of the host, and the guard would check the proxy.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		IdleConnTimeout:        30 * time.Second,
	}
	client := &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opts.MaxRedirects {
				return protocol.Refusal("web.fetch follows at most %d redirects; %s redirected further (to %s)", opts.MaxRedirects, via[0].URL.Redacted(), req.URL.Redacted())
			}
			return checkURL(req.URL, fmt.Sprintf("redirect %d from %s", len(via), via[len(via)-1].URL.Redacted()))
		},
	}
	return &Fetcher{opts: opts, client: client}
}

// Document is a fetched URL as readable text.
type Document struct {
	URL         string `json:"url"`
	FinalURL    string `json:"final_url"`
	ContentType string `json:"content_type"`
	Title       string `json:"title,omitempty"`
	Text        string `json:"text"`
	// PagesRead and PagesTotal are a PDF's; zero for HTML and text.
	PagesRead  int `json:"pages_read"`
	PagesTotal int `json:"pages_total"`
	// Truncated is true when text past the cap was dropped, or a PDF's
	// pages past max_pages were not read; Notes say which.
	Truncated bool     `json:"truncated"`
	Notes     []string `json:"notes,omitempty"`
	// Bytes is how many bytes of body were read.
	Bytes int64 `json:"bytes"`
}

// Fetch reads rawURL (a PDF up to maxPages pages; 0 means
// DefaultMaxPages). Errors are protocol errors: INVALID_PARAMS for a URL
// the guard never fetches by its form, a refusal for an address that is
// not public, a redirect that leads to one, an HTTP error status, a
// content type it cannot read or a PDF it will not read (and why), a
// transient error for a network failure or a server error.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string, maxPages int) (*Document, error) {
	if maxPages == 0 {
		maxPages = DefaultMaxPages
	}
	if maxPages < 1 || maxPages > MaxPages {
		return nil, protocol.Invalid("max_pages must be between 1 and %d; got %d", MaxPages, maxPages)
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, protocol.Invalid("%q is not a URL: %v", rawURL, err)
	}
	if !u.IsAbs() {
		return nil, protocol.Invalid("%q is not an absolute http(s) URL", rawURL)
	}
	if err := checkURL(u, ""); err != nil {
		return nil, err
	}
	u.Fragment, u.RawFragment = "", ""

	fetchCtx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(fetchCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, protocol.Invalid("%s cannot be requested: %v", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.requestError(ctx, u, err)
	}
	defer resp.Body.Close()
	if err := statusError(u, resp); err != nil {
		return nil, err
	}

	doc := &Document{URL: u.String(), FinalURL: resp.Request.URL.String()}
	body := bufio.NewReaderSize(resp.Body, 4096)
	head, _ := body.Peek(1024)
	kind, mediaType := classify(resp.Header.Get("Content-Type"), head)
	doc.ContentType = mediaType
	switch kind {
	case kindPDF:
		data, err := f.readPDFBody(u, resp, body)
		if err != nil {
			return nil, err
		}
		cancel() // the download is done; the PDF's reading has its own bounds
		doc.Bytes = int64(len(data))
		if err := readPDF(ctx, f.opts.TempDir, resp.Request.URL, data, maxPages, f.opts.MaxTextBytes, doc); err != nil {
			return nil, err
		}
	case kindHTML, kindText:
		raw, truncated, err := f.readCapped(u, body)
		if err != nil {
			return nil, err
		}
		doc.Bytes = int64(len(raw))
		text, err := decodeCharset(raw, resp.Header.Get("Content-Type"), kind == kindHTML)
		if err != nil {
			return nil, protocol.Refusal("%s: %v", u.Redacted(), err)
		}
		if kind == kindHTML {
			doc.Title, doc.Text = knowledge.HTMLText(text, resp.Request.URL)
		} else {
			doc.Text = strings.TrimSpace(text)
		}
		if truncated {
			doc.Truncated = true
			note := fmt.Sprintf("The page is larger than %d bytes; only its first %d bytes were read, so the text ends early.", f.opts.MaxTextBytes, f.opts.MaxTextBytes)
			doc.Notes = append(doc.Notes, note)
			doc.Text += "\n\n[" + note + "]"
		}
	default:
		return nil, protocol.Refusal("%s is %s, which web.fetch does not read; it reads HTML, plain text and PDF", u.Redacted(), describeType(mediaType))
	}
	return doc, nil
}

// requestError says why a request failed: the guard's own refusal, a
// passed deadline, or a network failure worth trying again.
func (f *Fetcher) requestError(ctx context.Context, u *url.URL, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &protocol.Error{Code: protocol.ToolTimeout, Details: fmt.Sprintf("%s did not answer within %s", u.Redacted(), f.opts.Timeout)}
	}
	return protocol.Transient("fetching %s failed: %v", u.Redacted(), err)
}

// statusError turns an HTTP error status into an error: a server error or
// 429 may pass, so it is transient; any other is final.
func statusError(u *url.URL, resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	where := u.Redacted()
	if final := resp.Request.URL.Redacted(); final != where {
		where += " (redirected to " + final + ")"
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return protocol.Transient("%s answered HTTP %s; try again later", where, resp.Status)
	}
	return protocol.Refusal("%s answered HTTP %s", where, resp.Status)
}

// readCapped reads at most MaxTextBytes, saying whether more was left.
func (f *Fetcher) readCapped(u *url.URL, body io.Reader) ([]byte, bool, error) {
	raw, err := io.ReadAll(io.LimitReader(body, f.opts.MaxTextBytes+1))
	if err != nil {
		return nil, false, protocol.Transient("reading %s failed: %v", u.Redacted(), err)
	}
	if int64(len(raw)) > f.opts.MaxTextBytes {
		return raw[:f.opts.MaxTextBytes], true, nil
	}
	return raw, false, nil
}

// readPDFBody reads a whole PDF, refusing one larger than MaxPDFBytes
// rather than cutting it.
func (f *Fetcher) readPDFBody(u *url.URL, resp *http.Response, body io.Reader) ([]byte, error) {
	limit := f.opts.MaxPDFBytes
	tooBig := func(size string) error {
		return protocol.Refusal("%s is a PDF of %s, over web.fetch's %d MB limit; a PDF is never cut short (that breaks it), so download it another way and ingest the file", u.Redacted(), size, limit>>20)
	}
	if resp.ContentLength > limit {
		return nil, tooBig(fmt.Sprintf("%d bytes", resp.ContentLength))
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, protocol.Transient("reading %s failed: %v", u.Redacted(), err)
	}
	if int64(len(data)) > limit {
		return nil, tooBig("more than " + fmt.Sprint(limit) + " bytes")
	}
	return data, nil
}

// The kinds of body web.fetch reads.
type kind int

const (
	kindOther kind = iota
	kindHTML
	kindText
	kindPDF
)

// classify decides what a body is from its declared type and its first
// bytes: a PDF is known by its %PDF- signature whatever the server says
// (datasheet servers often send application/octet-stream).
func classify(header string, head []byte) (kind, string) {
	mediaType, _, err := mime.ParseMediaType(header)
	if err != nil || mediaType == "" || mediaType == "application/octet-stream" || mediaType == "binary/octet-stream" {
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(head))
	}
	trimmed := strings.TrimLeft(string(head), " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, "%PDF-") || mediaType == "application/pdf":
		return kindPDF, "application/pdf"
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return kindHTML, mediaType
	case strings.HasPrefix(mediaType, "text/"), mediaType == "application/json", mediaType == "application/xml",
		strings.HasSuffix(mediaType, "+xml"), strings.HasSuffix(mediaType, "+json"):
		return kindText, mediaType
	}
	return kindOther, mediaType
}

// describeType names a media type for a refusal.
func describeType(mediaType string) string {
	if mediaType == "" {
		return "of no declared type"
	}
	return mediaType
}
