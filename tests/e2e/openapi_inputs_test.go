package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"folio/platform/config"
	"folio/tests/apitest"
)

// TestOpenAPIInputs: what client generators read from the document (CONTRACT.md section 25):
// every date input has a format (a date or a date-time; a day, GET /focus' date, a date), a
// webhook's url is a URI, the events feed's types is an array of the event types
// (comma-separated, explode false), and the rate limit stated is the server's own.
func TestOpenAPIInputs(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		var doc map[string]any
		if err := json.Unmarshal(apitest.Must(t, s.Get(t, "", "/openapi.json"), http.StatusOK).Body, &doc); err != nil {
			t.Fatal(err)
		}
		resolve := func(v any) map[string]any {
			m, _ := v.(map[string]any)
			for m != nil && m["$ref"] != nil {
				m = at(doc, strings.Split(strings.TrimPrefix(m["$ref"].(string), "#/"), "/")...)
			}
			return m
		}
		// formats lists the formats a string schema may take (through $ref, oneOf and anyOf);
		// "" is a branch without one.
		var formats func(v any) []string
		formats = func(v any) []string {
			m := resolve(v)
			var out []string
			for _, k := range []string{"oneOf", "anyOf"} {
				if branches, ok := m[k].([]any); ok {
					for _, b := range branches {
						out = append(out, formats(b)...)
					}
				}
			}
			if out != nil {
				return out
			}
			switch {
			case m["type"] == "null":
				return nil
			case m["maxLength"] == float64(0):
				return []string{"empty"}
			default:
				f, _ := m["format"].(string)
				return []string{f}
			}
		}
		dateInputs, days := 0, 0
		for path, ops := range doc["paths"].(map[string]any) {
			for method, o := range ops.(map[string]any) {
				op, ok := o.(map[string]any)
				if !ok {
					continue
				}
				params, _ := op["parameters"].([]any)
				for _, p := range params {
					p := resolve(p)
					name := p["name"].(string)
					if strings.HasSuffix(name, "From") || strings.HasSuffix(name, "To") {
						dateInputs++
						if got := strings.Join(formats(p["schema"]), ","); got != "date,date-time,empty" {
							t.Errorf("%s %s parameter %s: formats %q", method, path, name, got)
						}
					}
					// A day (GET /focus' date) is a date alone.
					if name == "date" {
						days++
						if got := strings.Join(formats(p["schema"]), ","); got != "date" {
							t.Errorf("%s %s parameter %s: formats %q, want date", method, path, name, got)
						}
					}
				}
				body := resolve(at(op, "requestBody", "content", "application/json", "schema"))
				for name, prop := range props(body, resolve) {
					if strings.HasSuffix(name, "At") {
						dateInputs++
						if got := strings.Join(formats(prop), ","); got != "date,date-time" {
							t.Errorf("%s %s body field %s: formats %q", method, path, name, got)
						}
					}
				}
			}
		}
		if dateInputs < 12 || days < 1 {
			t.Errorf("only %d date inputs and %d day parameters found", dateInputs, days)
		}
		webhook := resolve(at(doc, "paths", "/webhooks", "post", "requestBody", "content", "application/json", "schema"))
		if f := formats(props(webhook, resolve)["url"]); len(f) != 1 || f[0] != "uri" {
			t.Errorf("webhook url formats %v, want uri", f)
		}
		for _, p := range at(doc, "paths", "/events", "get")["parameters"].([]any) {
			p := resolve(p)
			if p["name"] != "types" {
				continue
			}
			items := resolve(at(p, "schema", "items"))
			if p["style"] != "form" || p["explode"] != false || at(p, "schema")["type"] != "array" || len(items["enum"].([]any)) < 10 {
				t.Errorf("types parameter %v, items %v", p, items)
			}
		}
		desc := at(doc, "info")["description"].(string)
		if !strings.Contains(desc, "**Rate limit.** 7 accepted requests per user") || strings.Contains(desc, "100 accepted") {
			t.Errorf("info.description does not state this server's limit of 7: %s", desc)
		}
	}, apitest.Option(func(c *config.Config) { c.RateLimit = 7 }))
}

// at is the object under keys; nil when one is missing.
func at(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

// props are an object schema's properties, those of its allOf, oneOf or anyOf branches included.
func props(m map[string]any, resolve func(any) map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range at(m, "properties") {
		out[k] = v
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		branches, _ := m[k].([]any)
		for _, b := range branches {
			for k, v := range props(resolve(b), resolve) {
				out[k] = v
			}
		}
	}
	return out
}
