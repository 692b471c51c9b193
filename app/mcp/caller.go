package mcp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.uber.org/zap"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// caller is who sent the HTTP request a tool runs for: the principal the guard authenticated, the
// request's id (X-Request-Id, which error envelopes carry) and its logger. The handler puts it on
// the request's context; the server is stateless (one ephemeral MCP session per HTTP request, see
// handler.go), so the context of every tool and resource handler is that request's.
type caller struct {
	principal *auth.Principal
	requestID string
	log       *zap.Logger
}

type callerKey struct{}

func withCaller(ctx context.Context, c caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

func callerFrom(ctx context.Context) (caller, bool) {
	c, ok := ctx.Value(callerKey{}).(caller)
	return c, ok && c.principal != nil
}

// errNoCaller is a handler running without the guard's principal: a wiring error, never a
// client's doing.
var errNoCaller = errors.New("mcp: no authenticated caller on the request context")

// refusal turns a service's error into what the API would have answered (httpx.Refusal): the
// *apierr.Error, and its envelope's JSON as the API writes it; a 5xx is logged with the request
// id, its cause never shown.
func (c caller) refusal(err error) (*apierr.Error, []byte) {
	ae, env := httpx.Refusal(err, c.requestID, c.logger)
	body, _ := httpx.Marshal(env) // an envelope is strings only: it always encodes
	return ae, body
}

func (c caller) logger() *zap.Logger {
	if c.log == nil {
		return zap.NewNop()
	}
	return c.log
}

// toolError is a failed tool call as the model sees it: a tool result with isError set whose
// text is the API's error envelope, {"error": {"code", "message", "requestId"}}, exactly what the
// same request would have got from the API.
type toolError struct{ text string }

func (e *toolError) Error() string { return e.text }

func (c caller) toolError(err error) error {
	_, body := c.refusal(err)
	return &toolError{text: string(body)}
}

// resourceError is a failed resource read: resources have no result-level error, so it is a
// JSON-RPC error: invalid params for a refusal (the protocol's "resource not found" code too, since
// SEP-2164), internal error for a 5xx. Its message is "CODE: message" and its data the API's
// envelope.
func (c caller) resourceError(err error) error {
	ae, body := c.refusal(err)
	code := int64(jsonrpc.CodeInvalidParams)
	if ae.Status >= 500 {
		code = jsonrpc.CodeInternalError
	}
	return &jsonrpc.Error{Code: code, Message: ae.Code + ": " + ae.Message, Data: body}
}
