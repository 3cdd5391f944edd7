package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/metaforge/metaforge/mcpserver"
)

// holdFlags configure approval holds, shared by serve and mcp.
type holdFlags struct {
	holdLocalWrites bool
	approvalQueue   bool
}

func (h *holdFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&h.holdLocalWrites, "hold-local-writes", false,
		"hold local (stdio) writes for approval even when the client cannot be asked")
	fs.BoolVar(&h.approvalQueue, "approval-queue", true,
		"let held calls wait in the approvals queue (dashboard, metaforge approve); false: only the client's own prompt can decide one")
}

// policy reads the hold windows from the environment; a bad value is an
// error naming the variable.
func (h *holdFlags) policy() (mcpserver.HoldPolicy, error) {
	p := mcpserver.HoldPolicy{HoldLocalWrites: h.holdLocalWrites, QueueReachable: h.approvalQueue,
		DashboardURL: os.Getenv("METAFORGE_DASHBOARD_URL")}
	for _, v := range []struct {
		name string
		into *time.Duration
	}{
		{"METAFORGE_APPROVAL_HOLD_SECONDS", &p.Window},
		{"METAFORGE_APPROVAL_HOLD_PROGRESS_SECONDS", &p.ProgressWindow},
		{"METAFORGE_APPROVAL_PROGRESS_INTERVAL_SECONDS", &p.ProgressInterval},
	} {
		raw := os.Getenv(v.name)
		if raw == "" {
			continue
		}
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil || n <= 0 || n > 86400 {
			return p, fmt.Errorf("%s=%q: give a number of seconds between 0 and 86400", v.name, raw)
		}
		*v.into = time.Duration(n * float64(time.Second))
	}
	return p, nil
}

// httpAuth is what the HTTP transport enforces: METAFORGE_MCP_API_KEY
// (a shared key, which identifies nobody) and METAFORGE_MCP_JWT_SECRET
// (HS256 bearer tokens, whose subject is a verified identity).
func httpAuth() mcpserver.Auth {
	a := mcpserver.Auth{APIKey: os.Getenv("METAFORGE_MCP_API_KEY")}
	if secret := os.Getenv("METAFORGE_MCP_JWT_SECRET"); secret != "" {
		a.Verifier = mcpserver.HS256Verifier([]byte(secret))
	}
	return a
}
