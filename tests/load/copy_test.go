package load

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/tests/apitest"
	"folio/tests/testenv"
)

// copyScenario is the database `folio copy` is measured on (issue 34: 100,000 notes): the load
// harness's seed at that size (notes with 3 tags each, their search index, notebooks, workspaces
// and members), and what the API's creates would have left beside each note: an audit entry and
// an event carrying the note.
var copyScenario = Scenario{Name: "notes=100k", Total: 100_000, CallerNotes: 10_000, CallerNotebooks: 10, OtherPerNotebook: 200}

// copyLine is the last line `folio copy` prints: the rows copied, the time, the rate.
var copyLine = regexp.MustCompile(`(?m)^(\d+) rows in (\S+) \(([\d.]+) rows/s\)$`)

// BenchmarkCopy copies the 100,000-note database with the real binary, PostgreSQL → SQLite, then
// that SQLite file → a new PostgreSQL database, and reports per direction the command's time
// (migrating the target, copying, comparing every table), the rows copied, rows/s (as the command
// counts them, over the copy without the comparison) and the command's peak resident memory.
//
//	FOLIO_TEST_DATABASE_URL=... go test ./tests/load -run '^$' -bench Copy -benchtime 1x -timeout 60m
func BenchmarkCopy(b *testing.B) {
	s := startServer(b)
	Seed(b, s, copyScenario)
	seedJournal(b, s)
	bin := testenv.FolioBinary(b)
	for range b.N {
		b.StopTimer()
		file := filepath.Join(b.TempDir(), "copy.db")
		for _, step := range []struct{ name, from, to string }{
			{"postgres_to_sqlite", s.Config.DatabaseURL, "sqlite://" + file},
			{"sqlite_to_postgres", "sqlite://" + file, testenv.EmptyPostgresDB(b)},
		} {
			cmd := exec.Command(bin, "copy", "--from", step.from, "--to", step.to)
			cmd.Env = testenv.FolioEnv([]string{"FOLIO_LOG_LEVEL=error"})
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			b.StartTimer()
			took, peak, err := runPeak(cmd)
			b.StopTimer()
			m := copyLine.FindStringSubmatch(out.String())
			if err != nil || m == nil {
				b.Fatalf("folio copy (%s): %v\n%s\n%s", step.name, err, out.String(), errb.String())
			}
			b.Logf("%s:\n%s", step.name, out.String())
			rows, _ := strconv.ParseFloat(m[1], 64)
			rate, _ := strconv.ParseFloat(m[3], 64)
			b.ReportMetric(took.Seconds(), step.name+"_s")
			b.ReportMetric(rows, step.name+"_rows")
			b.ReportMetric(rate, step.name+"_rows/s")
			b.ReportMetric(peak, step.name+"_peak_rss_MiB")
		}
	}
}

// seedJournal adds, for every seeded note, the audit entry and the event its create would have
// written (the event's data about the size of a note's answer), in the feed's order.
func seedJournal(t testing.TB, s *apitest.Server) {
	t.Helper()
	start := time.Now()
	err := s.DB.WithContext(context.Background()).Connection(func(conn *gorm.DB) error {
		for _, stmt := range []string{
			`INSERT INTO audit_entries (action, resource_type, resource_id, actor_user_id, workspace_id, notebook_id, created_at)
				SELECT 'note.create', 'note', n.id, n.created_by_id, nb.workspace_id, n.notebook_id, n.created_at
				FROM notes n JOIN notebooks nb ON nb.id = n.notebook_id ORDER BY n.created_at, n.id`,
			`INSERT INTO events (seq, type, resource_type, resource_id, notebook_id, workspace_id, actor_user_id, data, created_at)
				SELECT row_number() OVER (ORDER BY n.created_at, n.id), 'note.created', 'note', n.id, n.notebook_id, nb.workspace_id, n.created_by_id,
					json_build_object('id', n.id, 'notebookId', n.notebook_id, 'content', n.content::text, 'createdAt', n.created_at)::text, n.created_at
				FROM notes n JOIN notebooks nb ON nb.id = n.notebook_id`,
			"ANALYZE",
		} {
			if err := conn.Exec(stmt).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("seed the journal: %v", err)
	}
	t.Logf("seeded the audit log and the feed in %v", time.Since(start).Round(time.Millisecond))
}
