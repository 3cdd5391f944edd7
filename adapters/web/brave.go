package web

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// braveClient asks the Brave Web Search API, retrying a rate limit.
type braveClient struct {
	key      string
	endpoint string
	http     *http.Client
	attempts int
	backoff  time.Duration
	maxWait  time.Duration
}

func newBraveClient(o Options) *braveClient {
	c := &braveClient{key: o.BraveAPIKey, endpoint: o.BraveURL, http: o.BraveClient,
		attempts: o.SearchAttempts, backoff: o.SearchBackoff, maxWait: o.MaxRetryWait}
	if c.endpoint == "" {
		c.endpoint = DefaultBraveURL
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 20 * time.Second}
	}
	if c.attempts <= 0 {
		c.attempts = 4
	}
	if c.backoff <= 0 {
		c.backoff = time.Second
	}
	if c.maxWait <= 0 {
		c.maxWait = 20 * time.Second
	}
	return c
}

// braveResponse is the part of Brave's answer web.search reads.
type braveResponse struct {
	Web *struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
			Age         string `json:"age"`
		} `json:"results"`
	} `json:"web"`
}

// search asks for count results for q. A 429 is tried again after
// Brave's Retry-After, or a doubling backoff when it names none, up to
// attempts times; then, like any other failure, it is an error, so no
// caller mistakes an unanswered query for one with no results.
func (c *braveClient) search(ctx context.Context, q string, count int) ([]searchResult, error) {
	u, err := url.Parse(c.endpoint)
	if err != nil {
		return nil, protocol.Unavailable("the Brave Search endpoint %q is not a URL: %v", c.endpoint, err)
	}
	params := u.Query()
	params.Set("q", q)
	params.Set("count", strconv.Itoa(count))
	u.RawQuery = params.Encode()

	start := time.Now()
	wait := c.backoff
	for attempt := 1; ; attempt++ {
		body, status, header, err := c.get(ctx, u.String())
		if err != nil {
			return nil, err
		}
		if status == http.StatusTooManyRequests {
			if attempt >= c.attempts {
				return nil, protocol.Unavailable("the Brave Search API rate-limited the query (HTTP 429) on all %d attempts over %s; "+
					"it was not answered, so nothing is known about its results: try again later", c.attempts, time.Since(start).Round(time.Millisecond))
			}
			next, named := retryAfter(header.Get("Retry-After"), time.Now())
			if !named {
				next, wait = wait, wait*2
			}
			if next > c.maxWait {
				return nil, protocol.Unavailable("the Brave Search API rate-limited the query (HTTP 429) and asks to wait %s before "+
					"trying again; it was not answered, so nothing is known about its results", next.Round(time.Second))
			}
			if err := sleep(ctx, next); err != nil {
				return nil, err
			}
			continue
		}
		if err := statusError(status, body); err != nil {
			return nil, err
		}
		return parseResults(body)
	}
}

// get makes one request: the body (up to 4 MB), status and headers, or
// a transient error for a network failure.
func (c *braveClient) get(ctx context.Context, u string) ([]byte, int, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, nil, protocol.Unavailable("the Brave Search request cannot be made: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, nil, ctx.Err()
		}
		return nil, 0, nil, protocol.Transient("the Brave Search API could not be reached: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, 0, nil, protocol.Transient("reading the Brave Search API's answer failed: %v", err)
	}
	return body, resp.StatusCode, resp.Header, nil
}

// statusError says what a non-2xx answer (other than 429) means.
func statusError(status int, body []byte) error {
	detail := strings.TrimSpace(string(body))
	if len(detail) > 300 {
		detail = detail[:300] + "..."
	}
	switch {
	case status >= 200 && status < 300:
		return nil
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return protocol.Unavailable("the Brave Search API rejected the key (HTTP %d): check %s; it said: %s", status, EnvBraveAPIKey, detail)
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		return protocol.Invalid("the Brave Search API refused the query (HTTP %d): %s", status, detail)
	case status >= 500:
		return protocol.Transient("the Brave Search API failed (HTTP %d); try again later: %s", status, detail)
	}
	return protocol.Unavailable("the Brave Search API answered HTTP %d: %s", status, detail)
}

// parseResults reads Brave's results in its rank order.
func parseResults(body []byte) ([]searchResult, error) {
	var r braveResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, protocol.Transient("the Brave Search API's answer is not the JSON it documents: %v", err)
	}
	out := []searchResult{}
	if r.Web == nil {
		return out, nil // answered, with no web results
	}
	for _, res := range r.Web.Results {
		out = append(out, searchResult{Rank: len(out) + 1, Title: plain(res.Title), URL: res.URL,
			Snippet: plain(res.Description), Age: res.Age})
	}
	return out, nil
}

var tags = regexp.MustCompile(`<[^>]*>`)

// plain is Brave's marked-up text (<strong> around the words matched,
// entities) as plain text.
func plain(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(s, ""))), " ")
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
