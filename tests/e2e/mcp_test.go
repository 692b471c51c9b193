package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/tests/apitest"
)

// The MCP server (POST /mcp), spoken to with the official Go SDK's own client over HTTP, on both
// databases: the tools each kind of key sees, every tool against the API's answer for the same
// request, the access matrix of newWorld compared cell by cell with the API's, authentication, the
// rate limit shared with the API, a suggestion proposed through MCP approved over the API, and the
// audit entries naming the key.

// Tools by the scope they need (app/mcp/tools.go).
var (
	mcpReadTools  = []string{"get_focus", "get_history", "get_note", "get_suggestion", "list_notebooks", "list_suggestions", "list_tasks", "search_notes"}
	mcpWriteTools = []string{"create_note", "create_task", "propose_note_change", "propose_task_change", "update_task"}
)

// mcpExchange is one HTTP exchange of an MCP client with the server.
type mcpExchange struct {
	method string
	status int
	header http.Header
	body   []byte
}

// mcpRecorder is the client's HTTP transport: it adds the key as a Bearer token and records every
// exchange, so that tests can see statuses and rate-limit headers under the SDK.
type mcpRecorder struct {
	key       string
	transport *http.Transport
	mu        sync.Mutex
	seen      []mcpExchange
}

func (r *mcpRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := r.transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.seen = append(r.seen, mcpExchange{method: req.Method, status: resp.StatusCode, header: resp.Header.Clone(), body: body})
	r.mu.Unlock()
	return resp, nil
}

// exchanges returns the exchanges recorded so far.
func (r *mcpRecorder) exchanges() []mcpExchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// mcpConn is a connected MCP client session with its recorder.
type mcpConn struct {
	cs  *mcp.ClientSession
	rec *mcpRecorder
}

// mcpDial connects the SDK's client to the server's /mcp with key ("" sends no Authorization).
// version picks the protocol version ("" is the SDK's latest).
func mcpDial(t *testing.T, s *apitest.Server, key, version string) (*mcpConn, error) {
	t.Helper()
	rec := &mcpRecorder{key: key, transport: &http.Transport{}}
	t.Cleanup(rec.transport.CloseIdleConnections)
	client := mcp.NewClient(&mcp.Implementation{Name: "folio-e2e", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: rec, Timeout: 30 * time.Second}, MaxRetries: -1}
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(t.Context(), tr, opts)
	if err != nil {
		return &mcpConn{rec: rec}, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &mcpConn{cs: cs, rec: rec}, nil
}

// mcpConnect is mcpDial that must succeed.
func mcpConnect(t *testing.T, s *apitest.Server, key string) *mcpConn {
	t.Helper()
	c, err := mcpDial(t, s, key, "")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return c
}

// toolNames lists the session's tools, sorted.
func (c *mcpConn) toolNames(t *testing.T) []string {
	t.Helper()
	res, err := c.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tool.Name)
		}
	}
	slices.Sort(names)
	return names
}

// mcpOutcome is what a tool call or a resource read came to: "ok" (out holds the structured
// output, decoded as JSON), the code of the API envelope a tool error carries, or "unlisted"
// when the server does not offer the tool to the key (the call is the protocol's error).
type mcpOutcome struct {
	code string
	out  any
	text string // the result's text (a tool error's envelope)
	err  error  // a protocol-level error
}

// call calls a tool. A tool error must carry a well-formed API envelope whose requestId is the
// X-Request-Id of the HTTP response it came in.
func (c *mcpConn) call(t *testing.T, name string, args map[string]any) mcpOutcome {
	t.Helper()
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		var werr *jsonrpc.Error
		if errors.As(err, &werr) && strings.Contains(werr.Message, "unknown tool") {
			return mcpOutcome{code: "unlisted", err: err}
		}
		return mcpOutcome{code: "protocol error", err: err}
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		var env struct {
			Error struct{ Code, Message, RequestID string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(text), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" {
			return mcpOutcome{code: "not an envelope", text: text}
		}
		ex := c.rec.exchanges()
		if last := ex[len(ex)-1]; env.Error.RequestID != last.header.Get("X-Request-Id") {
			t.Errorf("%s: envelope requestId %q, X-Request-Id %q", name, env.Error.RequestID, last.header.Get("X-Request-Id"))
		}
		return mcpOutcome{code: env.Error.Code, text: text}
	}
	var out any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	// The text content is the same JSON, for clients that read only text.
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil || !reflect.DeepEqual(out, fromText) {
		t.Errorf("%s: text content %s differs from the structured content %s", name, text, raw)
	}
	return mcpOutcome{code: "ok", out: out, text: text}
}

// mustCall calls a tool that must succeed and returns its output object.
func (c *mcpConn) mustCall(t *testing.T, name string, args map[string]any) map[string]any {
	t.Helper()
	o := c.call(t, name, args)
	if o.code != "ok" {
		t.Fatalf("%s %v: %s %s %v", name, args, o.code, o.text, o.err)
	}
	return o.out.(map[string]any)
}

