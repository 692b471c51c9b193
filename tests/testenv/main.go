package testenv

import (
	"os"
	"testing"
)

// Main is the TestMain of every package that uses this environment: it runs the tests, then drops
// the PostgreSQL template database, stops the containers the tests started (PostgreSQL, Redis,
// Chromium), if any, and removes the binary FolioBinary built.
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	DropTemplate()
	_ = StopPostgres()
	_ = StopRedis()
	_ = StopChromium()
	removeFolioBinary()
	os.Exit(code)
}
