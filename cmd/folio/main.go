// Command folio is the folio service and its operator commands (CONTRACT.md sections 9 and 19):
//
//	folio [serve]                      start the API (the default)
//	folio migrate                      apply the database migrations and exit
//	folio user create --email E --name N [--password P]
//	folio user set-password --email E  (the password on stdin; ends the user's sessions)
//	folio key create --email E --name N --scope 1|2|3 [--workspace ID] [--notebook ID] [--expires 90d]
//	folio key list --email E [--json]
//	folio key revoke --prefix P
//	folio key rotate --prefix P
//	folio webhook list --email E [--json]   the account's webhooks: owning key, status, last attempt
//	folio webhook delete --id ID       delete any account's webhook
//	folio backup --out FILE            SQLite: a consistent copy while the server runs (VACUUM INTO)
//	folio export --email E --out FILE  an account's notes and tasks as Markdown in a ZIP
//	folio import --email E [--notebook ID] FILE.zip   a ZIP of Markdown into an account (as POST /import)
//	folio copy --from URL --to URL     a whole database into an empty one (SQLite or PostgreSQL, either way)
//	folio healthcheck                  exit 0 when the server on FOLIO_HTTP_ADDR is ready, else 1
//	folio version                      version, commit and build time (also --version)
//	folio help [command]               help on folio or a command (also --help after any command)
//
// The command line is parsed by kong (github.com/alecthomas/kong) from the cli struct below: each
// command is a struct whose fields are its flags and whose Run method does the work. Adding a
// command is one struct with a Run(*runEnv) error method and one field in cli (or in the struct of
// its parent command, like userCmd).
//
// Configuration comes from FOLIO_* environment variables only (see README.md). Logs go to stderr;
// stdout carries only a command's result, so scripts can capture it. Every failure exits 1 with
// one "folio: ..." line on stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/posener/complete"
	"github.com/willabides/kongplete"
	"go.uber.org/dig"
	"go.uber.org/fx"

	"folio/app"
	"folio/platform/apierr"
	"folio/platform/buildinfo"
	"folio/platform/config"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli is folio's command line. The order of the fields is the order of `folio help`.
type cli struct {
	Version kong.VersionFlag `help:"Print the version, commit and build time, and exit."`

	Serve       serveCmd       `cmd:"" default:"1" help:"Start the API on FOLIO_HTTP_ADDR (the default command); migrations run first."`
	Migrate     migrateCmd     `cmd:"" help:"Apply the database migrations and exit."`
	User        userCmd        `cmd:"" help:"Create accounts and set their passwords."`
	Key         keyCmd         `cmd:"" help:"Create, list, revoke and rotate API keys."`
	Webhook     webhookCmd     `cmd:"" help:"List an account's webhooks (which key owns each, status, last delivery) and delete them."`
	Backup      backupCmd      `cmd:"" help:"Write a consistent copy of the SQLite database (PostgreSQL: use pg_dump)."`
	Export      exportCmd      `cmd:"" help:"Write an account's notebooks, notes and tasks as Markdown files in a ZIP (as GET /export)."`
	Import      importCmd      `cmd:"" help:"Read a ZIP of Markdown (a folio export, other tools' folders) into an account (as POST /import)."`
	Copy        copyCmd        `cmd:"" help:"Copy a whole folio database into an empty one, SQLite or PostgreSQL either way, and compare every table."`
	Healthcheck healthcheckCmd `cmd:"" help:"Exit 0 when the server on FOLIO_HTTP_ADDR is ready (GET /readyz), else 1."`
	VersionCmd  versionCmd     `cmd:"" name:"version" help:"Print the version, commit and build time."`
	Help        helpCmd        `cmd:"" help:"Show help on folio or on a command (folio help key create)."`
}

// runEnv is what every command's Run gets: the process's context and streams, and the
// configuration, read on first use.
type runEnv struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer // a long command's progress
	cfg    *config.Config
}

// config reads and checks the FOLIO_* configuration once, before any dependency graph is built:
// a bad value is the command's one-line error (variable, value, what is allowed), not a graph
// failure.
func (e *runEnv) config() (config.Config, error) {
	if e.cfg == nil {
		cfg, err := config.FromEnv()
		if err != nil {
			return config.Config{}, err
		}
		e.cfg = &cfg
	}
	return *e.cfg, nil
}

// exec runs fn in app.Exec (the graph without the HTTP server, migrated) with the configuration
// read by config.
func (e *runEnv) exec(fn func(ctx context.Context) error, opts ...fx.Option) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	return app.Exec(e.ctx, fn, append(opts, fx.Replace(cfg))...)
}

