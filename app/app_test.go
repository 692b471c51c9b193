package app_test

import (
	"testing"

	"go.uber.org/fx"

	"folio/app"
	"folio/platform"
	"folio/platform/httpx"
)

// TestGraphIsComplete catches a missing provider without opening a database.
func TestGraphIsComplete(t *testing.T) {
	if err := fx.ValidateApp(platform.Module, app.Modules, fx.Invoke(func(*httpx.Server) {})); err != nil {
		t.Fatal(err)
	}
}
