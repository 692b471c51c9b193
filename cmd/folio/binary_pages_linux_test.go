package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestBinaryMappings: of /proc/self/smaps, only the executable's private mappings that cannot be
// written and say they hold no anonymous page and none in swap are picked, with their resident
// size; a writable mapping (even one with no page written yet), a read-only one with copied pages (relocated data) or swapped ones, one
// whose Anonymous or Swap line is missing, a shared one, another file's and the heap are left;
// a deleted executable's path (with the kernel's " (deleted)") still matches.
func TestBinaryMappings(t *testing.T) {
	const exe = "/usr/local/bin/folio server"
	smaps := strings.Join([]string{
		"00400000-01c00000 r-xp 00000000 08:01 42 " + exe, "Size: 24576 kB", "Rss: 18000 kB", "Anonymous: 0 kB", "Swap: 0 kB",
		"01c00000-02400000 r--p 01800000 08:01 42 " + exe, "Rss: 7000 kB", "Anonymous: 0 kB", "Swap: 0 kB", "VmFlags: rd mr mw me",
		"02400000-02500000 rw-p 02000000 08:01 42 " + exe, "Rss: 900 kB", "Anonymous: 300 kB", "Swap: 0 kB",
		"02500000-02600000 r--p 02100000 08:01 42 " + exe, "Rss: 100 kB", "Anonymous: 4 kB", "Swap: 0 kB",
		"02600000-02700000 r--p 02200000 08:01 42 " + exe, "Rss: 0 kB", "Anonymous: 0 kB", "Swap: 8 kB",
		"02700000-02800000 r--p 02300000 08:01 42 " + exe, "Rss: 10 kB", "Swap: 0 kB",
		"02800000-02900000 r--p 02400000 08:01 42 " + exe, "Rss: 10 kB", "Anonymous: 0 kB",
		"02900000-02a00000 r--s 02500000 08:01 42 " + exe, "Rss: 10 kB", "Anonymous: 0 kB", "Swap: 0 kB",
		"02a00000-02b00000 rw-p 02600000 08:01 42 " + exe, "Rss: 10 kB", "Anonymous: 0 kB", "Swap: 0 kB",
		"7f000000-7f100000 r-xp 00000000 08:01 77 /usr/lib/libc.so.6", "Rss: 500 kB", "Anonymous: 0 kB", "Swap: 0 kB",
		"7f200000-7f300000 rw-p 00000000 00:00 0 ", "Rss: 5000 kB", "Anonymous: 5000 kB", "Swap: 0 kB",
		"7ffd0000-7ffd1000 r-xp 00000000 00:00 0 [vdso]", "Rss: 4 kB", "Anonymous: 0 kB", "Swap: 0 kB",
	}, "\n")
	got := binaryMappings([]byte(smaps), exe)
	want := []mapping{{0x00400000, 0x01c00000, 0, 18000 << 10}, {0x01c00000, 0x02400000, 0x01800000, 7000 << 10}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("binaryMappings: %+v, want %+v", got, want)
	}
	if got := binaryMappings([]byte(smaps), "/usr/local/bin/folio"); len(got) != 0 {
		t.Errorf("another path's prefix matched: %+v", got)
	}
	deleted := strings.ReplaceAll(smaps, exe, exe+" (deleted)")
	if got := binaryMappings([]byte(deleted), exe+" (deleted)"); len(got) != 2 {
		t.Errorf("a deleted executable (readlink and smaps both say \" (deleted)\"): %+v", got)
	}
}

// written is in the executable's writable data: releasing the binary's pages must keep its value.
var written = []int{3, 1, 2}

// TestReleaseBinaryPages runs the release in this test binary: none of the mappings it advises
// holds the written global or overlaps a writable mapping, the process's file-backed resident set
// (RssFile) falls by at least half of what it reports released, the data written before is
// intact, and code runs afterwards (its pages map again). The test binary stays advised
// MADV_RANDOM for the package's other tests, which only makes their first touches of a page
// slower.
func TestReleaseBinaryPages(t *testing.T) {
	_, smaps, picked := ownMappings(t)
	global := uintptr(unsafe.Pointer(&written))
	for _, m := range picked {
		if global >= m.start && global < m.end {
			t.Fatalf("the mapping %x-%x holds a written global", m.start, m.end)
		}
		for _, w := range writableRanges(t, smaps) {
			if m.start < w[1] && w[0] < m.end {
				t.Fatalf("the mapping %x-%x overlaps the writable %x-%x", m.start, m.end, w[0], w[1])
			}
		}
	}

	written[0] = 42
	before := rssFile(t)
	released := releaseBinaryPages()
	after := rssFile(t)
	t.Logf("RssFile %d KiB → %d KiB; released %d KiB", before>>10, after>>10, released>>10)
	if released <= 0 || before-after < released/2 {
		t.Fatalf("RssFile %d → %d bytes, released %d: the executable's pages were not dropped", before, after, released)
	}
	if written[0] != 42 {
		t.Fatalf("a written global reads %d after the release: writable data was dropped", written[0])
	}
	sort.Ints(written)
	if got := strconv.Itoa(written[0]) + strings.Repeat("!", 2); got != "1!!" {
		t.Fatalf("code after the release: %q", got)
	}
}

