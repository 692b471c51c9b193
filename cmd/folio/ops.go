package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"folio/platform/config"
)

// healthcheck asks the server on FOLIO_HTTP_ADDR whether it is ready (GET /readyz: the process
// answers and so does its database). It is the container image's HEALTHCHECK: the image has no
// shell and no curl, so the binary checks itself.
func healthcheck(ctx context.Context) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	url := "http://" + dialAddr(cfg.HTTPAddr) + "/readyz"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s answered %d", url, resp.StatusCode)
	}
	return nil
}

// dialAddr turns a listen address into one to dial: a listener on every interface (":8080",
// "0.0.0.0:8080", "[::]:8080") is reached through the loopback address.
func dialAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	switch host {
	case "", "0.0.0.0", "::":
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// version is the module version, VCS revision and commit time the Go toolchain stamped into the
// binary ("devel" fields when built outside a checkout or with -buildvcs=false).
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "folio (no build information)"
	}
	v, rev, at, dirty := info.Main.Version, "unknown", "unknown", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (modified)"
			}
		}
	}
	return strings.TrimSpace(fmt.Sprintf("folio %s commit %s%s (%s), %s", v, rev, dirty, at, info.GoVersion))
}
