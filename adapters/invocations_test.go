package adapters_test

import (
	"errors"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

func TestInvocationsReportUptimeAndLastCall(t *testing.T) {
	inv := adapters.NewInvocations()
	h := inv.Healthy("x", "1.0", 2)
	if h.Status != "healthy" || h.AdapterID != "x" || h.Version != "1.0" || h.ToolsAvailable != 2 || h.LastInvocation != nil {
		t.Fatalf("before any call: %+v", h)
	}
	before := time.Now()
	inv.Called()
	h = inv.Healthy("x", "1.0", 2)
	if h.LastInvocation == nil || h.LastInvocation.Before(before) || h.UptimeSeconds <= 0 {
		t.Fatalf("after a call: %+v", h)
	}
}

func TestWithToolIDNamesTheTool(t *testing.T) {
	err := adapters.WithToolID(protocol.Invalid("bad"), "power.check_budget")
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.ToolID != "power.check_budget" {
		t.Fatalf("err = %v", err)
	}
	plain := errors.New("broken pipe")
	if adapters.WithToolID(plain, "x.y") != plain {
		t.Error("a plain error must pass through unchanged")
	}
}
