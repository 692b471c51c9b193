package apitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"folio/platform"
)

// Logs is everything a test server (or a process the test runs) logged, as its JSON lines. It is
// safe for the server's goroutines and the test at once.
type Logs struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements zapcore.WriteSyncer.
func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Sync implements zapcore.WriteSyncer.
func (l *Logs) Sync() error { return nil }

// String returns the whole log.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Lines decodes every line; a line that is not a JSON object fails the test.
func (l *Logs) Lines(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader([]byte(l.String())))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not a JSON object: %v: %s", err, sc.Bytes())
		}
		out = append(out, m)
	}
	return out
}

// StartLogged starts a server like Start, at log level info (access lines included), with the
// application's own logger writing to the returned Logs instead of stderr.
func StartLogged(t testing.TB, kind string, opts ...Option) (*Server, *Logs) {
	t.Helper()
	c := Config(t, kind)
	c.LogLevel = "info"
	for _, o := range opts {
		o(&c)
	}
	logs := &Logs{}
	return StartWith(t, c, fx.Replace(platform.LogOutput{WriteSyncer: logs})), logs
}

// ObserveLogs returns an fx option for StartFx or StartWith that copies every log entry of the
// application, at every level whatever FOLIO_LOG_LEVEL says, to the returned observer.
func ObserveLogs() (fx.Option, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	return fx.Decorate(func(l *zap.Logger) *zap.Logger {
		return l.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, core) }))
	}), logs
}
