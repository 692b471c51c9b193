// Package e2e holds folio's end-to-end suites: the real application and HTTP server, spoken to
// over HTTP, once on SQLite and once on PostgreSQL.
package e2e

import (
	"testing"

	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
