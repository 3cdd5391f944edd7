package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/mcpserver"
)

// limitFlags configure the call limits, shared by serve and mcp: how many
// tools/call run at once on the server, and per caller class how many one
// caller (an MCP session, or an address on /rpc) may run, have queued, and
// start per second.
type limitFlags struct {
	maxRunning string
	classes    map[string]*string
}

var limitClasses = []string{mcpserver.CallerLocal, mcpserver.CallerRemote, mcpserver.CallerUntrusted}

func (l *limitFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.maxRunning, "max-running-calls", os.Getenv("METAFORGE_MAX_RUNNING_CALLS"),
		fmt.Sprintf("tools/call running at once on the whole server; the rest wait, each caller in turn (env METAFORGE_MAX_RUNNING_CALLS; default %d)", mcpserver.DefaultMaxRunning))
	l.classes = map[string]*string{}
	for _, c := range limitClasses {
		env := "METAFORGE_LIMITS_" + strings.ToUpper(c)
		l.classes[c] = fs.String("limits-"+c, os.Getenv(env), fmt.Sprintf(
			"limits of one %s caller as running=N,queued=N,rate=CALLS_PER_S,burst=N (any of them; 0 lifts one); a call over queued or rate is refused at once, retryable, with _meta.retry_after (env %s; default %s)",
			c, env, mcpserver.DefaultClassLimits[c]))
	}
}

// limits are the flags as the server takes them; a bad value is an error
// naming the flag.
func (l *limitFlags) limits() (mcpserver.Limits, error) {
	var out mcpserver.Limits
	if l.maxRunning != "" {
		n, err := strconv.Atoi(l.maxRunning)
		if err != nil || n < 1 {
			return out, fmt.Errorf("--max-running-calls (METAFORGE_MAX_RUNNING_CALLS) %q: give a whole number of calls, at least 1", l.maxRunning)
		}
		out.MaxRunning = n
	}
	out.Classes = map[string]mcpserver.ClassLimits{}
	for _, c := range limitClasses {
		spec := *l.classes[c]
		if spec == "" {
			continue
		}
		cl, err := mcpserver.ParseClassLimits(c, spec)
		if err != nil {
			return out, fmt.Errorf("--limits-%s: %w", c, err)
		}
		out.Classes[c] = cl
	}
	return out, nil
}
