package webhooks_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"folio/modules/webhooks"
)

// verifyWithNPM asks the npm package standardwebhooks, an implementation that is not folio's,
// whether it accepts the delivery; it returns its verdict and output. The package is pinned in
// testdata/verify/package-lock.json and installed with npm ci.
func verifyWithNPM(t *testing.T, secret string, headers map[string]string, body []byte) (bool, string) {
	t.Helper()
	in, err := json.Marshal(map[string]any{"secret": secret, "headers": headers, "body": string(body)})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "verify.mjs")
	cmd.Dir = "testdata/verify"
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("node: %v", err)
	}
	return err == nil, strings.TrimSpace(string(out))
}

func TestSignaturesVerifyWithStandardWebhooks(t *testing.T) {
	install := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = "testdata/verify"
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci (Node.js and npm are needed, as for tests/client): %v\n%s", err, out)
	}
	secret := webhooks.NewSecret()
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if !strings.HasPrefix(secret, "whsec_") || err != nil || len(raw) != 32 {
		t.Fatalf("secret %q: whsec_ and base64 of 32 bytes (%v, %d bytes)", secret, err, len(raw))
	}
	body := []byte(`{"id":"evt_0000000000000000042","type":"note.created","data":{"content":"Ünïcode ✓ \"quoted\""}}`)
	headers, err := webhooks.Headers(secret, "evt_0000000000000000042", time.Now(), body)
	if err != nil {
		t.Fatal(err)
	}
	if ok, out := verifyWithNPM(t, secret, headers, body); !ok {
		t.Fatalf("standardwebhooks refused folio's signature: %s (headers %v)", out, headers)
	}
	// The independent check bites: a changed body, another secret, another id are refused.
	tampered := bytes.Replace(body, []byte("42"), []byte("43"), 1)
	if ok, _ := verifyWithNPM(t, secret, headers, tampered); ok {
		t.Fatal("a changed body verified")
	}
	if ok, _ := verifyWithNPM(t, webhooks.NewSecret(), headers, body); ok {
		t.Fatal("another secret verified")
	}
	other := map[string]string{"webhook-id": "evt_0000000000000000043", "webhook-timestamp": headers["webhook-timestamp"], "webhook-signature": headers["webhook-signature"]}
	if ok, _ := verifyWithNPM(t, secret, other, body); ok {
		t.Fatal("another webhook-id verified")
	}
	if _, err := webhooks.Headers("not-a-secret", "x", time.Now(), body); err == nil {
		t.Fatal("a malformed secret signed")
	}
}
