// Package ids makes and checks CUID2 identifiers: 24 lowercase base-36 characters, the first a
// letter. They are unguessable (SHA3 over time, a counter, a per-process fingerprint and 32 bytes
// of crypto/rand) and carry no order: lists order by createdAt, not by id.
package ids

import (
	"crypto/rand"
	"crypto/sha3"
	"encoding/binary"
	"math/big"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// Length is the length of every id.
const Length = 24

var (
	counter     atomic.Uint64
	fingerprint = func() []byte {
		host, _ := os.Hostname()
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		return append(b, []byte(host+strconv.Itoa(os.Getpid()))...)
	}()
)

// New returns a fresh CUID2.
func New() string {
	entropy := make([]byte, 32)
	_, _ = rand.Read(entropy) // crypto/rand.Read never fails on supported platforms
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(time.Now().UnixNano()))
	binary.BigEndian.PutUint64(buf[8:], counter.Add(1))
	h := sha3.New512()
	h.Write(buf[:])
	h.Write(entropy)
	h.Write(fingerprint)
	sum := h.Sum(nil)
	body := new(big.Int).SetBytes(sum).Text(36)
	// The first character is a random letter so ids are valid identifiers everywhere.
	letter := byte('a' + entropy[0]%26)
	out := append([]byte{letter}, body...)
	for len(out) < Length {
		out = append(out, '0')
	}
	return string(out[:Length])
}

// Valid reports whether s has the shape of an id. Path ids that are not valid are answered with
// the resource's 404 before any query runs.
func Valid(s string) bool {
	if len(s) != Length || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
