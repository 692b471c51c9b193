// Package apidoc assembles folio's OpenAPI 3.1 document from the fragments the platform and the
// modules contribute, and serves it at GET /api/v1/openapi.json.
//
// Each module keeps a hand-written YAML fragment beside its handler (modules/notes/openapi.yaml)
// describing its routes, and joins the "openapi" value group with AsPart, exactly as it joins
// "routes" and "migrations". The platform's base fragment (base.yaml) holds what every route
// shares: info, servers, the security schemes, the error envelope, headers and parameters.
// Assemble merges them (a name defined twice is an error, so start-up fails) and expands each
// operation's x-errors list into its error responses.
package apidoc

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.yaml.in/yaml/v3"

	"folio/platform/httpx"
)

// Path is where the document is served, under the API base.
const Path = "/openapi.json"

//go:embed base.yaml
var baseYAML []byte

// Part is one module's fragment: top-level `paths` and `components` (and optionally `tags`),
// in OpenAPI 3.1 YAML, referring to shared components by #/components/... as in the whole
// document.
type Part struct {
	Name string // the contributing module, for error messages
	YAML []byte
}

// AsPart joins the "openapi" value group with a module's fragment:
// fx.Provide(apidoc.AsPart("notes", openapiYAML)).
func AsPart(name string, fragment []byte) any {
	return fx.Annotate(func() Part { return Part{Name: name, YAML: fragment} }, fx.ResultTags(`group:"openapi"`))
}

// Document is the assembled document, marshalled once at start.
type Document struct {
	// JSON is the document as served.
	JSON []byte
}

// Params are what New assembles.
type Params struct {
	fx.In
	Parts []Part `group:"openapi"`
}

// New assembles the base fragment and every module's part.
func New(p Params) (*Document, error) {
	raw, err := Assemble(p.Parts)
	if err != nil {
		return nil, err
	}
	return &Document{JSON: raw}, nil
}

// Register implements httpx.Routes: the document is public (no authentication, no rate limit),
// so it is registered beside the API group rather than inside it.
func (d *Document) Register(r httpx.Router) {
	r.Public.GET(httpx.APIBase+Path, func(c *gin.Context) {
		c.Data(http.StatusOK, "application/json", d.JSON)
	})
}

// Assemble merges the base fragment with parts into one JSON document. Parts are merged in name
// order (value-group order is random) so the output is the same on every start.
func Assemble(parts []Part) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(baseYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi base: %w", err)
	}
	parts = slices.Clone(parts)
	sort.Slice(parts, func(i, j int) bool { return parts[i].Name < parts[j].Name })
	for _, p := range parts {
		var frag map[string]any
		if err := yaml.Unmarshal(p.YAML, &frag); err != nil {
			return nil, fmt.Errorf("openapi part %s: %w", p.Name, err)
		}
		if err := merge(doc, frag, p.Name); err != nil {
			return nil, err
		}
	}
	if err := expandOperations(doc); err != nil {
		return nil, err
	}
	raw, err := marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return raw, nil
}

// merge adds a fragment's paths, components and tags to doc; any name defined twice is an error.
func merge(doc, frag map[string]any, name string) error {
	for key, v := range frag {
		switch key {
		case "paths":
			if err := mergeMap(doc, "paths", v, name, "paths"); err != nil {
				return err
			}
		case "components":
			comps, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("openapi part %s: components is not a map", name)
			}
			into := child(doc, "components")
			for kind, entries := range comps {
				if err := mergeMap(into, kind, entries, name, "components."+kind); err != nil {
					return err
				}
			}
		case "tags":
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("openapi part %s: tags is not a list", name)
			}
			existing, _ := doc["tags"].([]any)
			doc["tags"] = append(existing, list...)
		default:
			return fmt.Errorf("openapi part %s: only paths, components and tags may be contributed, not %q", name, key)
		}
	}
	return nil
}

func child(m map[string]any, key string) map[string]any {
	c, ok := m[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[key] = c
	}
	return c
}

