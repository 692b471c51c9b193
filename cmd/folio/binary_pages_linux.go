package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// releaseBinaryPages takes out of memory the pages of this process's own executable that
// start-up mapped (text, read-only data, the function tables), over each of the executable's
// mappings that cannot be written and holds no private copy of a page (none in memory, none in
// swap):
//
//   - first, fdatasync on the executable (opened read-only through /proc/self/exe): pages not
//     yet written back (a binary built or copied seconds before it starts) are written, for the
//     page cache keeps a dirty page whatever it is advised; the kernel would write them within
//     about 30 seconds anyway, and for an installed binary there is nothing to write. Not
//     sync_file_range, which overlayfs (a container's root) does not pass to the file below. It
//     comes first because it can take a while, and a page the process touches between its
//     unmapping and the advice below keeps its whole folio in the cache.
//   - madvise(MADV_RANDOM): from now on a page the process touches and the page cache lacks is
//     read alone, with no read-ahead around it, so it comes back as one 4 KiB page, not as part
//     of a large folio of hundreds of them (which the kernel maps whole on a fault). The advice
//     stays for the process's life.
//   - madvise(MADV_DONTNEED): the pages leave this process's mappings (clean pages of the file:
//     nothing is written, nothing lost).
//   - posix_fadvise(POSIX_FADV_DONTNEED) on the executable, over the same ranges: the pages no
//     process maps any more leave the page cache (the read-only descriptor is enough for both
//     calls, so it works for a binary owned by another user, as in the container image, where
//     MADV_PAGEOUT would do nothing); a page another process maps (a second instance of the
//     same binary) stays. A page left in the cache is one that a fault maps again with its
//     neighbours (the kernel maps what the cache holds around a fault, 64 KiB): without the
//     write-back, a copy made a second before it started kept 20.5 MiB of its binary resident
//     after 200 requests, with it 11.0.
//
// It blocks while the write-back runs, so folio serve calls it off the start hook's goroutine.
//
// The next touch of a page maps it again (from the file, a page at a time): what serving runs
// comes back during the first requests, what only start-up ran (every package's init, the
// migrations, the dependency graph's reflection over every constructor) stays out. Writable
// mappings (data, bss) and any with anonymous or swapped pages are left alone: dropping those
// would lose their contents. It returns the bytes the advised mappings had resident before
// (docs/performance.md, Memory).
func releaseBinaryPages() int64 {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	picked := binaryMappings(smaps, exe)
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return dropBinaryPages(picked, nil)
	}
	defer f.Close()
	// Written back first: the write can take a while, and a page the process touches between its
	// unmapping and the page cache's advice keeps its folio in the cache.
	_ = unix.Fdatasync(int(f.Fd()))
	return dropBinaryPages(picked, f)
}

// dropBinaryPages is releaseBinaryPages after the write-back: the mappings advised RANDOM and
// DONTNEED, then their ranges of exe (nil: not opened) advised out of the page cache.
func dropBinaryPages(picked []mapping, exe *os.File) (released int64) {
	for _, m := range picked {
		madvise(m, syscall.MADV_RANDOM)
		if madvise(m, syscall.MADV_DONTNEED) == nil {
			released += m.rss
		}
	}
	if exe != nil {
		for _, m := range picked {
			_ = unix.Fadvise(int(exe.Fd()), int64(m.offset), int64(m.end-m.start), unix.FADV_DONTNEED)
		}
	}
	return released
}

func madvise(m mapping, advice int) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, uintptr(advice)); errno != 0 {
		return errno
	}
	return nil
}

// mapping is one of the executable's read-only mappings in /proc/self/smaps.
type mapping struct {
	start, end uintptr
	offset     uint64 // of start in the file
	rss        int64  // bytes resident
}

// binaryMappings reads, from the text of /proc/self/smaps, the mappings of the file exe that are
// private and not writable, and that say they have no anonymous (copied-on-write) page and none
// in swap. It fails closed: a mapping that lacks either line is left out, and so is everything
// when the text cannot be read to its end.
func binaryMappings(smaps []byte, exe string) []mapping {
	var out []mapping
	var cur *mapping
	var sawAnonymous, sawSwap, private bool
	flush := func() {
		if cur != nil && sawAnonymous && sawSwap && private {
			out = append(out, *cur)
		}
		cur, sawAnonymous, sawSwap, private = nil, false, false, true
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
			if cur == nil {
				continue
			}
			kb := int64(-1)
			if len(f) >= 2 {
				if n, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
					kb = n
				}
			}
			switch string(key) {
			case "Rss:":
				cur.rss = max(kb, 0) << 10
			case "Anonymous:":
				sawAnonymous = true
				private = private && kb == 0
			case "Swap:":
				sawSwap = true
				private = private && kb == 0
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
		offset, err3 := strconv.ParseUint(string(f[2]), 16, 64)
		if err1 != nil || err2 != nil || err3 != nil || end <= start {
			continue
		}
		cur = &mapping{start: uintptr(start), end: uintptr(end), offset: offset}
	}
	if sc.Err() != nil {
		return nil
	}
	flush()
	return out
}