// readNote reads the resource folio://notes/{id}: "ok" with the text, or the envelope code of
// the JSON-RPC error's data, or "unlisted" when the key is offered no note resources.
func (c *mcpConn) readNote(t *testing.T, id string) mcpOutcome {
	t.Helper()
	templates, err := c.cs.ListResourceTemplates(t.Context(), nil)
	listed := err == nil && len(templates.ResourceTemplates) == 1 && templates.ResourceTemplates[0].URITemplate == "folio://notes/{id}"
	uri := "folio://notes/" + id
	res, err := c.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if !listed {
		if err == nil {
			t.Fatalf("read %s succeeded without the template being listed", uri)
		}
		return mcpOutcome{code: "unlisted", err: err}
	}
	if err != nil {
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) {
			return mcpOutcome{code: "protocol error", err: err}
		}
		var env struct {
			Error struct{ Code string } `json:"error"`
		}
		if json.Unmarshal(werr.Data, &env) != nil || !strings.HasPrefix(werr.Message, env.Error.Code+": ") {
			t.Fatalf("resource error without an envelope: %v", werr)
		}
		return mcpOutcome{code: env.Error.Code, err: err}
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("resource contents %+v", res.Contents)
	}
	return mcpOutcome{code: "ok", text: res.Contents[0].Text}
}

// apiOutcome is the API's answer in the terms of mcpOutcome: "ok" for a 2xx, "unlisted" for
// INSUFFICIENT_SCOPE (the tools a key's scope does not allow are not offered to it), else the
// envelope's code.
func apiOutcome(t *testing.T, r apitest.Response) string {
	t.Helper()
	switch code := r.ErrorCode(t); {
	case r.Status >= 200 && r.Status < 300:
		return "ok"
	case code == "INSUFFICIENT_SCOPE":
		return "unlisted"
	default:
		return code
	}
}

// jsonOf decodes an API body as a generic JSON value, to compare with a tool's output.
func jsonOf(t *testing.T, r apitest.Response) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("not JSON: %s", r.Body)
	}
	return v
}

// sameAsAPI fails unless a tool's output equals the API's body.
func sameAsAPI(t *testing.T, what string, mcpOut any, api apitest.Response) {
	t.Helper()
	if want := jsonOf(t, api); !reflect.DeepEqual(mcpOut, want) {
		got, _ := json.Marshal(mcpOut)
		t.Errorf("%s: the tool answered\n %s\nthe API\n %s", what, got, api.Body)
	}
}

// TestMCPToolsByScope: a key sees exactly the tools its scope allows (read tools with scope 1,
// write tools with scope 2, both with 3) and the note resources when it may read, with the SDK's
// latest protocol and with the 2025-11-25 handshake (initialize, initialized) that most
// assistants speak today; a tool it is not offered cannot be called either.
func TestMCPToolsByScope(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.annNB, "scoped #note")["id"].(string)
		for _, version := range []string{"", "2025-11-25"} {
			for _, tc := range []struct {
				name, key string
				tools     []string
				resource  string // reading Ann's personal note as a resource
			}{
				{"read", w.annRead, mcpReadTools, "ok"},
				{"write", w.annWrite, mcpWriteTools, "unlisted"},
				{"read+write", w.annRW, slices.Sorted(slices.Values(append(slices.Clone(mcpReadTools), mcpWriteTools...))), "ok"},
				{"workspace read", w.annTeamRead, mcpReadTools, "NOTE_NOT_FOUND"},
			} {
				t.Run(tc.name+" "+version, func(t *testing.T) {
					c, err := mcpDial(t, s, tc.key, version)
					if err != nil {
						t.Fatalf("connect: %v", err)
					}
					if got := c.toolNames(t); !slices.Equal(got, tc.tools) {
						t.Fatalf("tools %v, want %v", got, tc.tools)
					}
					if got := c.readNote(t, note); got.code != tc.resource {
						t.Fatalf("note resource: %s %v, want %s", got.code, got.err, tc.resource)
					}
					if !slices.Contains(tc.tools, "create_note") {
						if o := c.call(t, "create_note", map[string]any{"notebookId": w.annNB, "content": "must not exist"}); o.code != "unlisted" {
							t.Fatalf("create_note with a read key: %s %s", o.code, o.text)
						}
					}
					if !slices.Contains(tc.tools, "get_note") {
						if o := c.call(t, "get_note", map[string]any{"id": note}); o.code != "unlisted" {
							t.Fatalf("get_note with a write key: %s %s", o.code, o.text)
						}
					}
					// Stateless: no GET stream. A client that asks (the 2025-11-25 handshake does) gets the
					// engine's 405, before authentication, so that it costs nothing of the rate limit.
					for _, ex := range c.rec.exchanges() {
						if ex.method == http.MethodGet && (ex.status != http.StatusMethodNotAllowed || ex.header.Get("X-RateLimit-Remaining") != "") {
							t.Fatalf("GET /mcp: %d %v", ex.status, ex.header)
						}
						if ex.method == http.MethodPost && ex.header.Get("X-RateLimit-Remaining") == "" {
							t.Fatalf("POST /mcp without rate-limit headers: %d %s", ex.status, ex.body)
						}
					}
				})
			}
		}
		// Nothing the read keys tried was created.
		for _, n := range apitest.Must(t, s.Get(t, w.annRW, "/notes?notebookId="+w.annNB+"&limit=100"), http.StatusOK).Data(t) {
			if n["content"] == "must not exist" {
				t.Fatal("a read key created a note through MCP")
			}
		}
	})
}

