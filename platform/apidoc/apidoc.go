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
	// Owners names, for each path, the part that contributed it ("" for the base fragment): the
	// endpoint table's module column (docs/api.md).
	Owners map[string]string
}

// Params are what New assembles.
type Params struct {
	fx.In
	Parts []Part `group:"openapi"`
	Facts Facts
}

// Facts are what the document states from the server's configuration rather than as written
// (platform/module.go provides them from config.Config): a client generated from it reads the
// limits this server applies.
type Facts struct {
	RateLimit int // FOLIO_RATE_LIMIT: accepted requests per user in any rolling 60 seconds
}

// New assembles the base fragment and every module's part.
func New(p Params) (*Document, error) {
	raw, err := Assemble(p.Parts, p.Facts)
	if err != nil {
		return nil, err
	}
	owners := map[string]string{}
	for _, part := range p.Parts {
		var frag struct {
			Paths map[string]any `yaml:"paths"`
		}
		if err := yaml.Unmarshal(part.YAML, &frag); err != nil {
			return nil, fmt.Errorf("openapi part %s: %w", part.Name, err)
		}
		for path := range frag.Paths {
			owners[path] = part.Name
		}
	}
	return &Document{JSON: raw, Owners: owners}, nil
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
func Assemble(parts []Part, facts Facts) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(baseYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi base: %w", err)
	}
	if err := state(doc, facts); err != nil {
		return nil, err
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

// rateLimitMark is where base.yaml's info.description states the rate limit.
const rateLimitMark = "{{FOLIO_RATE_LIMIT}}"

// state writes facts into the base fragment: the rate limit in info.description.
func state(doc map[string]any, facts Facts) error {
	info, err := Node(doc, "info")
	if err != nil {
		return fmt.Errorf("openapi base: %w", err)
	}
	desc, _ := info["description"].(string)
	if !strings.Contains(desc, rateLimitMark) || facts.RateLimit < 1 {
		return fmt.Errorf("openapi base: info.description must state the rate limit (%s) and the limit must be set, got %d", rateLimitMark, facts.RateLimit)
	}
	info["description"] = strings.ReplaceAll(desc, rateLimitMark, strconv.Itoa(facts.RateLimit))
	return nil
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
		case "x-folio-errors":
			if err := mergeErrors(doc, v, name); err != nil {
				return err
			}
		default:
			return fmt.Errorf("openapi part %s: only paths, components, tags and x-folio-errors may be contributed, not %q", name, key)
		}
	}
	return nil
}

