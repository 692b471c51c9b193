package webhooks

import (
	"testing"
	"time"

	"folio/platform/config"
)

// TestRetryScheduleCoversADay: with the default FOLIO_WEBHOOK_RETRY_BASE, the delays between the
// MaxAttempts attempts of a delivery grow (never shrink) and add up to at least 24 hours, as
// CONTRACT.md section 18 requires; and the job asks River for exactly MaxAttempts attempts.
func TestRetryScheduleCoversADay(t *testing.T) {
	cfg, err := config.FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	r := retryPolicy{base: cfg.WebhookRetryBase}
	var total, prev time.Duration
	for attempt := 1; attempt < MaxAttempts; attempt++ { // the delay after each failed attempt but the last
		d := r.delay(attempt)
		if d < prev {
			t.Fatalf("the delay after attempt %d (%v) is shorter than the one before (%v)", attempt, d, prev)
		}
		if d > maxDelay {
			t.Fatalf("the delay after attempt %d is %v, over the %v cap", attempt, d, maxDelay)
		}
		prev, total = d, total+d
	}
	if total < 24*time.Hour {
		t.Fatalf("the last of %d attempts comes %v after the first, want at least 24h", MaxAttempts, total)
	}
	t.Logf("%d attempts over %v", MaxAttempts, total)
	if got := (DeliverArgs{}).InsertOpts().MaxAttempts; got != MaxAttempts {
		t.Fatalf("a delivery job asks River for %d attempts, want %d", got, MaxAttempts)
	}
}
