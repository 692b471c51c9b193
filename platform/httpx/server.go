package httpx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"folio/platform/apierr"
)

// EngineParams are what the engine is built from.
type EngineParams struct {
	fx.In
	Logger   *zap.Logger
	Routes   []Routes          `group:"routes"`
	APIGuard []gin.HandlerFunc `group:"apiGuard"`
	// Gates hold one route's requests after the guard, before APIAfterGuard (AsGate).
	Gates []Gate `group:"gates"`
	// APIAfterGuard run after the guard and the gates, on authenticated requests (the idempotency
	// middleware).
	APIAfterGuard  []gin.HandlerFunc `group:"apiAfterGuard"`
	TrustedProxies TrustedProxies
	CORS           CORSOrigins
	// Observers run first on every request (metrics, tracing): optional, see Observers.
	Observers Observers `optional:"true"`
	// BodyLimits are the routes whose bodies may be larger than MaxBodyBytes (AsBodyLimit).
	BodyLimits []BodyLimit `group:"bodyLimits"`
	// NotFound answer unknown paths and unsupported methods under a front end's prefixes
	// (AsNotFound).
	NotFound []NotFound `group:"notFound"`
}

// NotFound answers the unknown paths under Prefix (a front end's own, "/app/") in place of the
// API's JSON envelope: a browser that follows a stale link or a mistyped address gets a page. It
// also answers a method the path does not take (a form posted to a page that is only read): then
// the status is already 405 (c.Writer.Status()) and the Allow header set. The engine's global
// middleware runs first, as for every route; the handler sets its own headers.
type NotFound struct {
	Prefix  string
	Handler gin.HandlerFunc
}

// AsNotFound annotates a constructor of a []NotFound so that its values join the "notFound" value
// group the engine reads: fx.Provide(httpx.AsNotFound(func(...) []httpx.NotFound { ... })).
func AsNotFound(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(`group:"notFound,flatten"`))
}

// noRoute answers an unknown path (or method): a front end's NotFound when the path is under its
// prefix (the longest that matches), else err with the envelope (404 ROUTE_NOT_FOUND, 405
// METHOD_NOT_ALLOWED).
func noRoute(pages []NotFound, err error) gin.HandlerFunc {
	pages = slices.Clone(pages)
	slices.SortFunc(pages, func(a, b NotFound) int { return len(b.Prefix) - len(a.Prefix) })
	return func(c *gin.Context) {
		for _, nf := range pages {
			if strings.HasPrefix(c.Request.URL.Path, nf.Prefix) {
				nf.Handler(c)
				return
			}
		}
		WriteError(c, err)
	}
}

// Observers are the middleware that watch requests rather than answer them (metrics, tracing),
// in the order given. The engine runs them before all of its own middleware, so what they see
// includes every refusal (431, 401, 429 ...) and the error envelope. One package provides them
// (platform/observability); without it there are none.
type Observers []gin.HandlerFunc

// TrustedProxies are the CIDRs whose X-Forwarded-For is believed when finding a client's address.
type TrustedProxies []string

// NewEngine builds the gin engine: gin.New() (no default middleware), folio's middleware chain,
// every module's routes, and the envelope answers for unknown routes and methods.
func NewEngine(p EngineParams) (*gin.Engine, error) {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	// A trailing slash or a wrong case is another path: answer 404, do not redirect API clients.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.ContextWithFallback = true
	if err := e.SetTrustedProxies(p.TrustedProxies); err != nil {
		return nil, err
	}
	httpLog := p.Logger.Named("http")
	for _, mw := range p.Observers {
		if mw != nil {
			e.Use(mw)
		}
	}
	e.Use(requestIDMiddleware(httpLog), accessLogMiddleware(httpLog), recoveryMiddleware(), envelopeMiddleware())
	// CORS before every check that can refuse, so that a browser can read the refusal (a 431, a
	// 401, a 429 with Retry-After) too.
	if mw := corsMiddleware(p.CORS); mw != nil {
		e.Use(mw)
	}
	e.Use(headerLimitMiddleware(), untrustedProxyWarning(httpLog, p.TrustedProxies), bodyLimitMiddleware(p.BodyLimits))
	seen := map[string]bool{}
	for _, nf := range p.NotFound {
		if seen[nf.Prefix] || nf.Prefix == "" || !strings.HasPrefix(nf.Prefix, "/") {
			return nil, fmt.Errorf("httpx: the not-found prefix %q is empty, relative or given twice", nf.Prefix)
		}
		seen[nf.Prefix] = true
	}
	e.NoRoute(noRoute(p.NotFound, apierr.ErrRouteNotFound))
	e.NoMethod(noRoute(p.NotFound, apierr.ErrMethodNotAllow))

	apiChain := append([]gin.HandlerFunc{}, p.APIGuard...)
	if gate := gateMiddleware(p.Gates); gate != nil {
		apiChain = append(apiChain, gate)
	}
	api := e.Group(APIBase, append(apiChain, p.APIAfterGuard...)...)
	r := Router{Public: NewRouteGroup(&e.RouterGroup), API: NewRouteGroup(api)}
	for _, routes := range p.Routes {
		routes.Register(r)
	}
	return e, nil
}

// Server is the HTTP server. Its listener is opened in the fx start hook, so a bad address fails
// start-up, and it drains in-flight requests in the stop hook.
type Server struct {
	srv      *http.Server
	listener net.Listener
	log      *zap.Logger
	addr     string
	timeout  time.Duration
}

// ServerParams are what the server is built from.
type ServerParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Engine    *gin.Engine
	Logger    *zap.Logger
	Config    ServerConfig
}

// ServerConfig is where the server listens and how long it drains on stop.
type ServerConfig struct {
	Addr            string
	ShutdownTimeout time.Duration
}

// NewServer builds the server and ties it to the fx lifecycle.
func NewServer(p ServerParams) (*Server, error) {
	handler, err := Compress(p.Engine)
	if err != nil {
		return nil, err
	}
	s := &Server{
		srv: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      60 * time.Second,
			IdleTimeout:       120 * time.Second,
			MaxHeaderBytes:    serverMaxHeaderBytes,
		},
		log:     p.Logger.Named("http"),
		addr:    p.Config.Addr,
		timeout: p.Config.ShutdownTimeout,
	}
	p.Lifecycle.Append(fx.Hook{OnStart: s.start, OnStop: s.stop})
	return s, nil
}

func (s *Server) start(context.Context) error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.listener = ln
	s.log.Debug("listening", zap.String("addr", ln.Addr().String()))
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("server stopped", zap.Error(err))
		}
	}()
	return nil
}

func (s *Server) stop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// Addr returns the address the server listens on (useful when configured with port 0).
func (s *Server) Addr() string {
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}

// Pinger is anything that can tell whether the database answers (*sql.DB does).
type Pinger interface {
	PingContext(ctx context.Context) error
}

// Health answers GET /healthz (the process is up) and GET /readyz (the database answers) without
// authentication.
type Health struct{ DB Pinger }

// Register implements Routes.
func (h Health) Register(r Router) {
	r.Public.GET("/healthz", func(c *gin.Context) { JSON(c, http.StatusOK, gin.H{"status": "ok"}) })
	r.Public.GET("/readyz", func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
		defer cancel()
		if err := h.DB.PingContext(ctx); err != nil {
			WriteError(c, apierr.ErrUnavailable.WithMessage("the database does not answer").Wrap(err))
			return
		}
		JSON(c, http.StatusOK, gin.H{"status": "ready"})
	})
}
