package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// releaseBinaryPages drops from this process the pages of its own executable that start-up
// mapped (text, read-only data, the function tables), over each of the executable's mappings
// that cannot be written and holds no private copy of a page:
//
//   - madvise(MADV_RANDOM): from now on a page the process touches is read alone, with no
//     read-ahead around it, so it comes back as one 4 KiB page, not as part of a large folio of
//     hundreds of them (which the kernel maps whole on a fault);
//   - madvise(MADV_PAGEOUT): the pages only this process maps leave memory (page cache included;
//     they are clean pages of the file, nothing is written); a page another process also maps
//     (a second instance of the same binary) stays, mapped out of this process only (kernels
//     before 5.4, which lack MADV_PAGEOUT: MADV_DONTNEED, which does that alone).
//
// The next touch of a page reads it again (from the page cache or the file): what serving runs
// comes back during the first requests, what only start-up ran (every package's init, the
// migrations, the dependency graph's reflection over every constructor) stays out. Writable
// mappings (data, bss) and any with anonymous pages are left alone: dropping those would lose
// their contents. It returns the bytes the advised mappings had resident before
// (docs/performance.md, Memory).
func releaseBinaryPages() (released int64) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	for _, m := range binaryMappings(smaps, exe) {
		madvise(m, syscall.MADV_RANDOM)
		if madvise(m, madvPageout) == nil || madvise(m, syscall.MADV_DONTNEED) == nil {
			released += m.rss
		}
	}
	return released
}

// madvPageout is MADV_PAGEOUT (Linux 5.4), which package syscall does not name.
const madvPageout = 21

func madvise(m mapping, advice int) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, uintptr(advice)); errno != 0 {
		return errno
	}
	return nil
}

// mapping is one of the executable's read-only mappings in /proc/self/smaps.
type mapping struct {
	start, end uintptr
	rss        int64 // bytes resident
}

// binaryMappings reads, from the text of /proc/self/smaps, the mappings of the file exe that are
// private, not writable and without anonymous (copied-on-write) pages.
func binaryMappings(smaps []byte, exe string) []mapping {
	var out []mapping
	var cur *mapping
	var anonymous int64
	flush := func() {
		if cur != nil && anonymous == 0 {
			out = append(out, *cur)
		}
		cur, anonymous = nil, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 {
			continue
		}
		// A mapping's header: "start-end perms offset dev inode [path]"; its fields follow as
		// "Name: value [kB]" lines (the first field ends in a colon).
		if key := f[0]; key[len(key)-1] == ':' {
			if cur == nil || len(f) < 2 {
				continue
			}
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				continue
			}
			switch string(key) {
			case "Rss:":
				cur.rss = kb << 10
			case "Anonymous:":
				anonymous = kb
			}
			continue
		}
		flush()
		if len(f) < 6 || string(bytes.Join(f[5:], []byte(" "))) != exe {
			continue
		}
		perms := f[1]
		if len(perms) != 4 || perms[1] == 'w' || perms[3] != 'p' {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte("-"))
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		cur = &mapping{start: uintptr(start), end: uintptr(end)}
	}
	flush()
	return out
}
