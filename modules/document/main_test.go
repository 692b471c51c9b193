package document

import (
	"testing"

	"folio/tests/testenv"
)

// TestMain stops the database containers the tests may start (testenv).
func TestMain(m *testing.M) { testenv.Main(m) }
