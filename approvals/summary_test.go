package approvals

import (
	"strings"
	"testing"
)

func TestSummarizeRedactsCredentialsAtAnyDepth(t *testing.T) {
	got := Summarize([]byte(`{"name":"bracket","api_key":"sk-live-123","config":{"password":"hunter2","depth_mm":4},"Auth_Token":"t"}`))
	for _, secret := range []string{"sk-live-123", "hunter2", `"t"`} {
		if strings.Contains(got, secret) {
			t.Errorf("summary leaks %s:\n%s", secret, got)
		}
	}
	want := "  Auth_Token: [redacted]\n  api_key: [redacted]\n  config: {\"depth_mm\":4,\"password\":\"[redacted]\"}\n  name: bracket"
	if got != want {
		t.Errorf("summary =\n%s\nwant\n%s", got, want)
	}
}

func TestSummarizeClipsLongValuesAndManyFields(t *testing.T) {
	long := strings.Repeat("x", 500)
	got := Summarize([]byte(`{"text":"` + long + `"}`))
	if !strings.Contains(got, "… (500 characters)") || len(got) > 200 {
		t.Errorf("a 500-character value was not clipped: %d bytes: %s", len(got), got)
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range 30 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"f` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1`)
	}
	b.WriteString("}")
	if got := Summarize([]byte(b.String())); !strings.Contains(got, "… and 6 more arguments") {
		t.Errorf("30 fields were not cut at 24:\n%s", got)
	}
	if got := Summarize([]byte(`{}`)); got != "  (no arguments)" {
		t.Errorf("empty arguments: %q", got)
	}
}
