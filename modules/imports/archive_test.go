package imports

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/tests/ziptest"
)

// TestHostileArchivesRefused: each kind of hostile archive is a 400 VALIDATION_ERROR that names
// what is wrong, from the archive's directory and first bytes (openArchive reads nothing else).
func TestHostileArchivesRefused(t *testing.T) {
	for name, h := range ziptest.HostileZips(t) {
		t.Run(name, func(t *testing.T) {
			_, err := openArchive(bytes.NewReader(h.Zip), int64(len(h.Zip)))
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Code != apierr.CodeValidation || !strings.Contains(ae.Message, h.Says) {
				t.Fatalf("got %v, want a VALIDATION_ERROR saying %q", err, h.Says)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		ok := ziptest.Zip(t, ziptest.Entry{Name: "a.md", Body: []byte("a")})
		if _, err := openArchive(bytes.NewReader(ok), MaxBytes+1); !errors.Is(err, errTooLarge) {
			t.Fatalf("a body of %d bytes: %v", MaxBytes+1, err)
		}
	})
	t.Run("not a zip", func(t *testing.T) {
		if _, err := openArchive(strings.NewReader("# just Markdown"), 15); !errors.Is(err, errNotZip) {
			t.Fatalf("not a ZIP: %v", err)
		}
	})
}

// TestFriendlyArchiveAccepted: what real exports hold passes: folders, nested folders, images,
// a text file compressed well under the ratio, a stored file, exactly the entry limit.
func TestFriendlyArchiveAccepted(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1, 2, 3}, 100)...)
	// Repeated characters compress over 100 times: harmless in a short note.
	entries := []ziptest.Entry{
		{Name: "Vault/rule.md", Body: []byte("| a | b |\n|" + strings.Repeat("-", 20000) + "|" + strings.Repeat("-", 20000) + "|\n")},
		{Name: "Vault/", Mode: fs.ModeDir | 0o755},
		{Name: "Vault/a.md", Body: []byte(strings.Repeat("Some prose that repeats itself. ", 300))}, // 10 KB, ratio over 100
		{Name: "Vault/sub/b.md", Body: []byte("# b"), Stored: true},
		{Name: "Vault/img/p.png", Body: png},
		// An Office document is a ZIP: an attachment, skipped when read, not a nested archive.
		{Name: "Vault/attachments/report.docx", Body: ziptest.Zip(t, ziptest.Entry{Name: "word/document.xml", Body: []byte("<w/>")}), Stored: true},
	}
	for len(entries) < MaxEntries {
		entries = append(entries, ziptest.Entry{Name: "Vault/many/" + strconv.Itoa(len(entries)) + ".md", Body: []byte("x")})
	}
	z := ziptest.Zip(t, entries...)
	a, err := openArchive(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.files) != MaxEntries-1 { // the folder's entry is not a file
		t.Fatalf("%d files", len(a.files))
	}
}

// TestOverRatio: the ratio is exact at the limit, and an entry of bytes from nothing is over.
func TestOverRatio(t *testing.T) {
	for _, c := range []struct {
		u, c uint64
		over bool
	}{{100, 1, false}, {101, 1, true}, {1000, 10, false}, {1001, 10, true}, {0, 0, false}, {5, 0, true}, {10, 20, false}} {
		if got := overRatio(c.u, c.c); got != c.over {
			t.Errorf("overRatio(%d, %d) = %v", c.u, c.c, got)
		}
	}
}

// TestLyingEntryRefusesTheImport: a Markdown file that reads otherwise than its header says,
// should one reach the import past openArchive (which reads such files whole first), refuses the
// import, so that its transaction rolls back; it is not skipped while the rest is written.
func TestLyingEntryRefusesTheImport(t *testing.T) {
	lie := ziptest.Zip(t, ziptest.Entry{Name: "a.md", Body: []byte("# fine")},
		ziptest.Entry{Name: "lie.md", Body: bytes.Repeat([]byte("# a note that lies\n"), 1000), DeclaredSize: 500})
	zr, err := zip.NewReader(bytes.NewReader(lie), int64(len(lie)))
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	svc := NewService(ServiceParams{
		CreateNotebook: func(context.Context, *auth.Principal, string, string) (string, string, error) { return "nb", "", nil },
		CreateNote:     func(context.Context, *auth.Principal, Note) error { created++; return nil },
	})
	r := &run{svc: svc, p: &auth.Principal{}, archive: &archive{files: zr.File}}
	err = r.all(context.Background())
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.CodeValidation || !strings.Contains(ae.Message, "larger than its header says") {
		t.Fatalf("got %v (created %d, skipped %v), want a VALIDATION_ERROR", err, created, r.result.Skipped)
	}
}
