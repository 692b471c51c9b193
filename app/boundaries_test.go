package app_test

import (
	"testing"

	"folio/tests/floors"
)

// TestFloors enforces the three floors, arrows down only, on every non-test Go file of app/,
// modules/ and platform/ (the rule is in package floors).
func TestFloors(t *testing.T) {
	found, err := floors.Violations("..", "app", "modules", "platform")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range found {
		t.Error(v)
	}
}
