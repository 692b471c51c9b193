package main

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestBinaryMappings: of /proc/self/smaps, only the executable's private mappings that cannot be
// written and hold no anonymous page are picked, with their resident size; a writable mapping, a
// read-only one with copied pages (relocated data), a shared one, another file's and the heap are
// left.
func TestBinaryMappings(t *testing.T) {
	const exe = "/usr/local/bin/folio server"
	smaps := strings.Join([]string{
		"00400000-01c00000 r-xp 00000000 08:01 42 " + exe, "Size: 24576 kB", "Rss: 18000 kB", "Anonymous: 0 kB",
		"01c00000-02400000 r--p 01800000 08:01 42 " + exe, "Rss: 7000 kB", "Anonymous: 0 kB", "VmFlags: rd mr mw me",
		"02400000-02500000 rw-p 02000000 08:01 42 " + exe, "Rss: 900 kB", "Anonymous: 300 kB",
		"02500000-02600000 r--p 02100000 08:01 42 " + exe, "Rss: 100 kB", "Anonymous: 4 kB",
		"02600000-02700000 r--s 02200000 08:01 42 " + exe, "Rss: 10 kB", "Anonymous: 0 kB",
		"7f000000-7f100000 r-xp 00000000 08:01 77 /usr/lib/libc.so.6", "Rss: 500 kB", "Anonymous: 0 kB",
		"7f200000-7f300000 rw-p 00000000 00:00 0 ", "Rss: 5000 kB", "Anonymous: 5000 kB",
		"7ffd0000-7ffd1000 r-xp 00000000 00:00 0 [vdso]", "Rss: 4 kB", "Anonymous: 0 kB",
	}, "\n")
	got := binaryMappings([]byte(smaps), exe)
	want := []mapping{{0x00400000, 0x01c00000, 18000 << 10}, {0x01c00000, 0x02400000, 7000 << 10}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("binaryMappings: %+v, want %+v", got, want)
	}
	if got := binaryMappings([]byte(smaps), "/usr/local/bin/folio"); len(got) != 0 {
		t.Errorf("another path's prefix matched: %+v", got)
	}
}

// written is in the executable's writable data: releasing the binary's pages must keep its value.
var written = []int{3, 1, 2}

// TestReleaseBinaryPages runs the release in this test binary: the process's file-backed resident
// set (RssFile) falls by at least half of what it reports released, the data it wrote before is
// intact, and code runs afterwards (its pages map again).
func TestReleaseBinaryPages(t *testing.T) {
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