const description = `folio: a notes and tasks service with a JSON API.

Configuration comes from FOLIO_* environment variables (see README.md). Logs go to stderr; stdout
carries only a command's result. Run "folio help COMMAND" or "folio COMMAND --help" for a
command's flags.`

// exitCode is what kong's Exit panics with in run, so that --help and --version end run (and a
// test calling run) instead of the process.
type exitCode int

// newParser builds the kong parser writing to stdout and stderr; exit is called after --help and
// --version.
func newParser(stdout, stderr io.Writer, exit func(int)) (*kong.Kong, error) {
	return kong.New(&cli{},
		kong.Name("folio"),
		kong.Description(description),
		kong.Writers(stdout, stderr),
		kong.Exit(exit),
		kong.Vars{"version": buildinfo.Read().String()},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
}

// run runs folio with args and returns the exit status: 0, or 1 after printing one "folio: ..."
// line on stderr (a usage mistake's names the help to read).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	parser, err := newParser(stdout, stderr, func(code int) { panic(exitCode(code)) })
	if err != nil {
		fmt.Fprintln(stderr, "folio:", err)
		return 1
	}
	defer func() {
		if r := recover(); r != nil {
			code, ok := r.(exitCode)
			if !ok {
				panic(r)
			}
			status = int(code)
		}
	}()
	// Shell completion: when the shell asks (COMP_LINE is set, see README), answer and exit.
	kongplete.Complete(parser, kongplete.WithPredictor("file", complete.PredictFiles("*")))

	kctx, err := parser.Parse(singleDashFlags(parser, args))
	if err != nil {
		msg := strings.Replace(err.Error(), "unexpected argument", "unknown command or argument", 1)
		fmt.Fprintf(stderr, "folio: %s (see \"%s --help\")\n", msg, commandPath(err))
		return 1
	}
	if err := kctx.Run(&runEnv{ctx: context.Background(), stdin: stdin, stdout: stdout, stderr: stderr}); err != nil {
		fmt.Fprintln(stderr, "folio:", oneLine(err))
		return 1
	}
	return 0
}

// oneLine is what a failed command prints: an API error's message, or the root cause of a
// dependency-graph error (which constructor failed is for debugging, at FOLIO_LOG_LEVEL=debug),
// on one line (pgx lists every address it tried on lines of their own).
func oneLine(err error) string {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return strings.Join(strings.Fields(dig.RootCause(err).Error()), " ")
}

// commandPath is the command a parse error happened in ("folio key create"), or "folio".
func commandPath(err error) string {
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if n := pe.Context.Selected(); n != nil {
			return n.FullPath()
		}
	}
	return "folio"
}

// singleDashFlags rewrites "-email" and "-email=E" to "--email" and "--email=E" for every long
// flag folio has: before kong, folio parsed its flags with Go's flag package, which takes both
// forms, and scripts written then keep working. A token that is the value of the flag before it
// is left alone, and so is everything after "--".
func singleDashFlags(k *kong.Kong, args []string) []string {
	takesValue := map[string]bool{} // long flag name → whether it takes a value
	_ = kong.Visit(k.Model, func(n kong.Visitable, next kong.Next) error {
		if f, ok := n.(*kong.Flag); ok {
			takesValue[f.Name] = !f.IsBool() && !f.IsCounter()
		}
		return next(nil)
	})
	out := make([]string, 0, len(args))
	valueNext := false
	for i, a := range args {
		if valueNext {
			out, valueNext = append(out, a), false
			continue
		}
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, long := strings.CutPrefix(a, "--")
		if !long && strings.HasPrefix(a, "-") && len(a) > 2 {
			if n, _, _ := strings.Cut(a[1:], "="); isFlag(takesValue, n) {
				a, name, long = "-"+a, a[1:], true
			}
		}
		if long {
			n, _, withValue := strings.Cut(name, "=")
			valueNext = takesValue[n] && !withValue
		}
		out = append(out, a)
	}
	return out
}

func isFlag(flags map[string]bool, name string) bool {
	_, ok := flags[name]
	return ok
}

// helpCmd is `folio help [command...]`: the help of the command, as --help shows it.
type helpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to explain, such as: key create."`
}

// Run prints the help of the command named (of folio itself with none).
func (h *helpCmd) Run(k *kong.Context) error {
	args := h.Command
	if len(args) == 0 {
		args = []string{"--help"} // folio's own help, not the default command's
	}
	ctx, err := kong.Trace(k.Kong, args)
	if err != nil {
		return err
	}
	if ctx.Error != nil {
		return fmt.Errorf("no such command: folio %s (see \"folio --help\")", strings.Join(h.Command, " "))
	}
	return ctx.PrintUsage(false)
}