// mergeErrors adds a part's own error codes (x-folio-errors: {statuses: {CODE: status}}) to the
// base's: a module declares the codes it answers with beside its routes, so the document's list
// of codes is assembled, not written centrally. A code may be declared by several parts with the
// same status (a kernel error two modules answer with); another status is an error. A part may
// also give the schema of a code's error.details (x-folio-errors: {details: {CODE: {$ref: ...}}}),
// once: every response that can carry the code then describes its details.
func mergeErrors(doc map[string]any, v any, name string) error {
	own, ok := v.(map[string]any)
	statuses, ok2 := own["statuses"].(map[string]any)
	details, hasDetails := own["details"].(map[string]any)
	if !ok || !ok2 || len(own) != 1 && (len(own) != 2 || !hasDetails) {
		return fmt.Errorf("openapi part %s: x-folio-errors may hold only statuses, a map of code to status, and details, a map of code to schema", name)
	}
	into := child(child(doc, "x-folio-errors"), "statuses")
	for code, status := range statuses {
		if prev, dup := into[code]; dup && fmt.Sprint(prev) != fmt.Sprint(status) {
			return fmt.Errorf("openapi part %s: error code %s has status %v here and %v elsewhere", name, code, status, prev)
		}
		into[code] = status
	}
	intoDetails := child(child(doc, "x-folio-errors"), "details")
	for code, schema := range details {
		if _, dup := intoDetails[code]; dup {
			return fmt.Errorf("openapi part %s: the details of error code %s are described twice", name, code)
		}
		if _, declared := into[code]; !declared {
			return fmt.Errorf("openapi part %s: details of error code %s, which has no status", name, code)
		}
		intoDetails[code] = schema
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
//   - every operation takes the X-Request-Id request header and every response carries it back;
//     every response of an authenticated operation carries the X-RateLimit-* headers and the IETF
//     draft's RateLimit and RateLimit-Policy (required
//     on a 2xx; on an error, present once the request was authenticated);
//   - an authenticated POST, PATCH or DELETE takes the session cookie only with X-CSRF-Token;
//   - safe writes (see safeWrites): Idempotency-Key on authenticated writes, and what x-etag and
//     x-if-match ask for.
func expandOperations(doc map[string]any) error {
	sh, err := readShared(doc)
	if err != nil {
		return err
	}
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for _, m := range methods {
			if op, ok := ops[m].(map[string]any); ok {
				if err := sh.expand(op, m, strings.ToUpper(m)+" "+path); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// shared is base.yaml's x-folio-errors: each code's status, and the codes every operation, every
// authenticated operation and every authenticated write can answer with.
type shared struct {
	statusOf                     map[string]int
	details                      map[string]any // code → the schema of its error.details
	every, authenticated, writes []string
}

func readShared(doc map[string]any) (shared, error) {
	raw, err := json.Marshal(doc["x-folio-errors"])
	if err != nil {
		return shared{}, err
	}
	delete(doc, "x-folio-errors")
	var cfg struct {
		Statuses                map[string]int `json:"statuses"`
		Details                 map[string]any `json:"details"`
		EveryOperation          []string       `json:"everyOperation"`
		EveryAuthenticated      []string       `json:"everyAuthenticated"`
		EveryAuthenticatedWrite []string       `json:"everyAuthenticatedWrite"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil || len(cfg.Statuses) == 0 {
		return shared{}, fmt.Errorf("openapi base: x-folio-errors missing or malformed: %v", err)
	}
	return shared{statusOf: cfg.Statuses, details: cfg.Details, every: cfg.EveryOperation, authenticated: cfg.EveryAuthenticated, writes: cfg.EveryAuthenticatedWrite}, nil
}

// expand completes one operation (method m; where names it in errors).
func (sh shared) expand(op map[string]any, m, where string) error {
	params, _ := op["parameters"].([]any)
	op["parameters"] = append(params, ref("parameters", "requestId"))
	sec, explicit := op["security"].([]any)
	public := explicit && len(sec) == 0
	codes := slices.Clone(sh.every)
	if !public {
		codes = append(codes, sh.authenticated...)
		if m != "get" {
			codes = append(codes, sh.writes...)
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
		code, _ := c.(string)
		codes = append(codes, code)
	}
	codes = append(codes, safeWrites(op, m, public)...)
	responses := child(op, "responses")
	if err := sh.addErrors(responses, codes, where); err != nil {
		return err
	}
	return addHeaders(responses, public, where)
}

// safeWrites adds to op what conditional requests and idempotent retries (CONTRACT.md sections 12
// and 13) add, and returns the error codes they add:
//   - an authenticated POST, PATCH or DELETE takes Idempotency-Key, and its 2xx responses may
//     carry Idempotent-Replayed (its codes are in everyAuthenticatedWrite);
//   - x-etag: true (an operation answering one resource with its ETag): the ETag header on its 2xx
//     responses and, on a GET, the If-None-Match header and the 304 response;
//   - x-if-match: true: the If-Match header and 412 PRECONDITION_FAILED.
func safeWrites(op map[string]any, m string, public bool) []string {
	write := !public && m != "get"
	tagged, _ := op["x-etag"].(bool)
	ifMatch, _ := op["x-if-match"].(bool)
	delete(op, "x-etag")
	delete(op, "x-if-match")
	var codes []string
	if write {
		addParameter(op, "Idempotency-Key")
	}
	if ifMatch {
		addParameter(op, "If-Match")
		codes = append(codes, "PRECONDITION_FAILED")
	}
	responses := child(op, "responses")
	if tagged && m == "get" {
		addParameter(op, "If-None-Match")
		responses["304"] = map[string]any{
			"description": "Not Modified: If-None-Match names the current ETag. No body.",
			"headers":     map[string]any{"ETag": ref("headers", "ETag")},
		}
	}
	for key, r := range responses {
		resp, ok := r.(map[string]any)
		if !ok || !strings.HasPrefix(key, "2") {
			continue // addHeaders reports a response that is not a map
		}
		headers := child(resp, "headers")
		if tagged {
			headers["ETag"] = ref("headers", "ETag")
		}
		if write {
			headers["Idempotent-Replayed"] = ref("headers", "Idempotent-Replayed")
		}
	}
	return codes
}

// addParameter adds the shared parameter name (#/components/parameters/name) to op.
func addParameter(op map[string]any, name string) {
	params, _ := op["parameters"].([]any)
	op["parameters"] = append(params, ref("parameters", name))
}

// addErrors adds one response per status of codes.
func (sh shared) addErrors(responses map[string]any, codes []string, where string) error {
	byStatus := map[int][]string{}
	for _, code := range codes {
		s, ok := sh.statusOf[code]
		if !ok {
			return fmt.Errorf("openapi %s: error code %q has no status in x-folio-errors", where, code)
		}
		if !slices.Contains(byStatus[s], code) {
			byStatus[s] = append(byStatus[s], code)
		}
	}
	for s, cs := range byStatus {
		key := strconv.Itoa(s)
		if _, dup := responses[key]; dup {
			return fmt.Errorf("openapi %s: response %s is written by hand and by x-errors", where, key)
		}
		responses[key] = sh.errorResponse(s, cs)
	}
	return nil
}

// addHeaders adds X-Request-Id to every response and, unless the operation is public, the
// rate-limit headers.
func addHeaders(responses map[string]any, public bool, where string) error {
	for key, r := range responses {
		resp, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("openapi %s: response %s is not a map", where, key)
		}
		headers := child(resp, "headers")
		headers["X-Request-Id"] = ref("headers", "X-Request-Id")
		if public {
			continue
		}
		for _, h := range rateLimitHeaders {
			if strings.HasPrefix(key, "2") {
				headers[h.name] = ref("headers", h.name)
			} else if key != "401" && key != "431" {
				// Errors after authentication carry them too; those before it do not.
				headers[h.name] = map[string]any{
					"description": "As on a success, when the request was authenticated.",
					"schema":      h.schema,
				}
			}
		}
	}
	return nil
}

// rateLimitHeaders are the headers of every authenticated response (CONTRACT.md sections 8 and 11),
// with the schema they have where they are optional.
var rateLimitHeaders = []struct {
	name   string
	schema map[string]any
}{
	{"X-RateLimit-Limit", map[string]any{"type": "integer", "minimum": 0}},
	{"X-RateLimit-Remaining", map[string]any{"type": "integer", "minimum": 0}},
	{"X-RateLimit-Reset", map[string]any{"type": "integer", "minimum": 0}},
	{"RateLimit", map[string]any{"type": "string"}},
	{"RateLimit-Policy", map[string]any{"type": "string"}},
}

// errorResponse is the response of one error status carrying one of codes.
func (sh shared) errorResponse(status int, codes []string) map[string]any {
	sort.Strings(codes)
	enum := make([]any, len(codes))
	var details []any
	for i, c := range codes {
		enum[i] = c
		if d, ok := sh.details[c]; ok {
			details = append(details, d)
		}
	}
	headers := map[string]any{}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		headers["Retry-After"] = ref("headers", "Retry-After")
	}
	if status == http.StatusUnauthorized {
		headers["WWW-Authenticate"] = ref("headers", "WWW-Authenticate")
	}
	errorProps := map[string]any{"code": map[string]any{"enum": enum}}
	switch len(details) {
	case 0:
	case 1:
		errorProps["details"] = details[0]
	default:
		errorProps["details"] = map[string]any{"anyOf": details}
	}
	return map[string]any{
		"description": http.StatusText(status) + ": " + strings.Join(codes, ", ") + ".",
		"headers":     headers,
		"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
			"allOf": []any{
				ref("schemas", "Error"),
				map[string]any{"properties": map[string]any{"error": map[string]any{
					"properties": errorProps,
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

// Generated is a module's part whose YAML fragment is completed at start by edit, from what the
// modules declare through fx (the events module's event types, the audit module's resource
// types): a module that declares one then appears in the document without editing another's
// fragment.
func Generated(name string, fragment []byte, edit func(doc map[string]any) error) (Part, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(fragment, &doc); err != nil {
		return Part{}, fmt.Errorf("openapi part %s: %w", name, err)
	}
	if err := edit(doc); err != nil {
		return Part{}, fmt.Errorf("openapi part %s: %w", name, err)
	}
	out, err := yaml.Marshal(doc)
	return Part{Name: name, YAML: out}, err
}

// Node is the map under keys in a fragment; a missing key is an error naming the path.
func Node(m map[string]any, keys ...string) (map[string]any, error) {
	for i, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is missing or not a map", strings.Join(keys[:i+1], "."))
		}
		m = next
	}
	return m, nil
}

// Parameter is the parameter named name of operation op; a missing one is an error.
func Parameter(op map[string]any, name string) (map[string]any, error) {
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		if m, ok := p.(map[string]any); ok && m["name"] == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("parameter %q is missing", name)
}

// Enum is values as a YAML list, for an enum.
func Enum(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