// freshChildEnv makes this test binary, run by TestReleaseFreshBinary, the child that releases its
// pages and prints what the page cache still holds of them. Its value is "release" or "control"
// (the release without its write-back), a colon, and the copy's path, which the child checks
// against its own executable: a variable left in the environment of an ordinary run does not make
// it a child.
const freshChildEnv = "FOLIO_TEST_RELEASE_CHILD"

// TestReleaseFreshBinary: a binary written a moment ago (a copy of this test binary, run as a
// child), whose pages are not yet written back, leaves the page cache as an installed one does.
// The cache keeps a dirty page whatever it is advised, and a fault maps again whatever the cache
// holds around it. A first copy, released without the write-back, is the control: it must stay
// mostly cached, or there is nothing to tell apart (the file system wrote it at once) and the
// test is skipped; a second copy, released as folio serve releases its binary, must not.
func TestReleaseFreshBinary(t *testing.T) {
	if mode, path, ok := strings.Cut(os.Getenv(freshChildEnv), ":"); ok {
		if exe, _ := os.Readlink("/proc/self/exe"); exe == path {
			releaseFreshChild(t, exe, mode == "control")
			return
		}
	}
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	switch {
	case fs.Type == unix.TMPFS_MAGIC || fs.Type == unix.RAMFS_MAGIC:
		t.Skipf("%s is in memory (tmpfs or ramfs), whose pages the page cache cannot drop", dir)
	case fs.Flags&unix.ST_NOEXEC != 0:
		t.Skipf("%s is mounted noexec: the copy cannot run", dir)
	}
	if share := runFreshChild(t, dir, "control"); share < 0.5 {
		t.Skipf("the file system wrote a fresh copy back at once (released without the write-back, %.0f%% stayed cached): nothing to tell apart", 100*share)
	}
	share := runFreshChild(t, dir, "release")
	t.Logf("the page cache holds %.0f%% of the fresh binary's released ranges", 100*share)
	if share > 0.5 {
		t.Fatalf("the page cache still holds %.0f%% of a fresh binary's released ranges", 100*share)
	}
}

// runFreshChild copies this test binary into dir, runs the copy as TestReleaseFreshBinary's child
// in mode, and returns the share it printed.
func runFreshChild(t *testing.T, dir, mode string) float64 {
	t.Helper()
	copied := filepath.Join(dir, mode+".test")
	copyExecutable(t, "/proc/self/exe", copied)
	cmd := exec.Command(copied, "-test.run=^TestReleaseFreshBinary$")
	cmd.Env = append(os.Environ(), freshChildEnv+"="+mode+":"+copied)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the %s child: %v\n%s", mode, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "cached="); ok {
			share, err := strconv.ParseFloat(v, 64)
			if err != nil || share != share || share < 0 || share > 1 {
				t.Fatalf("the %s child printed %q", mode, line)
			}
			return share
		}
	}
	t.Fatalf("the %s child printed no share:\n%s", mode, out)
	return 0
}

// releaseFreshChild is TestReleaseFreshBinary's child: it releases its executable's pages (as
// releaseBinaryPages does, or, for the control, without the write-back) and prints the share of
// the released ranges the page cache still holds.
func releaseFreshChild(t *testing.T, exe string, control bool) {
	_, _, picked := ownMappings(t)
	if control {
		f, err := os.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		dropBinaryPages(picked, f)
		f.Close()
	} else {
		releaseBinaryPages()
	}
	fmt.Printf("cached=%f\n", cachedShare(t, exe, picked))
}

// copyExecutable writes a copy of the file from to the new file to, executable.
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// ownMappings is this process's executable, its /proc/self/smaps and the mappings
// binaryMappings picks from it (at least one).
func ownMappings(t *testing.T) (exe string, smaps []byte, picked []mapping) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	if smaps, err = os.ReadFile("/proc/self/smaps"); err != nil {
		t.Fatal(err)
	}
	if picked = binaryMappings(smaps, exe); len(picked) == 0 {
		t.Fatal("no mapping of the executable picked")
	}
	return exe, smaps, picked
}

// writableRanges are the address ranges of smaps's writable mappings.
func writableRanges(t *testing.T, smaps []byte) [][2]uintptr {
	t.Helper()
	var out [][2]uintptr
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasSuffix(f[0], ":") || len(f[1]) != 4 || f[1][1] != 'w' {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if ok && err1 == nil && err2 == nil {
			out = append(out, [2]uintptr{uintptr(a), uintptr(b)})
		}
	}
	if len(out) == 0 {
		t.Fatal("no writable mapping in /proc/self/smaps")
	}
	return out
}

// rssFile reads RssFile from /proc/self/status, in bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("RssFile: %q", line)
			}
			return kb << 10
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// cachedShare is the share of the pages of exe in the file ranges of ms that the page cache
// holds: mincore over a fresh read-only mapping of the file, which maps nothing in (mincore reads
// the cache, it does not fault).
func cachedShare(t *testing.T, exe string, ms []mapping) float64 {
	t.Helper()
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cached, total int
	for _, m := range ms {
		b, err := unix.Mmap(int(f.Fd()), int64(m.offset), int(m.end-m.start), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
		_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
		_ = unix.Munmap(b)
		if errno != 0 {
			t.Fatal(errno)
		}
		for _, v := range vec {
			cached += int(v & 1)
		}
		total += len(vec)
	}
	if total == 0 {
		t.Fatal("no page to look at")
	}
	return float64(cached) / float64(total)
}
