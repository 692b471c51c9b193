package load

import (
	"testing"

	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
