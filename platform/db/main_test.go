package db_test

import (
	"os"
	"testing"

	"folio/tests/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	_ = testenv.StopPostgres()
	os.Exit(code)
}
