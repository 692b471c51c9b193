package load

import (
	"os"
	"testing"

	"folio/tests/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.DropTemplate()
	_ = testenv.StopPostgres()
	os.Exit(code)
}
