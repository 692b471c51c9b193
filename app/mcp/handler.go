package mcp

import (
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/fx"

	"folio/platform/auth"
	"folio/platform/httpx"
)

// Path is where the MCP server answers, beside the API (not under /api/v1: it is one JSON-RPC
// endpoint, not a REST resource, and is not in the OpenAPI document).
const Path = "/mcp"

// Handler serves POST /mcp.
type Handler struct {
	guard   *auth.Guard
	origins httpx.CORSOrigins
	// servers holds one MCP server per scope (read, write, read+write), each with exactly the
	// tools that scope may call: a tool a key may not use is not listed for it, and calling it is
	// the protocol's "unknown tool" error. Each is built on its scope's first request: the tools'
	// JSON schemas are about 1.4 MB of long-lived heap over the three, which the collector lets
	// the heap grow twice over, on servers that may never be asked for (docs/performance.md,
	// Memory).
	servers map[int]*lazyServer
	http    *sdk.StreamableHTTPHandler
}

// lazyServer is a scope's server, built on first use.
type lazyServer struct {
	build  func() *sdk.Server
	once   sync.Once
	server *sdk.Server
}

func (l *lazyServer) get() *sdk.Server {
	l.once.Do(func() { l.server = l.build() })
	return l.server
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Guard       *auth.Guard
	Origins     httpx.CORSOrigins
	Notes       Notes
	NoteViewer  NoteViewer
	Tasks       Tasks
	Notebooks   Notebooks
	Suggestions Suggestions
	History     History
	Focus       Focus
}

// NewHandler builds the three servers and the Streamable HTTP handler.
//
// The transport is stateless (StreamableHTTPOptions.Stateless): every POST is a whole exchange
// with a temporary session, the server keeps nothing between requests, and so any instance
// behind a load balancer can answer any request, and each request is authenticated, limited and
// attributed on its own. Nothing folio offers needs a server-to-client request (sampling,
// elicitation) or a standing stream. Answers are application/json rather than an event stream
// (JSONResponse), which proxies and the response compression pass as they are.
func NewHandler(p HandlerParams) *Handler {
	t := &tools{notes: p.Notes, viewer: p.NoteViewer, tasks: p.Tasks, notebooks: p.Notebooks, suggestions: p.Suggestions, history: p.History, focus: p.Focus}
	h := &Handler{guard: p.Guard, origins: p.Origins, servers: map[int]*lazyServer{}}
	for _, scope := range []int{auth.ScopeRead, auth.ScopeWrite, auth.ScopeReadWrite} {
		// Built once here and dropped, so that a tool whose schema cannot be made (the SDK
		// panics) stops start-up rather than a caller's first request.
		t.server(scope)
		h.servers[scope] = &lazyServer{build: func() *sdk.Server { return t.server(scope) }}
	}
	h.http = sdk.NewStreamableHTTPHandler(h.serverFor, &sdk.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// The SDK refuses requests that reach a loopback address with another Host (DNS
		// rebinding, a danger for local servers without authentication). Every request here
		// carries an API key in a header that a rebinding page cannot have, and folio commonly
		// runs behind a reverse proxy on the same host, which sends the public Host.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        httpx.MaxBodyBytes,
	})
	return h
}

// Register implements httpx.Routes: POST /mcp behind the Origin check and the key guard. The engine's middleware runs
// first as for every route (request id, access log, recovery, header and body limits); then the
// guard authenticates the key, counts a failure against the client's address and the request
// against the user's rate limit, the API's budget. GET and DELETE, which a stateless server does
// not offer, are the engine's 405 METHOD_NOT_ALLOWED (Allow: POST) before any authentication.
func (h *Handler) Register(r httpx.Router) {
	r.Public.POST(Path, checkOrigin(h.origins), h.guard.KeyMiddleware(), h.serve)
}

func (h *Handler) serve(c *gin.Context) {
	cl := caller{principal: auth.FromGin(c), requestID: httpx.RequestID(c), log: httpx.Logger(c)}
	h.http.ServeHTTP(c.Writer, c.Request.WithContext(withCaller(c.Request.Context(), cl)))
}

// serverFor is the SDK's getServer: the server of the caller's scope (nil, which the SDK answers
// with 400, cannot happen behind the guard).
func (h *Handler) serverFor(r *http.Request) *sdk.Server {
	cl, ok := callerFrom(r.Context())
	if !ok {
		return nil
	}
	l, ok := h.servers[cl.principal.Scope]
	if !ok {
		return nil
	}
	return l.get()
}
