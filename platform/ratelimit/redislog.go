package ratelimit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
)

// RedisLogger takes go-redis's own log lines (its client writes "redis: connection pool: failed
// to dial ..." to stderr as plain text, about twice a second per client while Redis is down) and
// writes them to zap as warnings, at most one per interval, with the number of lines in between.
// Install it with redis.SetLogger, which is process-wide.
type RedisLogger struct {
	log *zap.Logger
	t   throttle
}

// NewRedisLogger returns a RedisLogger writing to log at most once per every (DefaultWarnInterval
// when every is 0 or less). A nil logger logs nothing.
func NewRedisLogger(log *zap.Logger, every time.Duration) *RedisLogger {
	if log == nil {
		log = zap.NewNop()
	}
	if every <= 0 {
		every = DefaultWarnInterval
	}
	return &RedisLogger{log: log, t: throttle{every: every}}
}

// Printf implements go-redis's logging interface.
func (l *RedisLogger) Printf(_ context.Context, format string, v ...any) {
	n, ok := l.t.allow()
	if !ok {
		return
	}
	msg := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	l.log.Warn("redis client", zap.String("detail", msg), zap.Int("linesSinceLastWarning", n))
}
