// Package app is folio's top floor: the composition root (this file: the platform, every module
// and every front end, in three lists) and the front ends that serve more than one module
// (app/mcp, app/export, app/web). A module's own REST handler stays in its module.
//
// Floors, arrows down only (TestFloors): app -> modules -> platform. A module imports the item
// kernel (Kernel below) and platform; it reaches another domain module only through a port, an
// interface it declares and ports.go binds.
package app

import (
	"context"
	"fmt"

	"go.uber.org/fx"

	"folio/app/export"
	"folio/app/mcp"
	"folio/app/web"
	"folio/app/web/desk"
	"folio/app/web/keys"
	"folio/app/web/review"
	"folio/app/web/signin"
	"folio/modules/accounts"
	"folio/modules/audit"
	"folio/modules/calendar"
	"folio/modules/document"
	"folio/modules/events"
	"folio/modules/focus"
	"folio/modules/imports"
	"folio/modules/items"
	"folio/modules/journal"
	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/search"
	"folio/modules/suggestions"
	"folio/modules/tags"
	"folio/modules/tasks"
	"folio/modules/versions"
	"folio/modules/webhooks"
	"folio/modules/workspaces"
	"folio/platform"
	"folio/platform/background"
)

// Kernel is the item kernel: the modules every domain module may import (items and their flows,
// content's suggestion ports, document (Markdown in, stored form, Markdown out, with the render
// cache), search, the journal of audit entries and events).
var Kernel = fx.Options(
	items.Module,
	journal.Module,
	document.Module,
	search.Module,
)

// Domains is every domain module of folio. Adding a module is one line here.
var Domains = fx.Options(
	accounts.Module,
	workspaces.Module,
	notebooks.Module,
	audit.Module,
	events.Module,
	tags.Module,
	versions.Module,
	notes.Module,
	tasks.Module,
	suggestions.Module,
	webhooks.Module,
	focus.Module,
	calendar.Module,
	imports.Module,
)

// FrontEnds serve several modules at once, on their use cases: the MCP server, the export, the
// web pages (what they share, then one line per job).
var FrontEnds = fx.Options(
	mcp.Module,
	export.Module,
	web.Module,
	signin.Module,
	keys.Module,
	review.Module,
	desk.Module,
)

// Modules is the kernel, every domain module, the ports between them and the front ends.
var Modules = fx.Options(Kernel, Domains, Ports, FrontEnds)

// New builds the application graph. opts are the test seam (fx.Replace(cfg), fx.Populate(&x)) and
// the command's own invokes.
func New(opts ...fx.Option) *fx.App { return build(nil, opts...) }

// build is New with a module placed before the platform: its invokes run before every other
// constructor and invoke, so the hooks they append stop last.
func build(first fx.Option, opts ...fx.Option) *fx.App {
	if first == nil {
		first = fx.Options()
	}
	return fx.New(first, platform.Module, Modules, platform.WithLogger, fx.Options(opts...))
}

// Serve builds the server application: it migrates, then listens until stopped, logging one line
// when it has started and one when it has stopped. Run it with (*fx.App).Run, which stops it on
// SIGINT or SIGTERM and drains in-flight requests.
func Serve(opts ...fx.Option) *fx.App {
	return build(fx.Module("lifecycle", fx.Invoke(platform.LogStop)), append(opts, fx.Invoke(platform.LogStart))...)
}

// Exec runs one operator command (folio migrate, folio user ..., folio key ...): it builds the
// graph without the HTTP server and without housekeeping (background.Quiet: no reminder fires, no
// webhook is delivered, no log line but the command's own), runs the migrations, calls fn with
// what it asked for through fx.Populate targets, and stops.
func Exec(ctx context.Context, fn func(ctx context.Context) error, opts ...fx.Option) error {
	a := New(append(opts, fx.Decorate(background.Quiet), fx.Invoke(func(platform.Migrated) {}))...)
	if err := a.Err(); err != nil {
		return err
	}
	if err := a.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	runErr := fn(ctx)
	if err := a.Stop(context.Background()); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}
