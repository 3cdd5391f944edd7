package worker

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"go.temporal.io/server/common/log/tag"
)

// TestTemporalLoggerDemotesOnceStopping checks that the embedded server's
// warnings show at serve's default level (warn) until it is stopping, and
// only at debug after: a stopping server's complaints are not faults.
func TestTemporalLoggerDemotesOnceStopping(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelWarn, slog.LevelDebug} {
		var buf bytes.Buffer
		l := newTemporalLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level})))
		l.Warn("before stop", tag.NewStringTag("queue", "q1"))
		l.stopped()
		l.Warn("Failed to poll for task.", tag.NewStringTag("queue", "q2"))
		l.Error("network dial error")
		out := buf.String()
		if !strings.Contains(out, `level=WARN msg="before stop" component=temporal queue=q1`) {
			t.Errorf("at %v, a warning before the stop is not logged as one:\n%s", level, out)
		}
		for _, msg := range []string{"Failed to poll for task.", "network dial error"} {
			line := lineWith(out, msg)
			switch {
			case level == slog.LevelWarn && line != "":
				t.Errorf("at warn, %q was logged while the server stops: %s", msg, line)
			case level == slog.LevelDebug && !strings.Contains(line, "level=DEBUG"):
				t.Errorf("at debug, %q should be logged at DEBUG while the server stops; got %q", msg, line)
			}
		}
	}
}

func lineWith(s, msg string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, msg) {
			return l
		}
	}
	return ""
}
