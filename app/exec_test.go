package app_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"go.uber.org/fx"

	"folio/app"
	"folio/platform/background"
)

// TestExecRunsNoHousekeeping: an operator command's graph (app.Exec) starts none of the loops
// its modules ask for (reminders, events, re-render, the webhook queue's workers), while the
// server's graph, built the same way, does. A loop registered like the modules' stands for them.
func TestExecRunsNoHousekeeping(t *testing.T) {
	t.Setenv("FOLIO_SQLITE_PATH", filepath.Join(t.TempDir(), "folio.db"))
	t.Setenv("FOLIO_DATABASE_URL", "")
	register := func(ran *atomic.Bool) fx.Option {
		return fx.Invoke(func(l *background.Loops) {
			l.Go(func(ctx context.Context) { ran.Store(true); <-ctx.Done() })
		})
	}

	var inCommand atomic.Bool
	err := app.Exec(t.Context(), func(context.Context) error { return nil }, register(&inCommand))
	if err != nil {
		t.Fatal(err)
	}
	if inCommand.Load() {
		t.Error("a housekeeping loop ran in an operator command")
	}

	// The same loop in the server's graph runs: its stop waits for it, so it has run by then.
	var inServer atomic.Bool
	a := app.New(register(&inServer))
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !inServer.Load() {
		t.Error("the housekeeping loop did not run in the server's graph")
	}
}
