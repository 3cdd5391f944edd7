package worker

import (
	"context"
	"log/slog"
	"sync/atomic"

	"go.temporal.io/server/common/log/tag"
)

// temporalLogger routes the embedded server's logs to slog. The server is
// chatty at Info; serve shows warnings and up unless asked for more.
//
// Once the server is stopping, its warnings and errors are demoted to
// debug: each of its services stops while the others still poll or dial
// it ("Failed to poll for task", "network dial error"), which is the
// server's own shutdown, not a fault, and a stdio client would show it
// to its user as one. --log-level debug still shows them.
type temporalLogger struct {
	log      *slog.Logger
	stopping *atomic.Bool
}

func newTemporalLogger(l *slog.Logger) temporalLogger {
	return temporalLogger{log: l.With("component", "temporal"), stopping: new(atomic.Bool)}
}

// stopped marks the server as stopping: from now on its warnings and
// errors are shutdown noise.
func (t temporalLogger) stopped() { t.stopping.Store(true) }

func (t temporalLogger) Debug(msg string, tags ...tag.Tag) { t.emit(slog.LevelDebug, msg, tags) }
func (t temporalLogger) Info(msg string, tags ...tag.Tag)  { t.emit(slog.LevelInfo, msg, tags) }
func (t temporalLogger) Warn(msg string, tags ...tag.Tag)  { t.emit(slog.LevelWarn, msg, tags) }
func (t temporalLogger) Error(msg string, tags ...tag.Tag) { t.emit(slog.LevelError, msg, tags) }

// The server's panics and fatals are reported, never acted on: MetaForge
// decides whether to stop.
func (t temporalLogger) DPanic(msg string, tags ...tag.Tag) { t.emit(slog.LevelError, msg, tags) }
func (t temporalLogger) Panic(msg string, tags ...tag.Tag)  { t.emit(slog.LevelError, msg, tags) }
func (t temporalLogger) Fatal(msg string, tags ...tag.Tag)  { t.emit(slog.LevelError, msg, tags) }

func (t temporalLogger) emit(level slog.Level, msg string, tags []tag.Tag) {
	ctx := context.Background()
	if level > slog.LevelDebug && t.stopping.Load() {
		level = slog.LevelDebug
	}
	if !t.log.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, len(tags))
	for i, tg := range tags {
		attrs[i] = slog.Any(tg.Key(), tg.Value())
	}
	t.log.LogAttrs(ctx, level, msg, attrs...)
}
