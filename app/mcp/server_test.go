package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"folio/modules/notes"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// brokenNotes is a notes service that fails as a bug or a database would, never as an API refusal.
type brokenNotes struct {
	Notes  // nil: only Get is called
	panics bool
}

func (b brokenNotes) Get(context.Context, *auth.Principal, string) (notes.View, error) {
	if b.panics {
		panic("boom: secret detail")
	}
	return notes.View{}, errors.New("driver: secret detail")
}

// brokenViewer is the note viewer failing as brokenNotes does.
type brokenViewer struct{ panics bool }

func (b brokenViewer) Get(ctx context.Context, p *auth.Principal, id string) (notes.WithPending, error) {
	_, err := brokenNotes{panics: b.panics}.Get(ctx, p, id)
	return notes.WithPending{}, err
}

// connect serves the read server of tools to an in-memory client, on a context carrying a caller
// as the handler's would, and returns the client session and the caller's logs.
func connect(t *testing.T, ts *tools) (*sdk.ClientSession, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	ctx := withCaller(t.Context(), caller{principal: &auth.Principal{Scope: auth.ScopeRead}, requestID: "req-1", log: zap.New(core)})
	serverEnd, clientEnd := sdk.NewInMemoryTransports()
	ss, err := ts.server(auth.ScopeRead).Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, logs
}

// TestInternalFailures: a service that panics or fails with an error that is not an API refusal
// gives the model INTERNAL_ERROR with the request id, never the cause, logs the cause, and leaves
// the server answering (a panic on the SDK's handler goroutine would otherwise end the process).
// Seen failing (the process died) without recovered.
func TestInternalFailures(t *testing.T) {
	for _, panics := range []bool{true, false} {
		cs, logs := connect(t, &tools{notes: brokenNotes{panics: panics}, viewer: brokenViewer{panics: panics}})
		for range 2 { // the second call proves the server survived the first
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*sdk.TextContent).Text
			if !res.IsError || text != `{"error":{"code":"INTERNAL_ERROR","message":"internal error","requestId":"req-1"}}` {
				t.Fatalf("panics=%v: %v %s", panics, res.IsError, text)
			}
			_, err = cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "folio://notes/x"})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError || werr.Message != "INTERNAL_ERROR: internal error" || strings.Contains(string(werr.Data), "secret") {
				t.Fatalf("panics=%v: resource error %v", panics, err)
			}
			var env httpx.Envelope
			if json.Unmarshal(werr.Data, &env) != nil || env.Error.RequestID != "req-1" {
				t.Fatalf("resource error data %s", werr.Data)
			}
		}
		logged := 0
		for _, e := range logs.All() {
			if strings.Contains(e.Message, "panic") || strings.Contains(e.Message, "failed") {
				logged++
			}
		}
		if logged < 4 {
			t.Fatalf("panics=%v: %d error lines logged, want one per failure (4): %v", panics, logged, logs.All())
		}
	}
}

// TestNoCaller: a handler that finds no authenticated caller on its context (a wiring error)
// refuses with INTERNAL_ERROR rather than acting for nobody.
func TestNoCaller(t *testing.T) {
	serverEnd, clientEnd := sdk.NewInMemoryTransports()
	ss, err := (&tools{notes: brokenNotes{panics: true}, viewer: brokenViewer{panics: true}}).server(auth.ScopeRead).Connect(t.Context(), serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": "x"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, `"INTERNAL_ERROR"`) {
		t.Fatalf("%v %v", res, err)
	}
}
