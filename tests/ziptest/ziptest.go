// Package ziptest builds the ZIP archives the import's tests send (POST /import, folio import):
// any entries, and the hostile archives an import must refuse, one per kind. It imports nothing
// of folio's, so the imports module's own tests use it too.
package ziptest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io/fs"
	"strconv"
	"testing"
)

// Entry is one entry of a test archive for POST /import: its name, content and header.
type Entry struct {
	Name   string
	Body   []byte
	Mode   fs.FileMode // 0: a regular file
	Stored bool        // no compression
	// What the entry's header says of its sizes, when not the truth (0: the truth): a hostile
	// archive understates what an entry expands to, or claims compressed bytes it does not hold.
	DeclaredSize, DeclaredCompressed uint64
}

// Zip writes the entries as a ZIP.
func Zip(t testing.TB, entries ...Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate}
		if e.Stored {
			h.Method = zip.Store
		}
		if e.Mode != 0 {
			h.SetMode(e.Mode)
		}
		if e.DeclaredSize != 0 || e.DeclaredCompressed != 0 {
			writeRaw(t, zw, h, e)
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.Body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeRaw writes e deflated, with the sizes it declares in its header (and its true checksum).
func writeRaw(t testing.TB, zw *zip.Writer, h *zip.FileHeader, e Entry) {
	t.Helper()
	var comp bytes.Buffer
	fw, err := flate.NewWriter(&comp, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(e.Body); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	h.Method = zip.Deflate
	h.CRC32 = crc32.ChecksumIEEE(e.Body)
	h.UncompressedSize64, h.CompressedSize64 = uint64(len(e.Body)), uint64(comp.Len())
	if e.DeclaredSize != 0 {
		h.UncompressedSize64 = e.DeclaredSize
	}
	if e.DeclaredCompressed != 0 {
		h.CompressedSize64 = e.DeclaredCompressed
	}
	w, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(comp.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// Hostile is an archive an import must refuse whole (CONTRACT.md section 24), with a word its
// refusal must say. Each holds a harmless note too, so that "nothing written" means something.
type Hostile struct {
	Zip  []byte
	Says string
}

// HostileZips are the hostile archives, one per kind, by name. The ZIP over 50 MB is not among
// them (the unit tests give openArchive its size; the e2e suite sends one).
func HostileZips(t testing.TB) map[string]Hostile {
	md := []byte("# harmless\n")
	ok := Entry{Name: "ok.md", Body: md}
	many := make([]Entry, 10_001)
	for i := range many {
		many[i] = Entry{Name: "n/" + strconv.Itoa(i) + ".md", Body: md}
	}
	inner := Zip(t, Entry{Name: "a.md", Body: md})
	// Each under an entry's floor (64 KiB), together over the archive's (1 MiB).
	smallBombs := []Entry{ok}
	for i := range 100 {
		smallBombs = append(smallBombs, Entry{Name: "b/" + strconv.Itoa(i) + ".md", Body: bytes.Repeat([]byte{'a'}, 60<<10)})
	}
	// A note that says it is 1,000 bytes and expands to 2 MiB.
	understated := Entry{Name: "lie.md", Body: bytes.Repeat([]byte("# a note that lies\n"), 2<<20/19), DeclaredSize: 1000}
	// Entries of 1 MiB that each claim 11 KiB of compressed bytes (a ratio under 100) where the
	// archive holds about 1 KiB of each: the whole archive expands far over 100 times its size.
	overstated := []Entry{ok}
	for i := range 20 {
		overstated = append(overstated, Entry{Name: "c/" + strconv.Itoa(i) + ".md", Body: bytes.Repeat([]byte{'a'}, 1<<20), DeclaredCompressed: 11 << 10})
	}
	return map[string]Hostile{
		"drive letter":               {Zip(t, ok, Entry{Name: "C:/evil.md", Body: md}), "absolute"},
		"NUL in a name":              {Zip(t, ok, Entry{Name: "evil.md\x00.txt", Body: md}), "not a valid path"},
		"invalid UTF-8 name":         {Zip(t, ok, Entry{Name: "caf\xe9.md", Body: md}), "not a valid path"},
		"the same name twice":        {Zip(t, ok, Entry{Name: "n/x.md", Body: md}, Entry{Name: "n/x.md", Body: []byte("# other")}), "twice"},
		"size understated":           {Zip(t, ok, understated), "larger than its header says"},
		"compressed size overstated": {Zip(t, overstated...), "more compressed bytes"},
		"zip-slip":                   {Zip(t, ok, Entry{Name: "notes/../../evil.md", Body: md}), "zip-slip"},
		"absolute path":              {Zip(t, ok, Entry{Name: "/etc/evil.md", Body: md}), "absolute"},
		"backslash":                  {Zip(t, ok, Entry{Name: `..\evil.md`, Body: md}), "backslash"},
		"symlink":                    {Zip(t, ok, Entry{Name: "link.md", Body: []byte("/etc/passwd"), Mode: fs.ModeSymlink | 0o777}), "symbolic link"},
		"nested zip":                 {Zip(t, ok, Entry{Name: "more.zip", Body: inner, Stored: true}), "archive"},
		"zip in disguise":            {Zip(t, ok, Entry{Name: "note.md", Body: inner, Stored: true}), "archive"},
		"gzip in disguise":           {Zip(t, ok, Entry{Name: "note.md", Body: []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0}}), "archive"},
		"too many entries":           {Zip(t, many...), "10000"},
		"compression ratio":          {Zip(t, ok, Entry{Name: "bomb.md", Body: bytes.Repeat([]byte{' '}, 4<<20)}), "100 times"},
		"many small bombs":           {Zip(t, smallBombs...), "100 times"},
	}
}