// TestMCPTools calls every tool with a read+write key and compares each answer with the API's
// answer to the same request: outputs are the API's bodies, errors its envelopes.
func TestMCPTools(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		c := mcpConnect(t, s, w.annRW)

		nbs := c.mustCall(t, "list_notebooks", map[string]any{})
		sameAsAPI(t, "list_notebooks", nbs, apitest.Must(t, s.Get(t, w.annRW, "/notebooks"), http.StatusOK))
		first := c.mustCall(t, "list_notebooks", map[string]any{"limit": 1})
		sameAsAPI(t, "list_notebooks limit 1", first, s.Get(t, w.annRW, "/notebooks?limit=1"))
		next := c.mustCall(t, "list_notebooks", map[string]any{"limit": 1, "cursor": first["nextCursor"]})
		sameAsAPI(t, "list_notebooks page 2", next, s.Get(t, w.annRW, "/notebooks?limit=1&cursor="+first["nextCursor"].(string)))

		// create_note, then get_note and search_notes see it as the API does.
		created := c.mustCall(t, "create_note", map[string]any{"notebookId": w.annNB, "content": "1:1 with @dana about #hiring", "targetAt": "2026-03-01", "followUpAt": "2026-03-08T09:30:00Z"})
		id := created["id"].(string)
		// The answer is the API's note, as GET /notes/:id shows it less pendingSuggestion.
		asGot := jsonOf(t, s.Get(t, w.annRW, "/notes/"+id)).(map[string]any)
		delete(asGot, "pendingSuggestion")
		if !reflect.DeepEqual(any(created), any(asGot)) {
			t.Fatalf("create_note answered %v, GET shows %v", created, asGot)
		}
		got := c.mustCall(t, "get_note", map[string]any{"id": id})
		sameAsAPI(t, "get_note", got, s.Get(t, w.annRW, "/notes/"+id))
		if got["pendingSuggestion"] != nil || !slices.Equal(slices.Sorted(slices.Values(tagNames(t, got))), []string{"PERSON:dana", "TAG:hiring"}) || got["targetAt"] != "2026-03-01T00:00:00.000Z" {
			t.Fatalf("get_note %v", got)
		}
		createNote(t, s, w.annRW, w.annNB, "second note")
		page := c.mustCall(t, "search_notes", map[string]any{"notebookId": w.annNB, "limit": 1})
		sameAsAPI(t, "search_notes limit 1", page, s.Get(t, w.annRW, "/notes?notebookId="+w.annNB+"&limit=1"))
		page2 := c.mustCall(t, "search_notes", map[string]any{"notebookId": w.annNB, "limit": 1, "cursor": page["nextCursor"]})
		sameAsAPI(t, "search_notes page 2", page2, s.Get(t, w.annRW, "/notes?notebookId="+w.annNB+"&limit=1&cursor="+page["nextCursor"].(string)))
		if data := page2["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != id {
			t.Fatalf("second page %v", page2)
		}
		sameAsAPI(t, "search_notes", c.mustCall(t, "search_notes", map[string]any{}), s.Get(t, w.annRW, "/notes"))
		sameAsAPI(t, "search_notes archived", c.mustCall(t, "search_notes", map[string]any{"archived": true}), s.Get(t, w.annRW, "/notes?archived=true"))
		// The text, tag and person filters are GET /notes' q, tag and person.
		for _, tc := range []struct {
			args  map[string]any
			query string
		}{
			{map[string]any{"q": "hiring"}, "q=hiring"},
			{map[string]any{"q": "DANA hir"}, "q=DANA+hir"},
			{map[string]any{"tag": "hiring"}, "tag=hiring"},
			{map[string]any{"person": "@dana", "q": "1:1"}, "person=dana&q=1%3A1"},
			{map[string]any{"q": "nothing-like-this"}, "q=nothing-like-this"},
		} {
			got := c.mustCall(t, "search_notes", tc.args)
			sameAsAPI(t, "search_notes "+tc.query, got, s.Get(t, w.annRW, "/notes?"+tc.query))
		}
		if got := c.mustCall(t, "search_notes", map[string]any{"q": "hiring"}); len(got["data"].([]any)) == 0 {
			t.Fatalf("search_notes q=hiring found nothing: %v", got)
		}

		// The note resource is the note's Markdown.
		if o := c.readNote(t, id); o.code != "ok" || o.text != "1:1 with @dana about #hiring" {
			t.Fatalf("resource: %s %q", o.code, o.text)
		}
		if o := c.readNote(t, "zzzzzzzzzzzzzzzzzzzzzzzz"); o.code != "NOTE_NOT_FOUND" {
			t.Fatalf("resource of an unknown note: %s %v", o.code, o.err)
		}

		// Tasks: create, list (with the status filter), update.
		task := c.mustCall(t, "create_task", map[string]any{"notebookId": w.annNB, "title": "Prepare the offsite", "notes": "agenda for @dana", "priority": "HIGH", "dueAt": "2026-04-01", "targetAt": "2026-03-25"})
		taskID := task["id"].(string)
		sameAsAPI(t, "create_task", task, s.Get(t, w.annRW, "/tasks/"+taskID))
		if task["status"] != "TODO" || task["priority"] != "HIGH" || task["notes"] != "agenda for @dana" {
			t.Fatalf("create_task %v", task)
		}
		sameAsAPI(t, "list_tasks", c.mustCall(t, "list_tasks", map[string]any{"notebookId": w.annNB, "status": "TODO"}), s.Get(t, w.annRW, "/tasks?notebookId="+w.annNB+"&status=TODO"))
		updated := c.mustCall(t, "update_task", map[string]any{"id": taskID, "status": "IN_PROGRESS", "dueAt": "2026-04-02", "targetAt": ""})
		sameAsAPI(t, "update_task", updated, s.Get(t, w.annRW, "/tasks/"+taskID))
		if updated["status"] != "IN_PROGRESS" || updated["priority"] != "HIGH" || updated["dueAt"] != "2026-04-02T00:00:00.000Z" || updated["targetAt"] != nil || updated["notes"] != "agenda for @dana" {
			t.Fatalf("update_task %v", updated)
		}
		// null clears a date as PATCH's null does (CONTRACT.md section 25); an absent date is kept.
		cleared := c.mustCall(t, "update_task", map[string]any{"id": taskID, "dueAt": nil})
		if cleared["dueAt"] != nil || cleared["status"] != "IN_PROGRESS" {
			t.Fatalf("update_task with dueAt null %v", cleared)
		}
		c.mustCall(t, "update_task", map[string]any{"id": taskID, "dueAt": "2026-04-02", "priority": "LOW"})
		if kept := c.mustCall(t, "update_task", map[string]any{"id": taskID, "priority": "HIGH"}); kept["dueAt"] != "2026-04-02T00:00:00.000Z" {
			t.Fatalf("update_task without dueAt dropped it: %v", kept)
		}
		sameAsAPI(t, "list_tasks DONE", c.mustCall(t, "list_tasks", map[string]any{"status": "DONE"}), s.Get(t, w.annRW, "/tasks?status=DONE"))

		// get_focus is GET /focus: the note targeted on 2026-03-01, the task due on 2026-04-02.
		day := c.mustCall(t, "get_focus", map[string]any{"date": "2026-03-01", "tz": "Europe/Berlin"})
		sameAsAPI(t, "get_focus", day, s.Get(t, w.annRW, "/focus?date=2026-03-01&tz=Europe/Berlin"))
		if targeted := day["targeted"].([]any); len(targeted) != 1 || targeted[0].(map[string]any)["item"].(map[string]any)["id"] != id {
			t.Fatalf("get_focus targeted %v", day["targeted"])
		}
		later := c.mustCall(t, "get_focus", map[string]any{"date": "2026-04-02"})
		sameAsAPI(t, "get_focus date alone", later, s.Get(t, w.annRW, "/focus?date=2026-04-02"))
		if due := later["due"].([]any); len(due) != 1 || due[0].(map[string]any)["kind"] != "task" {
			t.Fatalf("get_focus due %v", later["due"])
		}
		if today := c.mustCall(t, "get_focus", map[string]any{}); today["tz"] != "UTC" || len(today["date"].(string)) != len("2006-01-02") {
			t.Fatalf("get_focus without arguments: date %v, tz %v", today["date"], today["tz"])
		}

		// Proposals: the note does not change until the owner approves over the API.
		sg := c.mustCall(t, "propose_note_change", map[string]any{"id": id, "content": "1:1 with @dana about #hiring and #budget", "rationale": "the budget came up too"})
		if sg["status"] != "PENDING" || sg["originalContent"] != "1:1 with @dana about #hiring" || sg["rationale"] != "the budget came up too" || sg["mergeable"] != true {
			t.Fatalf("propose_note_change %v", sg)
		}
		note := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+id), http.StatusOK).JSON(t)
		// The note's pendingSuggestion is the proposal without mergeable (which the suggest
		// answers, and GET /suggestions/:id reports as the note changes).
		pending := maps.Clone(sg)
		delete(pending, "mergeable")
		if note["content"] != "1:1 with @dana about #hiring" || !reflect.DeepEqual(note["pendingSuggestion"], any(pending)) {
			t.Fatalf("note after the proposal: %v", note)
		}
		sameAsAPI(t, "get_note with a pending suggestion", c.mustCall(t, "get_note", map[string]any{"id": id}), s.Get(t, w.annRW, "/notes/"+id))
		// The proposal waits in the inbox, as the API lists it.
		inbox := c.mustCall(t, "list_suggestions", map[string]any{"itemKind": "note"})
		if data, _ := inbox["data"].([]any); len(data) == 0 || data[0].(map[string]any)["id"] != sg["id"] {
			t.Fatalf("list_suggestions after the proposal: %v", inbox)
		}
		sameAsAPI(t, "list_suggestions", inbox, s.Get(t, w.annRW, "/suggestions?itemKind=note"))
		// After the approval below, the note's history shows the replaced content.
		defer func() {
			hist := c.mustCall(t, "get_history", map[string]any{"itemKind": "note", "id": id})
			if data, _ := hist["data"].([]any); len(data) == 0 || data[0].(map[string]any)["reason"] != "suggestion" {
				t.Errorf("get_history after the approval: %v", hist)
			}
			sameAsAPI(t, "get_history", hist, s.Get(t, w.annRW, "/notes/"+id+"/versions"))
		}()
		r := apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg["id"].(string)+"/approve", nil), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"APPROVED"}` {
			t.Fatalf("approve: %s", r.Body)
		}
		note = apitest.Must(t, s.Get(t, w.annRW, "/notes/"+id), http.StatusOK).JSON(t)
		if note["content"] != "1:1 with @dana about #hiring and #budget" || note["pendingSuggestion"] != nil || !slices.Equal(slices.Sorted(slices.Values(tagNames(t, note))), []string{"PERSON:dana", "TAG:budget", "TAG:hiring"}) {
			t.Fatalf("note after approval: %v", note)
		}
		tsg := c.mustCall(t, "propose_task_change", map[string]any{"id": taskID, "notes": "agenda for @dana, and the venue"})
		list := apitest.Must(t, s.Get(t, w.annRW, "/tasks/"+taskID+"/suggestions"), http.StatusOK).Data(t)
		if tsg["status"] != "PENDING" || tsg["originalContent"] != "agenda for @dana" || tsg["rationale"] != "" || len(list) != 1 || list[0]["id"] != tsg["id"] {
			t.Fatalf("propose_task_change %v, the task's suggestions %v", tsg, list)
		}
		apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+tsg["id"].(string)+"/approve", nil), http.StatusOK)
		if n := apitest.Must(t, s.Get(t, w.annRW, "/tasks/"+taskID), http.StatusOK).Str(t, "notes"); n != "agenda for @dana, and the venue" {
			t.Fatalf("task notes after approval %q", n)
		}

		// Errors are the API's, code and message, for the same request.
		for _, tc := range []struct {
			tool string
			args map[string]any
			api  apitest.Request
		}{
			{"get_note", map[string]any{"id": "zzzzzzzzzzzzzzzzzzzzzzzz"}, apitest.Request{Method: "GET", Path: "/notes/zzzzzzzzzzzzzzzzzzzzzzzz"}},
			{"create_note", map[string]any{"notebookId": w.carlNB, "content": "x"}, apitest.Request{Method: "POST", Path: "/notes", Body: map[string]any{"notebookId": w.carlNB, "content": "x"}}},
			{"create_note", map[string]any{"notebookId": w.annNB, "content": "x", "targetAt": "tomorrow"}, apitest.Request{Method: "POST", Path: "/notes", Body: map[string]any{"notebookId": w.annNB, "content": "x", "targetAt": "tomorrow"}}},
			{"create_note", map[string]any{"notebookId": w.annNB, "content": strings.Repeat("x", 100_001)}, apitest.Request{Method: "POST", Path: "/notes", Body: map[string]any{"notebookId": w.annNB, "content": strings.Repeat("x", 100_001)}}},
			{"create_task", map[string]any{"notebookId": w.annNB, "title": "  "}, apitest.Request{Method: "POST", Path: "/tasks", Body: map[string]any{"notebookId": w.annNB, "title": "  "}}},
			{"create_task", map[string]any{"notebookId": w.annNB, "title": "t", "dueAt": "2026-13-01"}, apitest.Request{Method: "POST", Path: "/tasks", Body: map[string]any{"notebookId": w.annNB, "title": "t", "dueAt": "2026-13-01"}}},
			{"update_task", map[string]any{"id": taskID, "followUpAt": "soon"}, apitest.Request{Method: "PATCH", Path: "/tasks/" + taskID, Body: map[string]any{"followUpAt": "soon"}}},
			{"update_task", map[string]any{"id": "zzzzzzzzzzzzzzzzzzzzzzzz", "status": "DONE"}, apitest.Request{Method: "PATCH", Path: "/tasks/zzzzzzzzzzzzzzzzzzzzzzzz", Body: map[string]any{"status": "DONE"}}},
			{"propose_note_change", map[string]any{"id": id, "content": "x", "rationale": strings.Repeat("r", 2001)}, apitest.Request{Method: "POST", Path: "/notes/" + id + "/suggest", Body: map[string]any{"content": "x", "rationale": strings.Repeat("r", 2001)}}},
			{"search_notes", map[string]any{"cursor": "nope"}, apitest.Request{Method: "GET", Path: "/notes?cursor=nope"}},
			{"list_tasks", map[string]any{"notebookId": w.carlNB}, apitest.Request{Method: "GET", Path: "/tasks?notebookId=" + w.carlNB}},
			{"get_focus", map[string]any{"date": "2026-02-30"}, apitest.Request{Method: "GET", Path: "/focus?date=2026-02-30"}},
			{"get_focus", map[string]any{"tz": "Mars/Olympus_Mons"}, apitest.Request{Method: "GET", Path: "/focus?tz=Mars/Olympus_Mons"}},
		} {
			tc.api.Key = w.annRW
			api := s.Do(t, tc.api)
			o := c.call(t, tc.tool, tc.args)
			var env struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			_ = json.Unmarshal([]byte(o.text), &env)
			want := api.JSON(t)["error"].(map[string]any)
			if api.Status < 400 || env.Error.Code != want["code"] || env.Error.Message != want["message"] {
				t.Errorf("%s %v: the tool answered %s %s, the API %d %s", tc.tool, tc.args, o.code, o.text, api.Status, api.Body)
			}
		}
		// Arguments that do not match a tool's input schema are refused by the SDK before folio
		// sees them (a tool error without an envelope).
		for _, tc := range []struct {
			tool string
			args map[string]any
		}{
			{"update_task", map[string]any{"id": taskID, "status": "done"}},
			{"create_note", map[string]any{"content": "no notebook"}},
			{"search_notes", map[string]any{"limit": 0}},
			{"get_note", map[string]any{"id": id, "extra": true}},
		} {
			if o := c.call(t, tc.tool, tc.args); o.code != "not an envelope" || !strings.Contains(o.text, "validating") {
				t.Errorf("%s %v: %s %s %v", tc.tool, tc.args, o.code, o.text, o.err)
			}
		}
		if n := apitest.Must(t, s.Get(t, w.annRW, "/tasks/"+taskID), http.StatusOK).Str(t, "status"); n != "IN_PROGRESS" {
			t.Fatalf("a refused update_task changed the task: status %s", n)
		}
	})
}

// TestMCPAccessMatchesAPI sends, for every principal of newWorld that authenticates, each tool
// and the note resource on Ann's personal, the Team and Carl's notebooks and items, and the API's
// request for the same, and requires the same outcome: the key's scope, restriction and the
// user's memberships act on MCP exactly as the API's access matrices say, because the tools call
// the same services. Reads that succeed must also answer the same body. A few cells are spelled
// out, so that the comparison cannot pass by both sides being wrong alike.
func TestMCPAccessMatchesAPI(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		type place struct{ name, nb, note, task, suggestion string }
		places := []place{{name: "personal", nb: w.annNB}, {name: "team", nb: w.teamNB}, {name: "carl", nb: w.carlNB}}
		for i, owner := range []string{w.annRW, w.annRW, w.carlRW} {
			places[i].note = createNote(t, s, owner, places[i].nb, "seen by #whom")["id"].(string)
			places[i].task = newContent(t, s, owner, "task", places[i].nb, "task notes")
			places[i].suggestion = apitest.Must(t, suggest(t, s, owner, "task", places[i].task, "better task notes"), http.StatusCreated).Str(t, "id")
			focusItems{t, s, owner, places[i].nb}.task("in focus", map[string]any{"targetAt": "2025-05-05", "followUpAt": "2025-05-01", "dueAt": "2025-05-05T12:00:00Z"})
		}
		type op struct {
			name string
			tool string // "" for the note resource
			args map[string]any
			api  apitest.Request
			read bool // compare the bodies when both succeed
		}
		var ops []op
		ops = append(ops,
			op{name: "list_notebooks", tool: "list_notebooks", args: map[string]any{}, api: apitest.Request{Method: "GET", Path: "/notebooks"}, read: true},
			op{name: "search_notes", tool: "search_notes", args: map[string]any{}, api: apitest.Request{Method: "GET", Path: "/notes"}, read: true},
			op{name: "list_tasks", tool: "list_tasks", args: map[string]any{}, api: apitest.Request{Method: "GET", Path: "/tasks"}, read: true},
			op{name: "list_suggestions", tool: "list_suggestions", args: map[string]any{}, api: apitest.Request{Method: "GET", Path: "/suggestions"}, read: true},
			op{name: "get_focus", tool: "get_focus", args: map[string]any{"date": "2025-05-05"}, api: apitest.Request{Method: "GET", Path: "/focus?date=2025-05-05"}, read: true},
		)
		for _, p := range places {
			ops = append(ops,
				op{name: "get_note " + p.name, tool: "get_note", args: map[string]any{"id": p.note}, api: apitest.Request{Method: "GET", Path: "/notes/" + p.note}, read: true},
				op{name: "note resource " + p.name, args: map[string]any{"id": p.note}, api: apitest.Request{Method: "GET", Path: "/notes/" + p.note}, read: true},
				op{name: "search_notes " + p.name, tool: "search_notes", args: map[string]any{"notebookId": p.nb}, api: apitest.Request{Method: "GET", Path: "/notes?notebookId=" + p.nb}, read: true},
				op{name: "list_tasks " + p.name, tool: "list_tasks", args: map[string]any{"notebookId": p.nb}, api: apitest.Request{Method: "GET", Path: "/tasks?notebookId=" + p.nb}, read: true},
				op{name: "list_suggestions " + p.name, tool: "list_suggestions", args: map[string]any{"notebookId": p.nb}, api: apitest.Request{Method: "GET", Path: "/suggestions?notebookId=" + p.nb}, read: true},
				op{name: "get_suggestion " + p.name, tool: "get_suggestion", args: map[string]any{"id": p.suggestion}, api: apitest.Request{Method: "GET", Path: "/suggestions/" + p.suggestion}, read: true},
				op{name: "get_history " + p.name, tool: "get_history", args: map[string]any{"itemKind": "note", "id": p.note}, api: apitest.Request{Method: "GET", Path: "/notes/" + p.note + "/versions"}, read: true},
				op{name: "create_note " + p.name, tool: "create_note", args: map[string]any{"notebookId": p.nb, "content": "new"}, api: apitest.Request{Method: "POST", Path: "/notes", Body: map[string]any{"notebookId": p.nb, "content": "new"}}},
				op{name: "create_task " + p.name, tool: "create_task", args: map[string]any{"notebookId": p.nb, "title": "new"}, api: apitest.Request{Method: "POST", Path: "/tasks", Body: map[string]any{"notebookId": p.nb, "title": "new"}}},
				op{name: "update_task " + p.name, tool: "update_task", args: map[string]any{"id": p.task, "priority": "URGENT"}, api: apitest.Request{Method: "PATCH", Path: "/tasks/" + p.task, Body: map[string]any{"priority": "URGENT"}}},
				op{name: "propose_note_change " + p.name, tool: "propose_note_change", args: map[string]any{"id": p.note, "content": "proposed"}, api: apitest.Request{Method: "POST", Path: "/notes/" + p.note + "/suggest", Body: map[string]any{"content": "proposed"}}},
				op{name: "propose_task_change " + p.name, tool: "propose_task_change", args: map[string]any{"id": p.task, "notes": "proposed"}, api: apitest.Request{Method: "POST", Path: "/tasks/" + p.task + "/suggest", Body: map[string]any{"content": "proposed"}}},
			)
		}
		spelled := map[string]string{
			"read create_note personal":               "unlisted",
			"write get_note personal":                 "unlisted",
			"write note resource personal":            "unlisted",
			"rw update_task personal":                 "ok",
			"nbTeam get_note personal":                "NOTE_NOT_FOUND",
			"nbTeam create_note personal":             "KEY_NOTEBOOK_MISMATCH",
			"nbPersonal search_notes team":            "KEY_NOTEBOOK_MISMATCH",
			"ws search_notes personal":                "KEY_WORKSPACE_MISMATCH",
			"wsRead update_task team":                 "unlisted",
			"carl get_note personal":                  "NOTE_NOT_FOUND",
			"carl note resource team":                 "NOTE_NOT_FOUND",
			"bob propose_note_change team":            "ok",
			"bob list_tasks carl":                     "NOTEBOOK_NOT_FOUND",
			"ws propose_task_change carl":             "TASK_NOT_FOUND",
			"nbPersonal propose_note_change team":     "NOTE_NOT_FOUND",
			"nbPersonal propose_note_change personal": "ok",
			"write get_focus":                         "unlisted",
			"carl get_focus":                          "ok",
			"carl get_suggestion personal":            "SUGGESTION_NOT_FOUND",
			"nbTeam get_suggestion team":              "ok",
		}
		keys := matrixKeys(w)
		checked := 0
		for _, col := range []string{"read", "write", "rw", "ws", "wsRead", "nbTeam", "nbPersonal", "carl", "bob"} {
			t.Run(col, func(t *testing.T) {
				c := mcpConnect(t, s, keys[col])
				for _, o := range ops {
					api := o.api
					api.Key = keys[col]
					want := s.Do(t, api)
					var got mcpOutcome
					if o.tool == "" {
						got = c.readNote(t, o.args["id"].(string))
					} else {
						got = c.call(t, o.tool, o.args)
					}
					if got.code != apiOutcome(t, want) {
						t.Errorf("%s: MCP %s %s %v, API %d %s", o.name, got.code, got.text, got.err, want.Status, want.Body)
						continue
					}
					if s, ok := spelled[col+" "+o.name]; ok {
						checked++
						if got.code != s {
							t.Errorf("%s: %s on both sides, want %s", o.name, got.code, s)
						}
					}
					if got.code != "ok" || !o.read {
						continue
					}
					if o.tool == "" {
						if got.text != want.Str(t, "content") {
							t.Errorf("%s: resource text %q, API content %q", o.name, got.text, want.Str(t, "content"))
						}
					} else {
						sameAsAPI(t, o.name, got.out, want)
					}
				}
			})
		}
		if checked != len(spelled) {
			t.Errorf("%d of the %d spelled-out cells were checked", checked, len(spelled))
		}
	})
}

// rawMCP posts one JSON-RPC message to /mcp with the given headers.
func rawMCP(t *testing.T, s *apitest.Server, method string, header map[string]string) apitest.Response {
	t.Helper()
	h := map[string]string{"Accept": "application/json, text/event-stream"}
	for k, v := range header {
		h[k] = v
	}
	var body any
	if method == http.MethodPost {
		body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	}
	return s.Do(t, apitest.Request{Method: method, Path: "//mcp", Body: body, Header: h})
}

// TestMCPAuthentication: without a valid key, /mcp answers the guard's 401 envelope before
// anything of MCP; a session cookie is not a credential for it; the SDK's client cannot connect.
func TestMCPAuthentication(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		sess := s.OpenSession(t, w.ann)
		for _, tc := range []struct {
			name    string
			header  map[string]string
			mention string
		}{
			{"no credential", nil, "API keys only"},
			{"a session cookie", apitest.SessionHeader(sess.Token, sess.CSRFToken), "API keys only"},
			{"a garbage key", map[string]string{"Authorization": "Bearer svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB"}, "invalid"},
			{"not a bearer token", map[string]string{"Authorization": "Basic " + w.annRW}, "Bearer"},
			{"a revoked key", map[string]string{"Authorization": "Bearer " + w.annRevoked}, "revoked"},
			{"a rotated key", map[string]string{"Authorization": "Bearer " + w.annRotatedAway}, "revoked"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantErr(t, rawMCP(t, s, http.MethodPost, tc.header), http.StatusUnauthorized, "UNAUTHENTICATED", tc.mention)
			})
		}
		for _, key := range []string{"", "svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB", w.annRevoked} {
			c, err := mcpDial(t, s, key, "")
			if err == nil {
				t.Fatalf("connected with key %q", key)
			}
			if ex := c.rec.exchanges(); len(ex) == 0 || ex[0].status != http.StatusUnauthorized {
				t.Fatalf("key %q: exchanges %v", key, ex)
			}
		}
		// A valid key answers MCP; GET and DELETE are not offered (stateless server).
		r := apitest.Must(t, rawMCP(t, s, http.MethodPost, map[string]string{"Authorization": "Bearer " + w.annRead, "Content-Type": "application/json"}), http.StatusOK)
		if !strings.Contains(string(r.Body), `"get_note"`) || r.Header.Get("X-RateLimit-Remaining") == "" || r.Header.Get("X-Request-Id") == "" {
			t.Fatalf("tools/list: %v %s", r.Header, r.Body)
		}
		// A body over the API's 1 MiB limit is refused whole (the SDK's 413), never read past it.
		big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("x", 1<<20) + `"}}`
		if r := s.Do(t, apitest.Request{Method: http.MethodPost, Path: "//mcp", Body: big, Header: map[string]string{"Authorization": "Bearer " + w.annRead, "Accept": "application/json, text/event-stream"}}); r.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("a 1 MiB body: %d %s", r.Status, r.Body)
		}
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			r := rawMCP(t, s, m, map[string]string{"Authorization": "Bearer " + w.annRW})
			apitest.CheckEnvelope(t, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
			if r.Header.Get("Allow") != "POST" {
				t.Fatalf("%s /mcp: Allow %q", m, r.Header.Get("Allow"))
			}
		}
		// A restricted key whose workspace the user has left is refused as on the API.
		bobTeam := s.NewKey(t, w.bob, 3, apitest.KeyOpts{Workspace: w.team})
		apitest.Must(t, s.Delete(t, w.annRW, "/workspaces/"+w.team+"/members/"+w.bob.ID), http.StatusOK)
		s.Cache.Purge()
		wantErr(t, rawMCP(t, s, http.MethodPost, map[string]string{"Authorization": "Bearer " + bobTeam, "Content-Type": "application/json"}), http.StatusForbidden, "NOT_WORKSPACE_MEMBER")
		apitest.CheckEnvelope(t, s.Get(t, bobTeam, "/notebooks"), http.StatusForbidden, "NOT_WORKSPACE_MEMBER")
	})
}

