package apidoc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"folio/platform/apidoc"
)

const part = `
paths:
  /things/{id}:
    get:
      operationId: getThing
      summary: Get a thing
      x-errors: [THING_NOT_FOUND_IS_UNKNOWN]
      responses:
        "200": {description: ok}
`

func TestAssembleExpandsErrors(t *testing.T) {
	// The part declares its own code's status; the shared codes come from the base.
	frag := strings.Replace(part, "THING_NOT_FOUND_IS_UNKNOWN", "THING_NOT_FOUND", 1)
	frag = strings.Replace(frag, "    get:", "    post:", 1) + "x-folio-errors:\n  statuses:\n    THING_NOT_FOUND: 404\n"
	raw, err := apidoc.Assemble([]apidoc.Part{{Name: "things", YAML: []byte(frag)}}, apidoc.Facts{RateLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Security  []map[string][]string     `json:"security"`
			Responses map[string]map[string]any `json:"responses"`
			XErrors   any                       `json:"x-errors"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Paths["/things/{id}"]["post"]
	if op.XErrors != nil {
		t.Errorf("x-errors left in the document")
	}
	for _, status := range []string{"200", "401", "403", "404", "429", "431", "500", "503"} {
		r, ok := op.Responses[status]
		if !ok {
			t.Errorf("no %s response: %v", status, op.Responses)
			continue
		}
		if _, ok := r["headers"].(map[string]any)["X-Request-Id"]; !ok {
			t.Errorf("%s has no X-Request-Id header", status)
		}
	}
	if d := op.Responses["403"]["description"]; d != "Forbidden: CSRF_TOKEN_INVALID, INSUFFICIENT_SCOPE, NOT_WORKSPACE_MEMBER." {
		t.Errorf("403 description %q", d)
	}
	if len(op.Security) != 2 || len(op.Security[1]) != 2 {
		t.Errorf("a write must take the session with X-CSRF-Token: %v", op.Security)
	}
	if !strings.Contains(string(raw), `"/openapi.json"`) {
		t.Errorf("the base fragment's own path is missing")
	}
}

func TestAssembleRefusesWhatItCannotMerge(t *testing.T) {
	for name, parts := range map[string][]apidoc.Part{
		"a path twice":          {{Name: "a", YAML: []byte(strings.Replace(part, "THING_NOT_FOUND_IS_UNKNOWN", "NOTE_NOT_FOUND", 1))}, {Name: "b", YAML: []byte(strings.Replace(part, "THING_NOT_FOUND_IS_UNKNOWN", "NOTE_NOT_FOUND", 1))}},
		"a code with no status": {{Name: "a", YAML: []byte(part)}},
		"a top-level key":       {{Name: "a", YAML: []byte("info: {title: x}\n")}},
		"a base component":      {{Name: "a", YAML: []byte("components:\n  schemas:\n    Error: {type: object}\n")}},
		"a code with two statuses": {
			{Name: "a", YAML: []byte("x-folio-errors:\n  statuses:\n    THING_GONE: 404\n")},
			{Name: "b", YAML: []byte("x-folio-errors:\n  statuses:\n    THING_GONE: 410\n")},
		},
		"a part's shared list": {{Name: "a", YAML: []byte("x-folio-errors:\n  everyOperation: [THING_GONE]\n")}},
	} {
		if _, err := apidoc.Assemble(parts, apidoc.Facts{RateLimit: 100}); err == nil {
			t.Errorf("%s: assembled", name)
		}
	}
}

// TestAssembleDescribesDetails: a code's details schema (x-folio-errors' details) is in every
// response that can carry the code, and a part cannot describe another's or an unknown code's.
func TestAssembleDescribesDetails(t *testing.T) {
	frag := strings.Replace(part, "THING_NOT_FOUND_IS_UNKNOWN", "THING_CLASH", 1) +
		"components:\n  schemas:\n    ClashDetails: {type: object}\n" +
		"x-folio-errors:\n  statuses:\n    THING_CLASH: 409\n  details:\n    THING_CLASH: {$ref: \"#/components/schemas/ClashDetails\"}\n"
	raw, err := apidoc.Assemble([]apidoc.Part{{Name: "things", YAML: []byte(frag)}}, apidoc.Facts{RateLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						AllOf []map[string]any `json:"allOf"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	allOf := doc.Paths["/things/{id}"]["get"].Responses["409"].Content["application/json"].Schema.AllOf
	got, _ := json.Marshal(allOf)
	if !strings.Contains(string(got), `"details":{"$ref":"#/components/schemas/ClashDetails"}`) {
		t.Fatalf("the 409 response does not describe the details: %s", got)
	}
	for name, frag := range map[string]string{
		"details of a code without a status": "x-folio-errors:\n  statuses:\n    THING_CLASH: 409\n  details:\n    OTHER: {type: object}\n",
		"another key":                        "x-folio-errors:\n  statuses:\n    THING_CLASH: 409\n  everyOperation: [THING_CLASH]\n",
	} {
		if _, err := apidoc.Assemble([]apidoc.Part{{Name: "a", YAML: []byte(frag)}}, apidoc.Facts{RateLimit: 100}); err == nil {
			t.Errorf("%s: assembled", name)
		}
	}
}
