package mcp

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// instructions tell the model what the server is for and the one rule of its writes.
const instructions = `folio holds a manager's notes and tasks, in notebooks that are personal or belong to a workspace. ` +
	`Notes are Markdown: #tags and @person mentions become the note's tags; a line "> **Why:** text" or "> **Decision:** text" ` +
	`is a callout recording a reason or a decision (a note with a Decision callout has hasDecision true). ` +
	`Use list_notebooks to find notebook ids, search_notes and get_note to read notes, list_tasks to read tasks, ` +
	`get_focus for what needs attention on a day (targeted items, follow-ups, due tasks). ` +
	`You may create notes and tasks and change a task's status, priority and dates, but you never overwrite existing content: ` +
	`to change a note's content or a task's notes, propose the complete new text with propose_note_change or propose_task_change; ` +
	`the owner reviews the proposal and approves or rejects it. ` +
	`A failed call returns folio's error envelope {"error": {"code", "message", "requestId"}}; the code says what went wrong ` +
	`(VALIDATION_ERROR names the argument; NOTE_NOT_FOUND, TASK_NOT_FOUND and NOTEBOOK_NOT_FOUND also mean "not visible to this key").`

// spec is one tool: the scope bit a key needs to see and call it, and how to add it to a server.
type spec struct {
	scope int
	add   func(s *sdk.Server)
}

// tool makes the spec of a typed tool. run gets the principal the guard authenticated for the
// HTTP request; its error, whatever it is, reaches the model as the API's error envelope
// (caller.toolError).
func tool[In, Out any](scope int, t *sdk.Tool, run func(ctx context.Context, p *auth.Principal, in In) (Out, error)) spec {
	if t.OutputSchema == nil {
		t.OutputSchema = outputSchema[Out]()
	}
	return spec{scope: scope, add: func(s *sdk.Server) {
		sdk.AddTool(s, t, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
			var zero Out
			cl, ok := callerFrom(ctx)
			if !ok {
				return nil, zero, cl.toolError(errNoCaller)
			}
			out, err := recovered(cl, func() (Out, error) { return run(ctx, cl.principal, in) })
			if err != nil {
				return nil, zero, cl.toolError(err)
			}
			// The text is the API's body for the same request, byte for byte (httpx.Marshal: the
			// fields in the API's order, <, > and & as they are); the SDK would write it with its
			// own encoder, keys sorted and every ">" of a callout as \u003e. The structured
			// content stays the SDK's, checked against the output schema.
			body, err := httpx.Marshal(out)
			if err != nil {
				return nil, zero, cl.toolError(err)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}, out, nil
		})
	}}
}

// recovered runs fn, turning a panic into INTERNAL_ERROR logged with its stack. The SDK runs each
// request's handler on a goroutine of its own, where the engine's recovery cannot reach: a panic
// there would end the process.
func recovered[T any](cl caller, fn func() (T, error)) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			cl.logger().Error("panic", zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
			err = apierr.ErrInternal.Wrap(fmt.Errorf("panic: %v", r))
		}
	}()
	return fn()
}

// server builds the MCP server for a key of the given scope: the tools whose scope bit it has,
// and the note resources when it may read.
func (t *tools) server(scope int) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "folio", Title: "folio notes and tasks", Version: version()},
		&sdk.ServerOptions{
			Instructions: instructions,
			// Only what folio implements (CONTRACT.md section 25): tools and resources, with no
			// list-changed notifications (a stateless server never sends one) and no logging.
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{}},
			// Results depend on the key (its scope decides the tool list) and notes are private:
			// never "public", the SDK's default, which lets an intermediary share them.
			SetCacheable: func(_ context.Context, _ sdk.Request, c *sdk.Cacheable) { c.CacheScope = "private" },
		})
	p := auth.Principal{Scope: scope}
	for _, sp := range t.specs() {
		if p.Can(sp.scope) {
			sp.add(s)
		}
	}
	if p.Can(auth.ScopeRead) {
		s.AddResourceTemplate(noteTemplate, t.readNote)
	}
	return s
}

// version is folio's module version as the build stamped it, for the server's implementation
// info.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// inputSchema is In's schema as the SDK would infer it (properties from the json tags,
// descriptions from the jsonschema tags, omitempty fields optional), plus what tags cannot say:
// patch adds enums and bounds to the properties.
func inputSchema[In any](patch func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // a programming error in an input type, found by every test that starts the app
	}
	patch(s.Properties)
	portable(s)
	return s
}

// outputSchema is Out's schema as the SDK would infer it, made portable (see portable).
func outputSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(err) // a programming error in an output type, found by every test that starts the app
	}
	portable(s)
	return s
}

// portable rewrites the nullable unions the SDK's inference writes as a type array, which
// clients that map tool schemas onto a one-type dialect (Gemini's function declarations) reject
// or drop (the MCP inspector's --strict check flags each):
//   - a list is never null: Go's nil slices made every one ["null", "array"], but the API always
//     sends [] (the contract suites hold every response to that, and the SDK checks each result
//     against this schema), so it is "array";
//   - what can be null (a date, a cursor, a pending suggestion) becomes
//     {"anyOf": [{"type": "null"}, {"type": X, ...}]}, its description kept on the outside.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	portable(s.Items)
	for _, sub := range s.Properties {
		portable(sub)
	}
	for _, sub := range s.Defs {
		portable(sub)
	}
	if len(s.Types) != 2 || !slices.Contains(s.Types, "null") {
		return
	}
	other := s.Types[0]
	if other == "null" {
		other = s.Types[1]
	}
	if other == "array" {
		s.Types, s.Type = nil, "array"
		return
	}
	branch := *s
	branch.Types, branch.Type, branch.Description = nil, other, ""
	*s = jsonschema.Schema{Description: s.Description, AnyOf: []*jsonschema.Schema{{Type: "null"}, &branch}}
}

// atLeastOne bounds an integer property below by 1.
func atLeastOne(s *jsonschema.Schema) {
	one := 1.0
	s.Minimum = &one
}

// oneOf restricts a string property to values.
func oneOf(s *jsonschema.Schema, values []string) {
	s.Enum = make([]any, len(values))
	for i, v := range values {
		s.Enum[i] = v
	}
}

func boolPtr(b bool) *bool { return &b }
