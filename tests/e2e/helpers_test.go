package e2e

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/platform/clock"
	"folio/tests/apitest"
)

// Helpers shared by the package's suites: error envelopes and their messages, the fields of a
// response, list ids, query strings and cursors, walking a list page by page, and concurrent races.

// wantErr asserts the envelope, status and code of an error response and that its message
// mentions every one of mentions (the field or parameter at fault).
func wantErr(t testing.TB, r apitest.Response, status int, code string, mentions ...string) {
	t.Helper()
	apitest.CheckEnvelope(t, r, status, code)
	msg, _ := r.JSON(t)["error"].(map[string]any)["message"].(string)
	for _, m := range mentions {
		if !strings.Contains(msg, m) {
			t.Fatalf("message %q does not mention %q", msg, m)
		}
	}
}

// errorMessage returns error.message of an error envelope.
func errorMessage(t testing.TB, r apitest.Response) string {
	t.Helper()
	env, _ := r.JSON(t)["error"].(map[string]any)
	msg, _ := env["message"].(string)
	return msg
}

// race sends n requests at once (send(i) sends the i-th and returns its status) and returns how
// many got the status won; a status other than won and lost is an error naming what was raced.
func race(t *testing.T, what string, n int, send func(i int) int, won, lost int) int {
	t.Helper()
	statuses := make(chan int, n)
	for i := range n {
		go func() { statuses <- send(i) }()
	}
	wins := 0
	for range n {
		switch st := <-statuses; st {
		case won:
			wins++
		case lost:
		default:
			t.Errorf("concurrent %s answered %d", what, st)
		}
	}
	return wins
}

// fieldNames returns the sorted keys of a JSON object.
func fieldNames(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// wantFields asserts that a JSON object has exactly these fields.
func wantFields(t testing.TB, m map[string]any, want ...string) {
	t.Helper()
	want = slices.Clone(want)
	sort.Strings(want)
	if got := fieldNames(m); !slices.Equal(got, want) {
		t.Fatalf("fields %v, want exactly %v: %v", got, want, m)
	}
}

// itemIDs returns the "id" of every item, as strings (integer ids are formatted without decimals).
func itemIDs(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		switch v := it["id"].(type) {
		case string:
			out[i] = v
		case float64:
			out[i] = strconv.FormatFloat(v, 'f', -1, 64)
		case json.Number:
			out[i] = v.String()
		}
	}
	return out
}

// listIDs fetches one list page and returns its ids.
func listIDs(t testing.TB, s *apitest.Server, key, path string) []string {
	t.Helper()
	return itemIDs(apitest.Must(t, s.Get(t, key, path), http.StatusOK).Data(t))
}

// withQuery appends a query string to a path.
func withQuery(path, query string) string {
	if query == "" {
		return path
	}
	if strings.Contains(path, "?") {
		return path + "&" + query
	}
	return path + "?" + query
}

// nextCursor returns the page's nextCursor; ok is false when it is null. It fails the test when the
// field is absent or neither a string nor null.
func nextCursor(t testing.TB, r apitest.Response) (cursor string, ok bool) {
	t.Helper()
	body := r.JSON(t)
	v, present := body["nextCursor"]
	if !present {
		t.Fatalf("no nextCursor field: %s", r.Body)
	}
	if v == nil {
		return "", false
	}
	c, isString := v.(string)
	if !isString || c == "" {
		t.Fatalf("nextCursor %#v is not a non-empty string: %s", v, r.Body)
	}
	return c, true
}

// walk follows nextCursor from the first page to the last and returns every item in order. It
// checks that each page but the last is full (limit, clamped to 100) and that nextCursor is the id
// of the page's last item.
func walk(t testing.TB, s *apitest.Server, key, path string, limit int) []map[string]any {
	t.Helper()
	pageSize := min(limit, 100)
	var all []map[string]any
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("more than 1000 pages: the cursor does not advance")
		}
		q := "limit=" + strconv.Itoa(limit)
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		r := apitest.Must(t, s.Get(t, key, withQuery(path, q)), http.StatusOK)
		data := r.Data(t)
		next, more := nextCursor(t, r)
		all = append(all, data...)
		if !more {
			if len(data) > pageSize {
				t.Fatalf("last page has %d items, page size %d", len(data), pageSize)
			}
			return all
		}
		if len(data) != pageSize {
			t.Fatalf("page %d has %d items with a nextCursor, want a full page of %d", pages, len(data), pageSize)
		}
		if last := itemIDs(data[len(data)-1:])[0]; last != next {
			t.Fatalf("nextCursor %q is not the id of the page's last item %q", next, last)
		}
		cursor = next
	}
}

// wireTimeRE is the only timestamp form the API emits: UTC with milliseconds.
var wireTimeRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// pastKeyCache moves the fake clock beyond the key cache's lifetime, so that no instance may
// still hold a key that was just revoked or has expired (this one drops a revoked key at once).
func pastKeyCache(s *apitest.Server, fake *clock.Fake) {
	fake.Advance(s.Config.KeyCacheTTL + time.Second)
}

// revokeKey revokes a raw key as the operator does, then moves the clock past the key cache.
func revokeKey(t *testing.T, s *apitest.Server, fake *clock.Fake, raw string) {
	t.Helper()
	if _, err := s.Accounts.RevokeKey(t.Context(), apitest.KeyPrefix(t, raw)); err != nil {
		t.Fatal(err)
	}
	pastKeyCache(s, fake)
}
