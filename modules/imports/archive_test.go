package imports

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"folio/platform/apierr"
)

// zipEntry is one entry of a test archive: its header fields and content.
type zipEntry struct {
	name   string
	body   []byte
	mode   fs.FileMode // 0: a regular file
	stored bool        // no compression
}

// makeZip writes the entries as a ZIP.
func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.stored {
			h.Method = zip.Store
		}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hostileArchives are the archives an import refuses whole, one per kind (CONTRACT.md section
// 24), with a word the refusal must say. The e2e suite sends each over HTTP.
func hostileArchives(t testing.TB) map[string]struct {
	zip  []byte
	says string
} {
	md := []byte("# fine\n")
	many := make([]zipEntry, MaxEntries+1)
	for i := range many {
		many[i] = zipEntry{name: "n/" + strconv.Itoa(i) + ".md", body: md}
	}
	inner := makeZip(t, zipEntry{name: "a.md", body: md})
	// Each under the entry's floor, together far over the archive's.
	smallBombs := make([]zipEntry, 100)
	for i := range smallBombs {
		smallBombs[i] = zipEntry{name: "b/" + strconv.Itoa(i) + ".md", body: bytes.Repeat([]byte{'a'}, 60<<10)}
	}
	return map[string]struct {
		zip  []byte
		says string
	}{
		"zip-slip":          {makeZip(t, zipEntry{name: "ok.md", body: md}, zipEntry{name: "notes/../../evil.md", body: md}), "zip-slip"},
		"absolute path":     {makeZip(t, zipEntry{name: "/etc/evil.md", body: md}), "absolute"},
		"backslash":         {makeZip(t, zipEntry{name: `..\evil.md`, body: md}), "backslash"},
		"symlink":           {makeZip(t, zipEntry{name: "link.md", body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}), "symbolic link"},
		"nested zip":        {makeZip(t, zipEntry{name: "more.zip", body: inner, stored: true}), "archive"},
		"zip in disguise":   {makeZip(t, zipEntry{name: "note.md", body: inner, stored: true}), "archive"},
		"gzip in disguise":  {makeZip(t, zipEntry{name: "note.md", body: []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0}}), "archive"},
		"too many entries":  {makeZip(t, many...), "10000"},
		"compression ratio": {makeZip(t, zipEntry{name: "bomb.md", body: bytes.Repeat([]byte{' '}, 4<<20)}), "100 times"},
		"many small bombs":  {makeZip(t, smallBombs...), "100 times"},
	}
}

// TestHostileArchivesRefused: each kind of hostile archive is a 400 VALIDATION_ERROR that names
// what is wrong, from the archive's directory and first bytes (openArchive reads nothing else).
func TestHostileArchivesRefused(t *testing.T) {
	for name, h := range hostileArchives(t) {
		t.Run(name, func(t *testing.T) {
			_, err := openArchive(bytes.NewReader(h.zip), int64(len(h.zip)))
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Code != apierr.CodeValidation || !strings.Contains(ae.Message, h.says) {
				t.Fatalf("got %v, want a VALIDATION_ERROR saying %q", err, h.says)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		ok := makeZip(t, zipEntry{name: "a.md", body: []byte("a")})
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
	entries := []zipEntry{
		{name: "Vault/rule.md", body: []byte("| a | b |\n|" + strings.Repeat("-", 20000) + "|" + strings.Repeat("-", 20000) + "|\n")},
		{name: "Vault/", mode: fs.ModeDir | 0o755},
		{name: "Vault/a.md", body: []byte(strings.Repeat("Some prose that repeats itself. ", 300))}, // 10 KB, ratio over 100
		{name: "Vault/sub/b.md", body: []byte("# b"), stored: true},
		{name: "Vault/img/p.png", body: png},
	}
	for len(entries) < MaxEntries {
		entries = append(entries, zipEntry{name: "Vault/many/" + strconv.Itoa(len(entries)) + ".md", body: []byte("x")})
	}
	z := makeZip(t, entries...)
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
