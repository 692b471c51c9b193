package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

// TestInstancesStartTogether starts 5 `folio serve` and 2 `folio migrate` of the real binary at
// once on one empty database, as a deployment does: every server becomes ready, every migrate
// exits 0, and the migrations table lists each step once, as one process alone records them.
// Before migration runs were serialised, most of them failed on PostgreSQL with
// `duplicate key value violates unique constraint "pg_type_typname_nsp_index"`.
func TestInstancesStartTogether(t *testing.T) {
	t.Parallel()
	const servers, migrates = 5, 2
	bin := testenv.FolioBinary(t)

	// What one process alone records, to compare with.
	refPath := filepath.Join(t.TempDir(), "ref.db")
	if _, stderr, err := runFolio(bin, []string{"FOLIO_SQLITE_PATH=" + refPath}, "migrate"); err != nil {
		t.Fatalf("folio migrate: %v: %s", err, stderr)
	}
	want := migrationIDs(t, []string{"FOLIO_SQLITE_PATH=" + refPath})

	apitest.EachDB(t, func(t *testing.T, kind string) {
		var env []string
		if kind == "sqlite" {
			env = []string{"FOLIO_SQLITE_PATH=" + filepath.Join(t.TempDir(), "data", "folio.db")}
		} else {
			env = []string{"FOLIO_DATABASE_URL=" + testenv.EmptyPostgresDB(t)}
		}
		env = append(env, "FOLIO_LOG_LEVEL=warn")

		type proc struct {
			cmd     *exec.Cmd
			url     string
			stderr  apitest.Logs
			done    chan struct{}
			waitErr error
		}
		var procs []*proc
		for i := range servers + migrates {
			p := &proc{done: make(chan struct{})}
			args, penv := []string{"migrate"}, env
			if i < servers {
				addr := testenv.FreeAddr(t)
				p.url = "http://" + addr
				args, penv = []string{"serve"}, append(append([]string(nil), env...), "FOLIO_HTTP_ADDR="+addr)
			}
			p.cmd = exec.Command(bin, args...)
			p.cmd.Env = testenv.FolioEnv(penv)
			p.cmd.Dir = t.TempDir()
			p.cmd.Stderr = &p.stderr
			procs = append(procs, p)
		}
		// Start them all before waiting for any.
		for _, p := range procs {
			testenv.StartProcess(t, p.cmd, p.done, &p.waitErr)
		}
		var wg sync.WaitGroup
		errs := make([]string, len(procs))
		for i, p := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if p.url == "" {
					<-p.done
					if p.waitErr != nil {
						errs[i] = fmt.Sprintf("folio migrate: %v\n%s", p.waitErr, p.stderr.String())
					}
					return
				}
				errs[i] = testenv.WaitReady(p.url, p.done, func() string { return fmt.Sprintf("%v\n%s", p.waitErr, p.stderr.String()) })
			}()
		}
		wg.Wait()
		failed := 0
		for _, e := range errs {
			if e != "" {
				failed++
				t.Error(e)
			}
		}
		if failed > 0 {
			t.Fatalf("%d of %d processes started together failed", failed, len(procs))
		}
		if got := migrationIDs(t, env); got != want {
			t.Fatalf("migrations recorded:\n%s\nwant (one process alone):\n%s", got, want)
		}
	})
}

// migrationIDs lists the migrations table's ids, one a line, in order, through the database the
// env names (read with the test's own connection, not the binary).
func migrationIDs(t *testing.T, env []string) string {
	t.Helper()
	var ids []string
	gdb := openEnvDB(t, env)
	if err := gdb.Table("migrations").Order("id").Pluck("id", &ids).Error; err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		t.Fatal("no migrations recorded")
	}
	return strings.Join(ids, "\n")
}

// openEnvDB opens the database that FOLIO_DATABASE_URL or FOLIO_SQLITE_PATH in env names.
func openEnvDB(t *testing.T, env []string) *gorm.DB {
	t.Helper()
	opts := db.Options{MaxOpenConns: 2, MaxIdleConns: 2}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "FOLIO_DATABASE_URL="); ok {
			opts.URL = v
		}
		if v, ok := strings.CutPrefix(kv, "FOLIO_SQLITE_PATH="); ok {
			opts.SQLitePath = v
		}
	}
	gdb, err := db.Open(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := gdb.DB()
	t.Cleanup(func() { _ = sqlDB.Close() })
	return gdb
}

// TestStopAsSoonAsItAnswers sends SIGTERM to `folio serve` the moment /healthz first answers
// (polled with no pause), 20 times on SQLite: every time the server stops as on any other SIGTERM
// (exit 0, "folio stopped" as its last log line). The server listens in its first start hook and
// the later ones (the start line, the release of start-up memory, background work) run after it;
// a SIGTERM in that window used to kill the process (exit -1: the signal handler was installed
// only once every start hook had returned), which a CI run met in TestConfigurationAtStart.
func TestStopAsSoonAsItAnswers(t *testing.T) {
	t.Parallel()
	bin := testenv.FolioBinary(t)
	sqlite := "FOLIO_SQLITE_PATH=" + filepath.Join(t.TempDir(), "folio.db")
	if _, stderr, err := runFolio(bin, []string{sqlite}, "migrate"); err != nil {
		t.Fatalf("folio migrate: %v: %s", err, stderr)
	}
	for i := range 20 {
		s := startServePolling(t, bin, []string{sqlite}, 0)
		code, _ := s.stop(t)
		lines := strings.Split(strings.TrimSpace(s.stderr()), "\n")
		if code != 0 || !strings.Contains(lines[len(lines)-1], `"msg":"folio stopped"`) {
			t.Fatalf("start %d: exit %d after a SIGTERM as soon as /healthz answered:\n%s", i+1, code, s.stderr())
		}
	}
}
