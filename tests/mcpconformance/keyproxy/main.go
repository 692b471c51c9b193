// Command keyproxy is a loopback reverse proxy that adds an API key to every request it passes
// on: it lets a client that cannot send headers (the MCP conformance suite, some inspectors) talk
// to folio's /mcp, which takes a key in Authorization. It is part of the conformance check
// (tests/mcpconformance/run.sh) and documented in docs/mcp.md for anyone who wants to do the same.
//
//	FOLIO_KEY=... go run ./tests/mcpconformance/keyproxy -listen 127.0.0.1:8931 -to http://127.0.0.1:8080
//
// The key comes from the environment, never the command line (which other users of the machine
// can read). The proxy listens on loopback only (whoever connects gets the key's rights) and passes
// every other header unchanged, Host and Origin included, so that folio's Origin check sees what
// the client sent (the conformance suite's DNS rebinding scenario sends a foreign Host and Origin).
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8931", "loopback address to listen on (host:port; port 0 picks one and prints it)")
	to := flag.String("to", "http://127.0.0.1:8080", "folio's base URL")
	flag.Parse()
	if err := run(*listen, *to); err != nil {
		fmt.Fprintln(os.Stderr, "keyproxy:", err)
		os.Exit(1)
	}
}

func run(listen, to string) error {
	key := os.Getenv("FOLIO_KEY")
	if key == "" {
		return errors.New("FOLIO_KEY is not set: the API key to add to every request")
	}
	upstream, err := url.Parse(to)
	if err != nil || upstream.Host == "" {
		return fmt.Errorf("-to %q is not a URL", to)
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-listen %q: only a loopback address (the proxy hands out the key to whoever connects)", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Printf("keyproxy: http://%s -> %s\n", ln.Addr(), upstream)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+key)
		},
		ErrorLog: log.New(os.Stderr, "keyproxy: ", 0),
	}
	return http.Serve(ln, proxy)
}
