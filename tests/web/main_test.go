// Package web holds the settings UI's end-to-end suites: every form driven over HTTP with a cookie
// jar (once on SQLite and once on PostgreSQL), and a real headless Chromium driving the pages.
package web

import (
	"testing"

	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
