package imports

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"folio/platform/apierr"
)

// The limits of an archive (CONTRACT.md section 24). An archive over any of them, or with an entry
// that could write outside the folder it is unpacked in, link elsewhere or hold another archive, is
// refused whole, before anything is written.
const (
	MaxBytes   = 50_000_000 // the ZIP itself: 50 MB
	MaxEntries = 10_000     // files and folders
	MaxRatio   = 100        // uncompressed size over compressed size, per entry and in all
	// The ratio is judged on an entry that expands to over ratioFloor bytes, and on the whole
	// archive once it expands to over totalRatioFloor: a short note of repeated characters (a
	// table's rule, a line of dashes) compresses over 100 times and costs nothing to read, while
	// a bomb must expand far beyond these to do harm.
	ratioFloor      = 64 << 10
	totalRatioFloor = 1 << 20
	// maxFileBytes is the largest Markdown file read: an item holds at most 100,000 characters
	// (4 bytes each at most), and front matter comes on top. A larger file is skipped unread.
	maxFileBytes = 1 << 20
)

// archive is a ZIP that passed the checks: its files in name order (folders left out).
type archive struct {
	files []*zip.File
}

// openArchive reads the ZIP's directory from r (size bytes) and checks every entry, in the order
// of the checks' cost: the size, the count, each name, link and ratio from the directory alone,
// then the first bytes of each file (an archive inside, whatever its name says). The error names
// the entry and what is wrong with it.
func openArchive(r io.ReaderAt, size int64) (*archive, error) {
	if size > MaxBytes {
		return nil, errTooLarge
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // names are checked below, with a better message
		return nil, errNotZip.Wrap(err)
	}
	if len(zr.File) > MaxEntries {
		return nil, errTooManyEntries(len(zr.File))
	}
	var compressed, uncompressed uint64
	a := &archive{}
	names := make(map[string]bool, len(zr.File))
	for _, f := range zr.File {
		if err := checkName(f.Name); err != nil {
			return nil, err
		}
		// One name, two entries: which one an unzipper keeps is its own choice, so what was
		// checked need not be what is read (a folder and a file of one name alike).
		key := strings.TrimSuffix(f.Name, "/")
		if names[key] {
			return nil, errEntry(f.Name, "appears twice in the ZIP")
		}
		names[key] = true
		mode := f.Mode()
		if mode&fs.ModeSymlink != 0 {
			return nil, errEntry(f.Name, "is a symbolic link")
		}
		if mode&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeCharDevice|fs.ModeIrregular) != 0 {
			return nil, errEntry(f.Name, "is not a regular file")
		}
		if f.UncompressedSize64 > ratioFloor && overRatio(f.UncompressedSize64, f.CompressedSize64) {
			return nil, errEntry(f.Name, fmt.Sprintf("expands from %d to %d bytes, over %d times its compressed size", f.CompressedSize64, f.UncompressedSize64, MaxRatio))
		}
		compressed += f.CompressedSize64
		uncompressed += f.UncompressedSize64
		if mode.IsDir() || strings.HasSuffix(f.Name, "/") {
			continue
		}
		if isArchiveName(f.Name) {
			return nil, errEntry(f.Name, "is an archive; archives inside the ZIP are not imported")
		}
		a.files = append(a.files, f)
	}
	// The sizes above are what the entries declare. Entries that claim more compressed bytes
	// than the ZIP holds share their data or lie about it (an overlapping-entry bomb): their
	// ratios, and the whole archive's, are not what they seem.
	if compressed > uint64(size) {
		return nil, apierr.Validation("body: the ZIP's entries claim more compressed bytes (%d) than the ZIP holds (%d): entries that overlap or lie about their sizes", compressed, size)
	}
	if uncompressed > totalRatioFloor && overRatio(uncompressed, compressed) {
		return nil, errRatio(compressed, uncompressed)
	}
	for _, f := range a.files {
		if f.Flags&0x1 != 0 {
			continue // encrypted: skipped with its reason when it is read
		}
		head, err := readHead(f, isMarkdownName(f.Name) && f.UncompressedSize64 <= maxFileBytes)
		if err != nil {
			return nil, errEntry(f.Name, readError(f, err))
		}
		if isArchiveData(head) && !isDocumentName(f.Name) {
			return nil, errEntry(f.Name, "is an archive; archives inside the ZIP are not imported")
		}
	}
	sort.SliceStable(a.files, func(i, j int) bool { return a.files[i].Name < a.files[j].Name })
	return a, nil
}

