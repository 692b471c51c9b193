package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/app"
	"folio/platform/buildinfo"
	"folio/platform/httpx"
)

// serveCmd is `folio serve`, also what `folio` alone runs.
type serveCmd struct{}

// Run starts the API and blocks until SIGINT or SIGTERM (fx's Run exits the process on failure).
func (serveCmd) Run(e *runEnv) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	setMemoryLimit(cfg.MemoryLimitMB, os.Getenv)
	return runServer(app.Serve(fx.Replace(cfg), fx.Invoke(releaseStartMemory)))
}

// releaseStartMemory returns to the operating system, once the server listens, the heap that
// start-up used and dropped (the migrations, the dependency graph, the templates and tool schemas
// built once to check them): one forced collection. Without it those pages stay resident until
// the runtime's background scavenger gets to them. Then, on Linux, it drops the executable's
// pages that start-up mapped (releaseBinaryPages): serving maps again those it runs. Both run in
// a goroutine of their own, as the server already serves. See
// docs/performance.md, Memory. Depending on the server puts this start hook after the server's.
func releaseStartMemory(lc fx.Lifecycle, _ *httpx.Server) {
	lc.Append(fx.StartHook(func() {
		// In its own goroutine: the release may write a fresh binary back first, and fx's start
		// timeout (and a SIGTERM, held until the start is done) should not wait for a disk.
		go func() {
			debug.FreeOSMemory()
			releaseBinaryPages()
		}()
	}))
}

// runServer is (*fx.App).Run returning its error instead of exiting: start (within fx's start
// timeout), wait for SIGINT or SIGTERM, stop (draining in-flight requests). The signal handler is
// installed before the start: the server listens in its first start hook, and a SIGTERM before
// the last one returns (fx's Run installs it only then) would otherwise kill the process instead
// of stopping it; such a signal now stops the server once its start has finished
// (TestStopAsSoonAsItAnswers).
func runServer(a *fx.App) error {
	if err := a.Err(); err != nil {
		return err
	}
	signalled := a.Wait()
	startCtx, cancel := context.WithTimeout(context.Background(), a.StartTimeout())
	defer cancel()
	if err := a.Start(startCtx); err != nil {
		return err
	}
	<-signalled
	stopCtx, cancel := context.WithTimeout(context.Background(), a.StopTimeout())
	defer cancel()
	return a.Stop(stopCtx)
}

// migrateCmd is `folio migrate`.
type migrateCmd struct{}

// Run applies the migrations (app.Exec runs them before calling back) and exits.
func (migrateCmd) Run(e *runEnv) error {
	return e.exec(func(context.Context) error { return nil })
}

// versionCmd is `folio version` (--version prints the same line).
type versionCmd struct{}

// Run prints the version line.
func (versionCmd) Run(e *runEnv) error {
	_, err := fmt.Fprintln(e.stdout, buildinfo.Read())
	return err
}

// healthcheckCmd asks the server on FOLIO_HTTP_ADDR whether it is ready (GET /readyz: the process
// answers and so does its database). It is the container image's HEALTHCHECK: the image has no
// shell and no curl, so the binary checks itself.
type healthcheckCmd struct{}

// Run exits 0 when /readyz answers 200.
func (healthcheckCmd) Run(e *runEnv) error {
	ctx := e.ctx
	cfg, err := e.config()
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

// backupCmd writes a consistent copy of the SQLite database to --out while the server may be
// running: VACUUM INTO reads inside one transaction, so the copy is a snapshot, and it is
// compacted. It refuses to overwrite a file. On PostgreSQL the database's own tool does this
// better (pg_dump: consistent, restorable into another version), so backup says so and fails.
type backupCmd struct {
	Out string `required:"" placeholder:"FILE" predictor:"file" help:"The file to write the copy to; it must not exist. Its absolute path is printed."`
}

// Run writes the copy and prints its path.
func (c *backupCmd) Run(e *runEnv) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	if cfg.Postgres() {
		return errors.New("backup copies the embedded SQLite database only; for PostgreSQL use pg_dump (see README, Deploy: backups)")
	}
	if _, err := os.Stat(c.Out); err == nil {
		return fmt.Errorf("backup: %s exists; choose a new file", c.Out)
	}
	abs, err := filepath.Abs(c.Out)
	if err != nil {
		return err
	}
	var gdb *gorm.DB
	err = e.exec(func(ctx context.Context) error {
		return gdb.WithContext(ctx).Exec("VACUUM INTO ?", abs).Error
	}, fx.Populate(&gdb))
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintln(e.stdout, abs)
	return nil
}
