package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// runCLI runs folio in-process (commands that need no database or server only).
func runCLI(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	status = run(args, strings.NewReader(""), &out, &errb)
	return status, out.String(), errb.String()
}

// commands lists every command of the CLI as its path of words ("key create").
func commands(t *testing.T) [][]string {
	t.Helper()
	k, err := newParser(&bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	var walk func(n *kong.Node, path []string)
	walk = func(n *kong.Node, path []string) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode {
				continue
			}
			p := append(slices.Clone(path), c.Name)
			out = append(out, p)
			walk(c, p)
		}
	}
	walk(k.Model.Node, nil)
	return out
}

// TestHelpEverywhere: `folio help CMD...` and `folio CMD... --help` print the same help for every
// command (CONTRACT.md section 19) on stdout and exit 0; the help names the command, describes it
// and lists each of its flags with a description. The help of folio itself lists every command.
func TestHelpEverywhere(t *testing.T) {
	all := commands(t)
	for _, want := range []string{"serve", "migrate", "user create", "user set-password", "key create", "key list",
		"key revoke", "key rotate", "webhook list", "webhook delete", "backup", "export", "import", "copy", "healthcheck", "version", "help"} {
		if !slices.ContainsFunc(all, func(p []string) bool { return strings.Join(p, " ") == want }) {
			t.Errorf("no command %q in %v", want, all)
		}
	}
	k, _ := newParser(&bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
	for _, path := range all {
		name := strings.Join(path, " ")
		t.Run(name, func(t *testing.T) {
			status, viaHelp, stderr := runCLI(t, append([]string{"help"}, path...)...)
			if status != 0 || stderr != "" {
				t.Fatalf("folio help %s: status %d, stderr %q", name, status, stderr)
			}
			status, viaFlag, stderr := runCLI(t, append(slices.Clone(path), "--help")...)
			if status != 0 || stderr != "" {
				t.Fatalf("folio %s --help: status %d, stderr %q", name, status, stderr)
			}
			if viaHelp != viaFlag {
				t.Fatalf("folio help %s and folio %s --help differ:\n%s\n---\n%s", name, name, viaHelp, viaFlag)
			}
			if !strings.HasPrefix(viaHelp, "Usage: folio "+name) {
				t.Fatalf("the help of %s does not start with its usage:\n%s", name, viaHelp)
			}
			ctx, err := kong.Trace(k, path)
			if err != nil || ctx.Error != nil {
				t.Fatal(err, ctx.Error)
			}
			node := ctx.Selected()
			if node.Help == "" || !strings.Contains(viaHelp, firstWords(node.Help)) {
				t.Fatalf("the help of %s lacks its description %q:\n%s", name, node.Help, viaHelp)
			}
			for _, f := range node.Flags {
				if f.Help == "" || !strings.Contains(viaHelp, "--"+f.Name) || !strings.Contains(viaHelp, firstWords(f.Help)) {
					t.Fatalf("the help of %s lacks --%s and its description %q:\n%s", name, f.Name, f.Help, viaHelp)
				}
			}
		})
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		status, out, stderr := runCLI(t, args...)
		if status != 0 || stderr != "" {
			t.Fatalf("folio %s: status %d, stderr %q", args[0], status, stderr)
		}
		for _, path := range all {
			if !strings.Contains(out, "  "+strings.Join(path, " ")+" ") {
				t.Errorf("folio %s does not list %q:\n%s", args[0], strings.Join(path, " "), out)
			}
		}
	}
}

// firstWords is the start of a help text (the help printer wraps long ones).
func firstWords(s string) string {
	w := strings.Fields(s)
	return strings.Join(w[:min(3, len(w))], " ")
}

// TestVersion: `folio version` and `folio --version` print the same single line.
func TestVersion(t *testing.T) {
	_, cmd, _ := runCLI(t, "version")
	status, flag, stderr := runCLI(t, "--version")
	if status != 0 || stderr != "" || cmd != flag || !strings.HasPrefix(cmd, "folio ") || strings.Count(cmd, "\n") != 1 || !strings.Contains(cmd, "go1.") {
		t.Fatalf("version %q, --version %q (status %d, stderr %q)", cmd, flag, status, stderr)
	}
}

// TestUsageErrors: a mistake on the command line exits 1 with nothing on stdout and one line on
// stderr that names the problem and where to find help; nothing reaches the database (no
// FOLIO_* variable is needed: the command never starts).
func TestUsageErrors(t *testing.T) {
	key := []string{"key", "create", "--email", "ann@example.com", "--name", "laptop", "--scope", "3"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown command", []string{"frobnicate"}, []string{"unknown command", "frobnicate", `"folio --help"`}},
		{"unknown subcommand", []string{"key", "frob"}, []string{"unknown command", "frob", `"folio key --help"`}},
		{"help on an unknown command", []string{"help", "key", "frob"}, []string{"no such command", "key frob"}},
		{"key without a subcommand", []string{"key"}, []string{`"create"`, `"rotate"`}},
		{"unknown flag", []string{"key", "list", "--email", "a@example.com", "--colour"}, []string{"unknown flag --colour"}},
		{"missing flags", []string{"user", "create", "--email", "a@example.com"}, []string{"--name", `"folio user create --help"`}},
		{"backup without --out", []string{"backup"}, []string{"--out"}},
		{"scope 0", append(key[:6:6], "--scope", "0"), []string{"--scope", `"1","2","3"`}},
		{"scope not a number", append(key[:6:6], "--scope", "rw"), []string{"--scope"}},
		{"expires: a bare number", append(key, "--expires", "90"), []string{"--expires", "not an expiry", "90d"}},
		{"expires: an unknown unit", append(key, "--expires", "2w"), []string{"--expires", "not an expiry"}},
		{"expires: a negative duration", append(key, "--expires=-5d"), []string{"--expires", "not an expiry"}},
		{"expires: zero", append(key, "--expires", "0d"), []string{"--expires", "in the future"}},
		{"expires: a past date", append(key, "--expires", "2020-01-01"), []string{"--expires", "in the future"}},
		{"expires: not a date", append(key, "--expires", "2030-02-30"), []string{"--expires", "YYYY-MM-DD"}},
		{"expires: too far", append(key, "--expires", "36501d"), []string{"--expires", "100 years"}},
		{"expires without a value", append(key, "--expires"), []string{"--expires"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, stdout, stderr := runCLI(t, tc.args...)
			if status != 1 || stdout != "" {
				t.Fatalf("folio %s: status %d, stdout %q; want 1 and nothing", strings.Join(tc.args, " "), status, stdout)
			}
			if !strings.HasPrefix(stderr, "folio: ") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("stderr %q: want one line starting with folio:", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
		})
	}
}

// TestSingleDashFlags: Go's flag package, which folio used before kong, also took "-email E" and
// "-email=E"; those forms still parse, and a value that starts with a dash is left alone.
func TestSingleDashFlags(t *testing.T) {
	k, err := newParser(&bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"key create -email a@example.com -name=laptop -scope 3", "key create --email a@example.com --name=laptop --scope 3"},
		{"user create --email a@example.com --name -scope", "user create --email a@example.com --name -scope"},
		{"user create -name -email -email e", "user create --name -email --email e"},
		{"key list -json -email e", "key list --json --email e"},
		{"-version", "--version"},
		{"-h", "-h"},
		{"backup -x", "backup -x"},
		{"key create -- -email", "key create -- -email"},
	} {
		if got := strings.Join(singleDashFlags(k, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("%q → %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCompletion: with COMP_LINE set (bash's `complete -C folio folio`), folio prints the
// candidates for the last word and exits 0 without running anything.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"folio ke", []string{"key"}},
		{"folio key ", []string{"create", "list", "revoke", "rotate"}},
		{"folio key create --ex", []string{"--expires"}},
		{"folio user set", []string{"set-password"}},
	} {
		t.Setenv("COMP_LINE", tc.line)
		t.Setenv("COMP_POINT", "")
		status, stdout, _ := runCLI(t, "ignored")
		got := strings.Fields(stdout)
		slices.Sort(got)
		if status != 0 || !slices.Equal(got, tc.want) {
			t.Errorf("completing %q: status %d, %q; want %q", tc.line, status, got, tc.want)
		}
	}
}
