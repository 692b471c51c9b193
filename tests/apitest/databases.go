package apitest

import (
	"testing"
	"time"

	"folio/platform/clock"
)

// Databases are the databases every suite runs against.
var Databases = []string{"sqlite", "postgres"}

// EachDB runs fn as a subtest per database.
func EachDB(t *testing.T, fn func(t *testing.T, kind string)) {
	for _, kind := range Databases {
		t.Run(kind, func(t *testing.T) { fn(t, kind) })
	}
}

// ForEachDB runs fn as a subtest per database, each with a fresh server and database.
func ForEachDB(t *testing.T, fn func(t *testing.T, s *Server), opts ...Option) {
	EachDB(t, func(t *testing.T, kind string) { fn(t, Start(t, kind, opts...)) })
}

// ForEachDBWithClock runs fn as a subtest per database, each with a fresh server whose clock is a
// fake one standing at start until the test moves it.
func ForEachDBWithClock(t *testing.T, start time.Time, fn func(t *testing.T, s *Server, fake *clock.Fake), opts ...Option) {
	EachDB(t, func(t *testing.T, kind string) {
		fake := clock.NewFake(start)
		fn(t, StartFx(t, kind, opts, FakeClock(fake)), fake)
	})
}

// ForEachGraph runs fn as a subtest per database, each with a fresh graph.
func ForEachGraph(t *testing.T, fn func(t *testing.T, g *Graph), opts ...Option) {
	EachDB(t, func(t *testing.T, kind string) { fn(t, NewGraph(t, kind, opts)) })
}
