package mcpserver

import "testing"

// TestNegotiatedRevision pins FORGE-416's answers against the revisions
// served: a served one is answered as asked, a client ahead of us or older
// than all gets the newest, and one between two gets the older of the two.
func TestNegotiatedRevision(t *testing.T) {
	newest := ProtocolVersions[len(ProtocolVersions)-1]
	cases := []struct{ requested, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-01-01", "2024-11-05"},
		{"2025-05-01", "2025-03-26"},
		{"2025-09-30", "2025-06-18"},
		{"2099-01-01", newest},
		{"2024-10-07", newest},
		{"", newest},
	}
	for _, c := range cases {
		if got := negotiatedRevision(c.requested); got != c.want {
			t.Errorf("negotiatedRevision(%q) = %q, want %q (served %v)", c.requested, got, c.want, ProtocolVersions)
		}
	}
}