// TestMCPRateLimitSharedWithAPI: every request to /mcp counts against the user's budget, the
// API's: requests over the API and over MCP, with two keys of the user, draw on one budget, and
// once it is spent both get 429 RATE_LIMIT_EXCEEDED. Failed authentications on /mcp count against
// the client address's budget as on the API.
func TestMCPRateLimitSharedWithAPI(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann := s.NewUser(t, "Ann")
		apiKey, mcpKey := s.NewKey(t, ann, 3), s.NewKey(t, ann, 3)
		checkAccepted(t, s.Get(t, apiKey, "/notebooks"), http.StatusOK, smallLimit-1)
		c := mcpConnect(t, s, mcpKey)
		for i := 0; ; i++ {
			if o := c.call(t, "list_notebooks", map[string]any{}); o.code != "ok" {
				break
			}
			if i == smallLimit {
				t.Fatalf("%d MCP calls after the budget of %d was spent, none refused", i+1, smallLimit)
			}
		}
		var remaining []string
		ex := c.rec.exchanges()
		for _, e := range ex[:len(ex)-1] {
			remaining = append(remaining, e.header.Get("X-RateLimit-Remaining"))
		}
		// The API request took one; MCP the other four (its connection included), in order.
		if !slices.Equal(remaining, []string{"3", "2", "1", "0"}) {
			t.Fatalf("X-RateLimit-Remaining of the MCP requests %v, want [3 2 1 0]", remaining)
		}
		last := ex[len(ex)-1]
		checkLimited(t, apitest.Response{Status: last.status, Header: last.header, Body: last.body})
		checkLimited(t, s.Get(t, apiKey, "/notebooks"))
		// Another user is not affected.
		other := s.NewKey(t, s.NewUser(t, "Bob"), 3)
		if o := mcpConnect(t, s, other).call(t, "list_notebooks", map[string]any{}); o.code != "ok" {
			t.Fatalf("another user: %s", o.code)
		}

		// Failed authentications: the address's budget (3 in this test) is shared with the API.
		for range 2 {
			wantErr(t, rawMCP(t, s, http.MethodPost, map[string]string{"Authorization": "Bearer svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB"}), http.StatusUnauthorized, "UNAUTHENTICATED")
		}
		apitest.CheckEnvelope(t, s.Get(t, "svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB", "/notebooks"), http.StatusUnauthorized, "UNAUTHENTICATED")
		apitest.CheckEnvelope(t, rawMCP(t, s, http.MethodPost, map[string]string{"Authorization": "Bearer svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB"}), http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
	}, apitest.RateLimit(smallLimit), apitest.AuthFailureLimit(3))
}

