package webfetch

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html/charset"
)

// decodeCharset turns a body into UTF-8 text by its declared charset (an
// HTML page's own <meta charset> too), so a Latin-1 datasheet page reads
// as written.
func decodeCharset(raw []byte, contentType string, isHTML bool) (string, error) {
	if !isHTML && !strings.Contains(strings.ToLower(contentType), "charset=") {
		return string(bytes.ToValidUTF8(raw, []byte("\uFFFD"))), nil
	}
	r, err := charset.NewReader(bytes.NewReader(raw), contentType)
	if err != nil {
		return "", fmt.Errorf("its character set cannot be read: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("its character set cannot be decoded: %v", err)
	}
	return string(bytes.ToValidUTF8(out, []byte("\uFFFD"))), nil
}
