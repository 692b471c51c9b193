package accounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane). They are stored
// with each hash, so raising them later re-hashes nothing and breaks nothing.
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
)

// argonSlots bounds how many argon2id computations run at once. Each allocates its memory
// parameter (19 MiB) for its duration, and the server's resident memory is bounded (issue 17:
// 100 MiB under load); a burst of sign-ins or password changes queues here (about 30 ms each per
// core) instead of growing the heap by 19 MiB per concurrent request. One per core, at least two.
var argonSlots = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

// withArgonSlot runs fn, the computation of one hash, once a slot is free.
func withArgonSlot[T any](fn func() T) T {
	argonSlots <- struct{}{}
	defer func() { <-argonSlots }()
	return fn()
}

// hashPassword returns a PHC-format argon2id hash.
func hashPassword(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := withArgonSlot(func() []byte {
		return argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	})
	return phcHash(salt, key)
}

// phcHash is the PHC string of an argon2id key derived with salt and the parameters above.
func phcHash(salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// checkPassword compares password with a PHC argon2id hash in constant time.
func checkPassword(password, encoded string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || t == 0 || p == 0 || m > 1<<21 || t > 16 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := withArgonSlot(func() []byte { return argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want))) })
	return subtle.ConstantTimeCompare(got, want) == 1
}
