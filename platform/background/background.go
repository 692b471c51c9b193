// Package background runs a module's housekeeping loops (expired idempotency keys, the events
// sequencer and retention, the reminders, the re-render, the webhook queue's workers) for as
// long as the server runs. An operator command (folio migrate, folio user ..., folio key ...)
// runs none: its graph is built with Quiet, so a command does its one job, prints its one result
// and never fires a reminder or delivers a webhook on the way.
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

// Loops starts housekeeping with the application. The platform provides one (New); a nil *Loops
// (a module built without fx, in a unit test) and a quiet one start nothing.
type Loops struct {
	lc    fx.Lifecycle
	quiet bool
}

// New returns the Loops of an application that runs its housekeeping: the server's.
func New(lc fx.Lifecycle) *Loops { return &Loops{lc: lc} }

// Quiet replaces the Loops of an operator command's graph (fx.Decorate(background.Quiet)): the
// graph's modules are built as the server's are, and none of their loops starts.
func Quiet(*Loops) *Loops { return &Loops{quiet: true} }

// Go starts loop in a goroutine when the application starts; the stop hook cancels loop's
// context and waits until loop has returned, so no query runs after the database is closed.
func (l *Loops) Go(loop func(ctx context.Context)) {
	if !l.runs() {
		return
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, true))
	var wg sync.WaitGroup
	l.Hook(fx.Hook{
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

// Hook appends h to the application's lifecycle, for housekeeping that starts and stops itself
// (River's workers), unless l is nil or quiet.
func (l *Loops) Hook(h fx.Hook) {
	if l.runs() {
		l.lc.Append(h)
	}
}

// runs reports whether l starts housekeeping (not nil, not quiet).
func (l *Loops) runs() bool { return l != nil && !l.quiet }
