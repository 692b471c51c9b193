package testenv

import (
	"os"
	"testing"
)

// Main is the TestMain of every package that uses this environment: it runs the tests, then drops
// the PostgreSQL template database and stops the containers the tests started, if any.
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	DropTemplate()
	_ = StopPostgres()
	_ = StopRedis()
	os.Exit(code)
}
