package main

import (
	"testing"
	"time"

	"github.com/metaforge/metaforge/worker/workertest"
)

// The tasks' maximum ttl is what the namespace keeps a closed workflow:
// 24 h on the embedded Temporal; an unknown namespace falls back to it.
func TestTaskMaxTTLIsTheNamespaceRetention(t *testing.T) {
	tmp := workertest.StartTemporal(t)
	if got := taskMaxTTL(tmp.Client, tmp.Namespace, workertest.QuietLogger()); got != 24*time.Hour {
		t.Errorf("taskMaxTTL of the embedded namespace = %s, want its retention, 24h", got)
	}
	if got := taskMaxTTL(tmp.Client, "no-such-namespace", workertest.QuietLogger()); got != 24*time.Hour {
		t.Errorf("taskMaxTTL of a namespace that cannot be read = %s, want the default 24h", got)
	}
}
