package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/mcpserver"
)

func TestLimitFlags(t *testing.T) {
	t.Setenv("METAFORGE_LIMITS_REMOTE", "rate=1")
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var lf limitFlags
	lf.register(fs)
	if err := fs.Parse([]string{"--max-running-calls", "8", "--limits-untrusted", "running=1,queued=10"}); err != nil {
		t.Fatal(err)
	}
	l, err := lf.limits()
	if err != nil {
		t.Fatal(err)
	}
	untrusted, remote := l.Classes[mcpserver.CallerUntrusted], l.Classes[mcpserver.CallerRemote]
	if l.MaxRunning != 8 || untrusted.Running != 1 || untrusted.Queued != 10 || untrusted.Rate != mcpserver.DefaultClassLimits[mcpserver.CallerUntrusted].Rate || remote.Rate != 1 {
		t.Fatalf("limits %+v", l)
	}
	if _, ok := l.Classes[mcpserver.CallerLocal]; ok {
		t.Fatalf("local limits set though nobody gave them: %+v", l.Classes)
	}

	fs = flag.NewFlagSet("serve", flag.ContinueOnError)
	lf = limitFlags{}
	lf.register(fs)
	_ = fs.Parse([]string{"--limits-local", "speed=3"})
	if _, err := lf.limits(); err == nil || !strings.Contains(err.Error(), "--limits-local") {
		t.Fatalf("a bad limit gave %v, want an error naming --limits-local", err)
	}
}
