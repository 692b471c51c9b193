// Package background runs a module's housekeeping loop (expired idempotency keys, the events
// sequencer and retention) for as long as the application runs.
package background

import (
	"context"
	"sync"

	"go.uber.org/fx"
)

type key struct{}

// Is reports whether ctx is a housekeeping loop's (Go): the tests' SQL counter leaves such
// statements out of a request's cost, since they run whenever their timer says.
func Is(ctx context.Context) bool { return ctx != nil && ctx.Value(key{}) != nil }

// Go starts loop in a goroutine when the application starts; the stop hook cancels loop's
// context and waits until loop has returned, so no query runs after the database is closed.
func Go(lc fx.Lifecycle, loop func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, true))
	var wg sync.WaitGroup
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			wg.Add(1)
			go func() {
				defer wg.Done()
				loop(ctx)
			}()
			return nil
		},
		OnStop: func(context.Context) error {
			cancel()
			wg.Wait()
			return nil
		},
	})
}
