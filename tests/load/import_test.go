package load

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/platform/httpx"
	"folio/tests/testenv"
)

// importNotes is how many notes the import benchmark's ZIP holds (issue 34: a 5,000-note ZIP).
const importNotes = 5000

// vaultZip is a ZIP of n Markdown notes as another tool exports them: 10 folders, YAML front matter
// with two tags and a date, about 700 bytes of Markdown each (seedMarkdown, numbered), an image in
// one note of 10 (which the import turns into a link), and one image file.
func vaultZip(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	write := func(name string, body []byte) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		var md strings.Builder
		fmt.Fprintf(&md, "---\ntags: [%s, %s]\ncreated: 2025-%02d-%02dT09:%02d:00Z\n---\n", tagNames[i%len(tagNames)], tagNames[(i*7+3)%len(tagNames)], 1+i%12, 1+i%28, i%60)
		fmt.Fprintf(&md, "# Note %d\n\n%s\n", i, seedMarkdown)
		if i%10 == 0 {
			md.WriteString("\n![whiteboard](img/board.png)\n")
		}
		write(fmt.Sprintf("Vault/Area %d/Note %04d.md", i%10, i), []byte(md.String()))
	}
	write("Vault/img/board.png", append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7, 1, 3}, 300)...))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkImport imports a ZIP of 5,000 notes (vaultZip) into a fresh database, on each database:
//   - server: POST /import to the real binary serving as a child process (the in-process server
//     only migrates the database and makes the key): the request's time, and the child's
//     resident memory before the request and at its peak (VmHWM: the highest since it started);
//   - cli: `folio import` on SQLite: the command's time and its peak resident memory (getrusage).
//
// Each iteration starts from an empty database; run one:
//
//	FOLIO_TEST_DATABASE_URL=... go test ./tests/load -run '^$' -bench Import -benchtime 1x -timeout 30m
func BenchmarkImport(b *testing.B) {
	body := vaultZip(b, importNotes)
	b.Logf("the ZIP: %d notes, %.1f MB", importNotes, float64(len(body))/1e6)
	bin := testenv.FolioBinary(b)
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run("server/db="+kind, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				s := startServerOn(b, kind)
				key := s.NewKey(b, s.NewUser(b, "Importer"), 3)
				ch := serveChild(b, bin, s.Config)
				before := ch.statusMiB(b, "VmRSS")
				req, err := http.NewRequest(http.MethodPost, ch.url+httpx.APIBase+"/import", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/zip")
				b.StartTimer()
				start := time.Now()
				resp, err := (&http.Client{Timeout: 10 * time.Minute}).Do(req)
				if err != nil {
					b.Fatalf("POST /import: %v\n%s", err, ch.stderr.String())
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				took := time.Since(start)
				b.StopTimer()
				checkImported(b, resp.StatusCode, raw)
				b.ReportMetric(took.Seconds(), "s/import")
				b.ReportMetric(importNotes/took.Seconds(), "notes/s")
				b.ReportMetric(before, "rss_before_MiB")
				b.ReportMetric(ch.statusMiB(b, "VmHWM"), "peak_rss_MiB")
			}
		})
	}
	b.Run("cli/db=sqlite", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			s := startServerOn(b, "sqlite")
			s.NewUser(b, "Importer")
			var email string
			if err := s.DB.Raw("SELECT email FROM users").Scan(&email).Error; err != nil {
				b.Fatal(err)
			}
			file := filepath.Join(b.TempDir(), "vault.zip")
			if err := os.WriteFile(file, body, 0o600); err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(bin, "import", "--email", email, file)
			cmd.Env = testenv.FolioEnv([]string{"FOLIO_SQLITE_PATH=" + s.Config.SQLitePath, "FOLIO_LOG_LEVEL=error"})
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			b.StartTimer()
			took, peak, err := runPeak(cmd)
			b.StopTimer()
			if err != nil {
				b.Fatalf("folio import: %v\n%s", err, errb.String())
			}
			checkImported(b, http.StatusCreated, out.Bytes())
			b.ReportMetric(took.Seconds(), "s/import")
			b.ReportMetric(importNotes/took.Seconds(), "notes/s")
			b.ReportMetric(peak, "peak_rss_MiB")
		}
	})
}

// checkImported fails unless an import answered 201 with every note created.
func checkImported(t testing.TB, status int, raw []byte) {
	t.Helper()
	var answer struct{ Created struct{ Notes int } }
	if status != http.StatusCreated || json.Unmarshal(raw, &answer) != nil || answer.Created.Notes != importNotes {
		t.Fatalf("import: %d %.300s", status, raw)
	}
}

// runPeak runs cmd and returns how long it took and its peak resident memory in MiB: its VmHWM,
// read every 20 ms while it runs (the last read is within 20 ms of its end). getrusage's
// ru_maxrss would count this process's memory: a child made by clone(CLONE_VM) and exec keeps
// the high-water mark of the memory it shared with its parent before the exec.
func runPeak(cmd *exec.Cmd) (time.Duration, float64, error) {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := strconv.Itoa(cmd.Process.Pid)
	var peak float64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return time.Since(start), peak, err
		case <-tick.C:
			if v, err := procStatusMiB(pid, "VmHWM"); err == nil && v > peak {
				peak = v
			}
		}
	}
}
