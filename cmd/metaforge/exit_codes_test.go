package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"testing"
)

// A command used wrongly exits 2 before it asks any serve: a missing
// argument, an unknown verb or flag. -h is not an error main reports.
func TestUsageErrorsExit2(t *testing.T) {
	t.Setenv("METAFORGE_URL", "http://127.0.0.1:1") // nothing may be asked: a usage error comes first
	ctx := context.Background()
	var out bytes.Buffer
	for name, run := range map[string]func() error{
		"change":                  func() error { return runChange(ctx, nil, &out) },
		"change list --bogus":     func() error { return runChange(ctx, []string{"list", "--bogus"}, &out) },
		"change reject ID":        func() error { return runChange(ctx, []string{"reject", "ch-1"}, &out) },
		"run bogus":               func() error { return runRun(ctx, []string{"bogus"}, &out) },
		"run status":              func() error { return runRun(ctx, []string{"status"}, &out) },
		"release":                 func() error { return runRelease(ctx, nil, &out) },
		"gates":                   func() error { return runGates(ctx, nil, &out) },
		"approve":                 func() error { return runDecide(ctx, "approve", nil, &out) },
		"sources ID --tag k=v":    func() error { return runSources(ctx, []string{"src-1", "--tag", "k=v"}, &out) },
		"ingest":                  func() error { return runIngest(ctx, nil, &out, io.Discard) },
		"project show":            func() error { return runProject(ctx, []string{"show"}, &out) },
		"twin find k=v":           func() error { return runTwin(ctx, []string{"find", "k=v"}, &out) },
		"calls --limit x":         func() error { return runCalls(ctx, []string{"--limit", "x"}, &out) },
		"call":                    func() error { return runCall(ctx, nil, &out, io.Discard) },
		"completion":              func() error { return runCompletion(ctx, nil, &out) },
		"tools --profile nowhere": func() error { return runTools(ctx, []string{"--profile", "nowhere"}, &out) },
	} {
		if err := run(); err == nil || statusOf(err) != 2 {
			t.Errorf("metaforge %s: %v (exit %d), want a usage error, exit 2", name, err, statusOf(err))
		}
	}
	_, err := captureStderr(t, func() error { return runChange(ctx, []string{"list", "-h"}, &out) })
	if !errors.Is(err, flag.ErrHelp) {
		t.Errorf("change list -h: %v, want flag.ErrHelp (main prints nothing more and exits 0)", err)
	}
}

// serve's answers map to exit codes: 404 is not found (1), any other 4xx a
// refusal (2), and what is not serve's answer (unreachable, 5xx) 1.
func TestStatusOfServeAnswers(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{&serveError{Status: 404, Text: "no project"}, 1},
		{&serveError{Status: 409, Text: "self-approval refused"}, 2},
		{&serveError{Status: 400, Text: "bad ref"}, 2},
		{&serveError{Status: 401, Text: "only an identified person decides"}, 2},
		{&serveError{Status: 503, Text: "no Temporal"}, 1},
		{errors.New("metaforge serve is not reachable"), 1},
	} {
		if got := statusOf(c.err); got != c.want {
			t.Errorf("statusOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
