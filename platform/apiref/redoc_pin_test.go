package apiref

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// redocSHA256 is the SHA-256 of web/static/redoc.standalone.js as vendor-redoc.sh writes it
// (Redoc 2.5.4 from npm, its CDN logo URL replaced). A changed bundle must come from the script.
const redocSHA256 = "ed75b5864f02a03524c4e12cbb8f7945a5f7b1727b8fcab56657d61b79dac844"

// TestRedocPinned: the embedded bundle is the pinned one, and it names no CDN.
func TestRedocPinned(t *testing.T) {
	body, err := staticFS.ReadFile("web/static/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	if got := hex.EncodeToString(sum[:]); got != redocSHA256 {
		t.Fatalf("web/static/redoc.standalone.js has SHA-256 %s, want %s: vendor it with vendor-redoc.sh", got, redocSHA256)
	}
	if strings.Contains(string(body), "cdn.redoc.ly") {
		t.Fatal("the bundle loads from cdn.redoc.ly")
	}
	if !strings.Contains(string(body), `const Hw="2.5.4"`) {
		t.Fatal("the bundle is not Redoc 2.5.4")
	}
}
