package solver

import (
	"context"
	"testing"
)

// A call may lower its memory limit below the tool's, never raise it.
func TestWithMemoryLimitOnlyLowers(t *testing.T) {
	base := WithRuntime(context.Background(), Process{}, Policy{Limits: Limits{MemoryMB: 4096, CPUSeconds: 60}})
	if _, p := RuntimeFrom(WithMemoryLimit(base, 1024)); p.Limits.MemoryMB != 1024 || p.Limits.CPUSeconds != 60 {
		t.Errorf("lowered: %+v, want 1024 MB and the rest kept", p.Limits)
	}
	if _, p := RuntimeFrom(WithMemoryLimit(base, 8192)); p.Limits.MemoryMB != 4096 {
		t.Errorf("raised to %d MB: a call cannot take more than the tool's 4096", p.Limits.MemoryMB)
	}
	if _, p := RuntimeFrom(WithMemoryLimit(context.Background(), 512)); p.Limits.MemoryMB != 512 {
		t.Errorf("with no limit before, the call's own: %+v", p.Limits)
	}
}
