package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"folio/modules/webhooks"
)

func TestPublic(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "127.1.2.3", "::1", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254",
		"fe80::1", "fc00::1", "fd12:3456::1", "0.0.0.0", "::", "100.64.0.1", "224.0.0.1", "ff02::1", "::ffff:127.0.0.1",
		"::ffff:10.0.0.1", "198.18.0.1", "255.255.255.255", "64:ff9b::7f00:1"} {
		if webhooks.Public(netip.MustParseAddr(a)) {
			t.Errorf("%s is public?", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"} {
		if !webhooks.Public(netip.MustParseAddr(a)) {
			t.Errorf("%s is not public?", a)
		}
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	strict := webhooks.Guard{}
	for _, u := range []string{"http://93.184.216.34/hook", "https://127.0.0.1/hook", "https://[::1]/hook", "https://10.1.2.3/",
		"https://169.254.169.254/latest/meta-data", "https://[fd00::1]/", "https://localhost/hook", "ftp://93.184.216.34/",
		"https://user:pw@93.184.216.34/", "/relative", "https://", "https://[::ffff:127.0.0.1]/"} {
		if err := strict.CheckURL(ctx, u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	if err := strict.CheckURL(ctx, "https://93.184.216.34/hook"); err != nil {
		t.Errorf("a public https URL refused: %v", err)
	}
	open := webhooks.Guard{AllowInsecure: true, AllowPrivate: true}
	if err := open.CheckURL(ctx, "http://127.0.0.1:8080/hook"); err != nil {
		t.Errorf("with both FOLIO_WEBHOOK_ALLOW_* settings a local http URL is allowed: %v", err)
	}
	if err := (webhooks.Guard{AllowPrivate: true}).CheckURL(ctx, "http://127.0.0.1/"); err == nil {
		t.Error("http accepted without AllowInsecure")
	}
}

// TestDialIsGuarded: the address is checked again when the connection is made, whatever the URL
// check said (DNS rebinding: a name that now resolves to loopback), and redirects are not followed.
func TestDialIsGuarded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://93.184.216.34/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	_, err := webhooks.Guard{AllowInsecure: true}.Client().Get(srv.URL) // 127.0.0.1: refused at dial time
	var opErr *net.OpError
	if !errors.Is(err, webhooks.ErrBlocked) && !errors.As(err, &opErr) {
		t.Fatalf("a delivery reached loopback: %v", err)
	}
	if !errors.Is(err, webhooks.ErrBlocked) {
		t.Fatalf("refused, but not by the guard: %v", err)
	}
	resp, err := webhooks.Guard{AllowInsecure: true, AllowPrivate: true}.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("a redirect was followed: %d", resp.StatusCode)
	}
}
