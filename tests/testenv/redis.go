package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcredis "github.com/testcontainers/testcontainers-go/modules/redis"
)

// Environment variables read by RedisURL.
const (
	// RedisURLEnv names an existing Redis to test against, e.g. redis://127.0.0.1:6379/0.
	RedisURLEnv = "FOLIO_TEST_REDIS_URL"
	// RedisImageEnv overrides the image started when RedisURLEnv is unset.
	RedisImageEnv = "FOLIO_TEST_REDIS_IMAGE"
	// DefaultRedisImage is the image started by default.
	DefaultRedisImage = "redis:7-alpine"
)

var redisEnv struct {
	once      sync.Once
	url       string
	err       error
	container *tcredis.RedisContainer
}

// RedisURL returns the URL of a Redis server for tests.
//
// With FOLIO_TEST_REDIS_URL set, that server is used as is: nothing is flushed, so callers
// must keep their data apart (a unique key prefix per test). Otherwise a container of
// FOLIO_TEST_REDIS_IMAGE (default redis:7-alpine) is started through testcontainers, once
// per test binary, and shared by all its tests. The container is not stopped by a test's
// cleanup (later tests still use it): testcontainers' reaper (Ryuk) removes it when the
// test process exits; with TESTCONTAINERS_RYUK_DISABLED=true it outlives the process
// unless the package's TestMain calls StopRedis.
//
// Without a URL and without a reachable Docker, the test fails (it is never skipped).
func RedisURL(t testing.TB) string {
	t.Helper()
	if url := os.Getenv(RedisURLEnv); url != "" {
		return url
	}
	redisEnv.once.Do(startRedis)
	if redisEnv.err != nil {
		t.Fatalf("testenv: no Redis for this test: %v\n"+
			"Set %s to a Redis the tests may write to (e.g. redis://127.0.0.1:6379/0), "+
			"or make Docker reachable so that testcontainers can start %s.",
			redisEnv.err, RedisURLEnv, redisImage())
	}
	return redisEnv.url
}

// StopRedis terminates the container RedisURL started, if any. Call it from TestMain
// after m.Run when Ryuk is disabled; otherwise it is optional.
func StopRedis() error {
	if redisEnv.container == nil {
		return nil
	}
	err := testcontainers.TerminateContainer(redisEnv.container)
	redisEnv.container = nil
	return err
}

func redisImage() string {
	if img := os.Getenv(RedisImageEnv); img != "" {
		return img
	}
	return DefaultRedisImage
}

func startRedis() {
	// testcontainers panics when it cannot find a Docker host at all; that is the same
	// "no Docker" condition as an error, and must reach the test as a clear failure.
	defer func() {
		if r := recover(); r != nil {
			redisEnv.err = fmt.Errorf("start %s: Docker not reachable: %v", redisImage(), r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctr, err := tcredis.Run(ctx, redisImage())
	if err != nil {
		_ = testcontainers.TerminateContainer(ctr)
		redisEnv.err = fmt.Errorf("start %s: %w", redisImage(), err)
		return
	}
	url, err := ctr.ConnectionString(ctx)
	if err != nil {
		_ = testcontainers.TerminateContainer(ctr)
		redisEnv.err = fmt.Errorf("address of %s: %w", redisImage(), err)
		return
	}
	redisEnv.container, redisEnv.url = ctr, url
}

// SilentRedis listens on a loopback port, accepts connections and never answers: a Redis that
// hangs (the rate limiter's fallback tests, unit and end to end). It returns host:port; the
// listener and every connection close when the test ends.
func SilentRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}
