package markdown

import (
	"strings"
	"testing"
)

// unsafeSchemeBuilt is unsafeScheme as it was before it stopped building
// the scheme's string for every destination (the reference of
// TestUnsafeScheme).
func unsafeSchemeBuilt(href string) (string, bool) {
	i := 0
	for i < len(href) && href[i] <= ' ' {
		i++
	}
	var b strings.Builder
	for ; i < len(href); i++ {
		ch := href[i]
		if ch == '\t' || ch == '\n' || ch == '\r' {
			continue
		}
		if ch == ':' {
			scheme := strings.ToLower(b.String())
			switch scheme {
			case "http", "https", "mailto":
				return "", false
			}
			return scheme, true
		}
		isAlpha := ch|0x20 >= 'a' && ch|0x20 <= 'z'
		if b.Len() == 0 && !isAlpha {
			return "", false
		}
		if !isAlpha && !(ch >= '0' && ch <= '9') && ch != '+' && ch != '-' && ch != '.' {
			return "", false
		}
		b.WriteByte(ch)
	}
	return "", false
}

// TestUnsafeScheme holds unsafeScheme to the version that built the
// scheme's string, on schemes around the allowed ones (longer, shorter,
// cased, with tabs and newlines inside) and on random destinations.
func TestUnsafeScheme(t *testing.T) {
	hrefs := []string{
		"", ":", "http:", "https:", "mailto:", "HTTP://a", "HtTpS://a", "MAILTO:a@b", "http", "x",
		"htt:", "httpss:", "mailt:", "mailtoo:", "mailto1:", "h\tttp:", "ht\ntps:", "m\ra\tilto:",
		" \x01 javascript:x", "JavaScript:x", "java\tscript:x", "data:text/html,1", "tel:123",
		"a+b-c.d:x", "1http:", "-a:", "a_b:", "é:", "localhost:3000", "example.com:8080/x",
		"/a:b", "#x:y", "?a:b", "a b:c", "javascript\x00:x", "VBSCRIPT:x", "aaaaaaaaaaaaaaaa:x",
	}
	chars := "hHtTpPsSmMaAiIlLoO:\t\n\r .+-1é/"
	seed := uint32(35)
	for n := 0; n < 5000; n++ {
		var b strings.Builder
		for k := 0; k < 1+n%9; k++ {
			seed = seed*1664525 + 1013904223
			b.WriteByte(chars[seed>>24%uint32(len(chars))])
		}
		hrefs = append(hrefs, b.String())
	}
	for _, h := range hrefs {
		s1, bad1 := unsafeScheme(h)
		s2, bad2 := unsafeSchemeBuilt(h)
		if s1 != s2 || bad1 != bad2 {
			t.Errorf("unsafeScheme(%q) = %q, %v; want %q, %v", h, s1, bad1, s2, bad2)
		}
	}
}