// overRatio reports whether uncompressed bytes came from compressed ones at a ratio over MaxRatio.
// A stored entry has a ratio of 1; an entry that claims bytes from none has no ratio at all.
func overRatio(uncompressed, compressed uint64) bool {
	if uncompressed == 0 {
		return false
	}
	return compressed == 0 || uncompressed/compressed > MaxRatio || (uncompressed/compressed == MaxRatio && uncompressed%compressed != 0)
}

// checkName refuses a name that would leave the folder the archive is unpacked in (zip-slip), or
// that a file system would read otherwise than it is written: absolute, with "..", a backslash, a
// drive letter, a NUL or invalid UTF-8.
func checkName(name string) error {
	switch {
	case name == "" || !utf8.ValidString(name) || strings.ContainsRune(name, 0):
		return errEntry(name, "has a name that is not a valid path")
	case strings.Contains(name, `\`):
		return errEntry(name, "has a backslash in its path (a path leaving the archive's folder on Windows)")
	case strings.HasPrefix(name, "/"), len(name) >= 2 && name[1] == ':':
		return errEntry(name, "has an absolute path (zip-slip)")
	}
	for _, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if seg == ".." {
			return errEntry(name, "has a path that leaves the archive's folder (zip-slip)")
		}
	}
	return nil
}

// archiveExts are the names of archives and compressed files, refused inside an import.
var archiveExts = []string{".zip", ".jar", ".war", ".apk", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".lz", ".lzma", ".cab", ".iso"}

func isArchiveName(name string) bool {
	lower := strings.ToLower(name)
	for _, ext := range archiveExts {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// documentExts are documents stored as ZIPs (Office, OpenDocument, EPUB, iWork): attachments a
// notes tool exports beside its notes. They are never opened (only .md files are read) and are
// listed as skipped, where an archive by name, or another file that is one inside, is refused.
var documentExts = []string{".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".odg", ".epub", ".pages", ".numbers", ".key", ".vsdx"}

func isDocumentName(name string) bool {
	lower := strings.ToLower(name)
	for _, ext := range documentExts {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// archiveMagic are the first bytes of archive and compression formats.
var archiveMagic = [][]byte{
	[]byte("PK\x03\x04"), []byte("PK\x05\x06"), []byte("PK\x07\x08"), // zip
	{0x1f, 0x8b},                       // gzip
	[]byte("BZh"),                      // bzip2
	{0xfd, '7', 'z', 'X', 'Z', 0x00},   // xz
	{0x28, 0xb5, 0x2f, 0xfd},           // zstd
	{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, // 7z
	[]byte("Rar!\x1a\x07"),             // rar
	[]byte("MSCF"),                     // cab
	{0x5d, 0x00, 0x00},                 // lzma
	[]byte("LZIP"),                     // lzip
}

// headSize is what readHead reads: a tar archive says "ustar" at offset 257.
const headSize = 262

func isArchiveData(head []byte) bool {
	for _, m := range archiveMagic {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return len(head) >= headSize && string(head[257:262]) == "ustar"
}

// readHead reads the first headSize bytes of f (fewer when it is shorter). With whole, it reads the
// rest too, to nothing: archive/zip then checks the entry against its header (no more bytes than
// its declared size, no fewer, its checksum), so a file the import will read is found lying
// before anything is written.
func readHead(f *zip.File, whole bool) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(rc, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if whole && err != nil && uint64(n) != f.UncompressedSize64 {
		return nil, io.ErrUnexpectedEOF // it ended before the size its header says
	}
	if whole && err == nil {
		if _, err := io.Copy(io.Discard, rc); err != nil {
			return nil, err
		}
	}
	return head[:n], nil
}

// readError says why an entry could not be read.
func readError(f *zip.File, err error) string {
	switch {
	case errors.Is(err, zip.ErrFormat):
		return fmt.Sprintf("is larger than its header says (%d bytes)", f.UncompressedSize64)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("is shorter than its header says (%d bytes)", f.UncompressedSize64)
	case errors.Is(err, zip.ErrChecksum):
		return "fails its checksum"
	}
	return "cannot be read: " + err.Error()
}

// isMarkdownName reports whether the import reads the file as a note or task (run.file).
func isMarkdownName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown":
		return true
	}
	return false
}

// readFile reads f whole, at most limit bytes: ok is false when it is larger.
func readFile(f *zip.File, limit int64) (data []byte, ok bool, err error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, false, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, false, err
	}
	defer rc.Close()
	data, err = io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return nil, false, nil
	}
	return data, true, nil
}

// dirOf is the folder of a file in the archive, "" at its root.
func dirOf(name string) string {
	d := path.Dir(name)
	if d == "." {
		return ""
	}
	return d
}
