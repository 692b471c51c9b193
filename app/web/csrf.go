package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"

	"github.com/gin-gonic/gin"
)

// Form fields and cookies of the CSRF checks.
const (
	// CSRFField is the form field every form carries its token in: signed in, the session's CSRF
	// token (the one the JSON API takes in X-CSRF-Token); signed out, the pre-session token.
	CSRFField      = "csrf_token"
	preSessionCSRF = "folio_csrf" // double-submit token of the sign-in and sign-up forms
)

// FormTokenMatches parses the form (the handlers then read c.Request.PostForm) and compares its
// csrf_token with want in constant time.
func FormTokenMatches(c *gin.Context, want string) bool {
	if err := c.Request.ParseForm(); err != nil {
		return false
	}
	got := c.Request.PostForm.Get(CSRFField)
	return want != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// PreSessionToken returns the double-submit token for the signed-out forms (sign-in, sign-up),
// setting its cookie when the browser has none yet. (Without it, another site could sign a
// visitor in to the other site's account: login CSRF.)
func (s *Site) PreSessionToken(c *gin.Context) string {
	if v, err := c.Cookie(preSessionCSRF); err == nil && len(v) == 43 {
		return v
	}
	return s.FreshPreSessionToken(c)
}

// FreshPreSessionToken replaces the double-submit token (after a mismatch, the form is shown
// again with a token that will match).
func (s *Site) FreshPreSessionToken(c *gin.Context) string {
	v := randomToken()
	s.SetCookie(c, preSessionCSRF, v, 0)
	return v
}

// PreSessionMatches reports whether a signed-out form repeats the browser's double-submit token
// (parsing the form, as FormTokenMatches). The token stays, so that a form open in another tab
// still works.
func PreSessionMatches(c *gin.Context) (token string, ok bool) {
	token, _ = c.Cookie(preSessionCSRF)
	return token, FormTokenMatches(c, token)
}

// randomToken is 256 random bits, URL-safe (the double-submit token of the signed-out forms).
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
