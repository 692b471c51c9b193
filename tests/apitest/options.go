package apitest

import (
	"go.uber.org/fx"

	"folio/platform/clock"
	"folio/platform/config"
)

// FakeClock is the fx option that replaces the application's clock (the rate limiters, the key
// and session cache, sessions and every timestamp the services write) with fake.
func FakeClock(fake *clock.Fake) fx.Option {
	return fx.Replace(fx.Annotate(fake, fx.As(new(clock.Clock))))
}

// RateLimit is an Option that sets the per-user limit (requests per rolling minute).
func RateLimit(n int) Option { return func(c *config.Config) { c.RateLimit = n } }

// AuthFailureLimit is an Option that sets the per-address limit on failed authentications.
func AuthFailureLimit(n int) Option { return func(c *config.Config) { c.AuthFailureLimit = n } }