func mergeMap(parent map[string]any, key string, v any, name, where string) error {
	entries, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("openapi part %s: %s is not a map", name, where)
	}
	into := child(parent, key)
	for k, e := range entries {
		if _, dup := into[k]; dup {
			return fmt.Errorf("openapi part %s: %s.%s is defined twice", name, where, k)
		}
		into[k] = e
	}
	return nil
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// expandOperations adds to every operation what all of them share, so that no fragment repeats it:
//   - its x-errors (the error codes it can answer with beyond those every operation shares) become
//     one response per status, each naming its codes in an enum of the envelope's error.code; the
//     shared codes and each code's status are in base.yaml's x-folio-errors;
//   - every response gets the X-Request-Id header, and every 2xx of an authenticated operation the
//     X-RateLimit-* headers and the IETF draft's RateLimit and RateLimit-Policy;
//   - an authenticated POST, PATCH or DELETE takes the session cookie only with X-CSRF-Token.
func expandOperations(doc map[string]any) error {
	cfg, ok := doc["x-folio-errors"].(map[string]any)
	if !ok {
		return fmt.Errorf("openapi base: x-folio-errors missing")
	}
	delete(doc, "x-folio-errors")
	statusOf := map[string]int{}
	for code, s := range cfg["statuses"].(map[string]any) {
		statusOf[code] = s.(int)
	}
	list := func(key string) []string {
		var out []string
		for _, v := range cfg[key].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	every, authenticated, writes := list("everyOperation"), list("everyAuthenticated"), list("everyAuthenticatedWrite")
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for _, m := range methods {
			op, ok := ops[m].(map[string]any)
			if !ok {
				continue
			}
			where := strings.ToUpper(m) + " " + path
			codes := slices.Clone(every)
			sec, explicit := op["security"].([]any)
			public := explicit && len(sec) == 0
			if !public {
				codes = append(codes, authenticated...)
				if m != "get" {
					codes = append(codes, writes...)
					if !explicit {
						op["security"] = []any{
							map[string]any{"apiKey": []any{}},
							map[string]any{"session": []any{}, "csrfToken": []any{}},
						}
					}
				}
			}
			own, _ := op["x-errors"].([]any)
			delete(op, "x-errors")
			for _, c := range own {
				codes = append(codes, c.(string))
			}
			byStatus := map[int][]string{}
			for _, code := range codes {
				s, ok := statusOf[code]
				if !ok {
					return fmt.Errorf("openapi %s: error code %s has no status in x-folio-errors", where, code)
				}
				if !slices.Contains(byStatus[s], code) {
					byStatus[s] = append(byStatus[s], code)
				}
			}
			responses := child(op, "responses")
			for s, cs := range byStatus {
				key := strconv.Itoa(s)
				if _, dup := responses[key]; dup {
					return fmt.Errorf("openapi %s: response %s is written by hand and by x-errors", where, key)
				}
				responses[key] = errorResponse(s, cs)
			}
			for key, r := range responses {
				resp, _ := r.(map[string]any)
				if resp == nil {
					return fmt.Errorf("openapi %s: response %s is not a map", where, key)
				}
				headers := child(resp, "headers")
				headers["X-Request-Id"] = ref("headers", "X-Request-Id")
				if !public && strings.HasPrefix(key, "2") {
					for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy"} {
						headers[h] = ref("headers", h)
					}
				}
			}
		}
	}
	return nil
}

// errorResponse is the response of one error status carrying one of codes.
func errorResponse(status int, codes []string) map[string]any {
	sort.Strings(codes)
	enum := make([]any, len(codes))
	for i, c := range codes {
		enum[i] = c
	}
	headers := map[string]any{}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		headers["Retry-After"] = ref("headers", "Retry-After")
	}
	return map[string]any{
		"description": http.StatusText(status) + ": " + strings.Join(codes, ", ") + ".",
		"headers":     headers,
		"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
			"allOf": []any{
				ref("schemas", "Error"),
				map[string]any{"properties": map[string]any{"error": map[string]any{
					"properties": map[string]any{"code": map[string]any{"enum": enum}},
				}}},
			},
		}}},
	}
}

// marshal writes v as JSON without escaping <, > and & (descriptions quote Markdown).
func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

func ref(kind, name string) map[string]any {
	return map[string]any{"$ref": "#/components/" + kind + "/" + name}
}