// TestMCPAuditAttribution: writes made through MCP are in the audit log as the API's are, each
// naming the key that made it, and in the change feed.
func TestMCPAuditAttribution(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		key := s.NewKey(t, w.ann, 3)
		_, name, prefix := auditKeyInfo(t, s, w.ann, key)
		c := mcpConnect(t, s, key)
		note := c.mustCall(t, "create_note", map[string]any{"notebookId": w.teamNB, "content": "from an assistant"})["id"].(string)
		task := c.mustCall(t, "create_task", map[string]any{"notebookId": w.teamNB, "title": "from an assistant"})["id"].(string)
		c.mustCall(t, "update_task", map[string]any{"id": task, "status": "DONE"})
		c.mustCall(t, "propose_note_change", map[string]any{"id": note, "content": "better"})
		c.mustCall(t, "propose_task_change", map[string]any{"id": task, "notes": "better"})
		entries, _ := auditPage(t, s.Get(t, w.annRW, "/audit-log?limit=100"))
		want := map[string]string{"note.create": note, "task.create": task, "task.update": task, "note.suggest": note, "task.suggest": task}
		for _, e := range entries {
			id, ok := want[e["action"].(string)]
			if !ok || e["resourceId"] != id {
				continue
			}
			if e["apiKeyName"] != name || e["apiKeyPrefix"] != prefix {
				t.Errorf("%s: key %v %v, want %q %q", e["action"], e["apiKeyName"], e["apiKeyPrefix"], name, prefix)
			}
			delete(want, e["action"].(string))
		}
		if len(want) != 0 {
			t.Fatalf("no audit entries for %v", want)
		}
		events := apitest.Must(t, s.Get(t, w.annRW, "/events?limit=100"), http.StatusOK).Data(t)
		seen := map[string]bool{}
		for _, e := range events {
			if actor, _ := e["actor"].(map[string]any); actor != nil && actor["apiKeyPrefix"] == prefix {
				seen[e["type"].(string)] = true
			}
		}
		for _, typ := range []string{"note.created", "task.created", "task.updated", "suggestion.created"} {
			if !seen[typ] {
				t.Errorf("no %s event by the MCP key (seen %v)", typ, seen)
			}
		}
	})
}
