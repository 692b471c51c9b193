package db_test

import (
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"folio/platform/db"
	"folio/tests/testenv"
)

// TestOpenWaitsForPostgres: a PostgreSQL server that starts answering after folio starts is
// waited for (each retry logged); one that answers "no" fails at once; one that never answers
// fails after the timeout, naming FOLIO_DB_CONNECT_TIMEOUT.
func TestOpenWaitsForPostgres(t *testing.T) {
	real := testenv.EmptyPostgresDB(t)
	u, err := url.Parse(real)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	// A port nobody listens on yet; a proxy to the real server opens on it 1.5 s later.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	late := ln.Addr().String()
	ln.Close()
	go func() {
		time.Sleep(1500 * time.Millisecond)
		proxy, err := net.Listen("tcp", late)
		if err != nil {
			t.Errorf("proxy listen: %v", err)
			return
		}
		t.Cleanup(func() { proxy.Close() })
		for {
			c, err := proxy.Accept()
			if err != nil {
				return
			}
			go func() {
				s, err := net.Dial("tcp", target)
				if err != nil {
					c.Close()
					return
				}
				go func() { io.Copy(s, c); s.Close() }()
				io.Copy(c, s)
				c.Close()
			}()
		}
	}()
	u.Host = late
	core, logs := observer.New(zap.InfoLevel)
	opts := db.Options{URL: u.String(), SQLitePath: filepath.Join(t.TempDir(), "unused.db"), MaxOpenConns: 2, MaxIdleConns: 2}
	start := time.Now()
	gdb, err := db.OpenWaiting(opts, zap.New(core), 20*time.Second)
	if err != nil {
		t.Fatalf("OpenWaiting through the late proxy: %v", err)
	}
	if sqlDB, err := gdb.DB(); err == nil {
		defer sqlDB.Close()
	}
	if err := gdb.Exec("SELECT 1").Error; err != nil {
		t.Fatal(err)
	}
	retries := logs.FilterMessage("database not reachable yet; retrying").Len()
	if took := time.Since(start); took < time.Second || retries < 2 || logs.FilterMessage("database reachable").Len() != 1 {
		t.Fatalf("took %s with %d logged retries; want a wait of over 1s with each retry logged", took, retries)
	}

	// A server that answers no: at once, whatever the timeout.
	bad, _ := url.Parse(real)
	bad.User = url.User("no_such_role_" + strings.ReplaceAll(time.Now().Format("150405.000"), ".", ""))
	start = time.Now()
	// (28000 where the server trusts local connections, 28P01 where it asks for a password).
	if _, err := db.OpenWaiting(db.Options{URL: bad.String(), MaxOpenConns: 1}, zap.NewNop(), 20*time.Second); err == nil || !strings.Contains(err.Error(), "(SQLSTATE 28") {
		t.Fatalf("unknown role: %v, want SQLSTATE 28000 or 28P01", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("an answered refusal took %s: it was retried", took)
	}

	// Nobody there, ever.
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.Host = ln.Addr().String()
	ln.Close()
	_, err = db.OpenWaiting(db.Options{URL: u.String(), MaxOpenConns: 1}, zap.NewNop(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "did not answer within FOLIO_DB_CONNECT_TIMEOUT (1s)") {
		t.Fatalf("nobody listening: %v", err)
	}
}
