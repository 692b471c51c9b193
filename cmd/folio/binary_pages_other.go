//go:build !linux

package main

// releaseBinaryPages is Linux only (madvise over /proc/self/smaps's mappings); elsewhere the
// executable's pages stay as the system keeps them.
func releaseBinaryPages() int64 { return 0 }
