package approvals

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxPageSize is the largest page GET /v1/approvals answers.
const MaxPageSize = 1000

// ErrBadPage is a page size or token GET /v1/approvals cannot use.
var ErrBadPage = errors.New("bad page")

// Page cuts one page from holds in listing order (oldest first, ties by
// id). The token names the last hold of the previous page by its place
// in that order, (held_since, approval_id), not by its index, so holds
// decided or added between two pages neither shift nor repeat the rest.
// next is "" on the last page.
func Page(held []HeldCall, size int, token string) (page []HeldCall, next string, err error) {
	if size < 1 || size > MaxPageSize {
		return nil, "", fmt.Errorf("page_size %d: %w: ask for 1 to %d holds", size, ErrBadPage, MaxPageSize)
	}
	start := 0
	if token != "" {
		since, id, err := parsePageToken(token)
		if err != nil {
			return nil, "", err
		}
		for start < len(held) && !after(held[start], since, id) {
			start++
		}
	}
	end := min(start+size, len(held))
	page = held[start:end]
	if end < len(held) && len(page) > 0 {
		last := page[len(page)-1]
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(last.HeldSince.UnixNano(), 10) + " " + last.ApprovalID))
	}
	return page, next, nil
}

// after says whether h comes after (since, id) in listing order.
func after(h HeldCall, since time.Time, id string) bool {
	if !h.HeldSince.Equal(since) {
		return h.HeldSince.After(since)
	}
	return h.ApprovalID > id
}

func parsePageToken(token string) (time.Time, string, error) {
	bad := fmt.Errorf("page_token %q: %w: pass the next_page_token of the previous page as it was", token, ErrBadPage)
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return time.Time{}, "", bad
	}
	nanos, id, ok := strings.Cut(string(raw), " ")
	n, err := strconv.ParseInt(nanos, 10, 64)
	if !ok || err != nil || !idPattern.MatchString(id) {
		return time.Time{}, "", bad
	}
	return time.Unix(0, n), id, nil
}
