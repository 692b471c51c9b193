package auth_test

import (
	"regexp"
	"testing"

	"folio/platform/auth"
)

var keyShape = regexp.MustCompile(`^svc_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}$`)

func TestNewKeyShapeAndParse(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		raw, prefix, secret := auth.NewKey()
		if !keyShape.MatchString(raw) {
			t.Fatalf("key %q does not have the shape svc_live_<8>_<24>", raw)
		}
		p, s, err := auth.ParseKey(raw)
		if err != nil || p != prefix || s != secret {
			t.Fatalf("ParseKey(%q) = %q, %q, %v; want %q, %q", raw, p, s, err, prefix, secret)
		}
		if seen[secret] {
			t.Fatalf("secret repeated: %q", secret)
		}
		seen[secret] = true
	}
}

func TestParseKeyRejectsWrongShapes(t *testing.T) {
	for _, raw := range []string{
		"",
		"svc_live_",
		"svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBB",   // secret 23
		"svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBB", // secret 25
		"svc_test_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB",
		"svc_live_AAAAAAA-_BBBBBBBBBBBBBBBBBBBBBBBB",
		"svc_live_AAAAAAAAXBBBBBBBBBBBBBBBBBBBBBBBB",
		"svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBB\u00e9",
		"SVC_LIVE_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB",
	} {
		if _, _, err := auth.ParseKey(raw); err == nil {
			t.Errorf("ParseKey(%q) accepted a key of the wrong shape", raw)
		}
	}
}

func TestHasher(t *testing.T) {
	plain, peppered := auth.NewHasher(""), auth.NewHasher("pepper")
	h := plain.Hash("secret")
	if len(h) != 32 || !plain.Equal("secret", h) || plain.Equal("secreT", h) {
		t.Fatal("SHA-256 hasher does not round-trip")
	}
	if peppered.Equal("secret", h) {
		t.Fatal("a peppered hasher accepted a plain hash")
	}
	if !peppered.Equal("secret", peppered.Hash("secret")) {
		t.Fatal("HMAC hasher does not round-trip")
	}
}

func TestPrincipalScope(t *testing.T) {
	read := &auth.Principal{Scope: auth.ScopeRead}
	write := &auth.Principal{Scope: auth.ScopeWrite}
	rw := &auth.Principal{Scope: auth.ScopeReadWrite}
	if !read.Can(auth.ScopeRead) || read.Can(auth.ScopeWrite) || write.Can(auth.ScopeRead) || !write.Can(auth.ScopeWrite) || !rw.Can(auth.ScopeRead) || !rw.Can(auth.ScopeWrite) {
		t.Fatal("scope bits do not match the SPEC's table")
	}
	for _, s := range []int{0, 4, -1} {
		if auth.ValidScope(s) {
			t.Errorf("scope %d accepted", s)
		}
	}
}

// TestPrefixOf: a key's prefix is PrefixLength letters and digits, written alone or after
// "svc_live_"; a whole key, a shorter or longer run, or another character is none.
func TestPrefixOf(t *testing.T) {
	raw, prefix, _ := auth.NewKey()
	for in, want := range map[string]string{
		prefix:                       prefix,
		auth.DisplayPrefix(prefix):   prefix,
		"AbCd0129":                   "AbCd0129",
		"svc_live_AbCd0129":          "AbCd0129",
		raw:                          "",
		"":                           "",
		"svc_live_":                  "",
		"AbCd012":                    "",
		"AbCd01299":                  "",
		"AbCd-129":                   "",
		"AbCd01\u00e9":               "", // 8 bytes, one letter not ASCII
		"SVC_LIVE_AbCd0129":          "",
		"svc_live_svc_live_AbCd0129": "",
		"svc_test_AbCd0129":          "",
	} {
		got, ok := auth.PrefixOf(in)
		if ok != (want != "") || ok && got != want {
			t.Errorf("PrefixOf(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if bare := auth.ValidPrefix(in); bare != (want != "" && in == want) {
			t.Errorf("ValidPrefix(%q) = %v", in, bare)
		}
	}
}
