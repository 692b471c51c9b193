//go:build !unix

package markdown

import (
	"testing"
	"time"
)

// threadCPU falls back to the wall clock where there is no per-thread CPU
// clock; TestLinearTime is then as sensitive to machine load as a timing test.
func threadCPU(*testing.T) time.Duration { return time.Duration(time.Now().UnixNano()) }
