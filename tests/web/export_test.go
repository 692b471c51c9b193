package web

import (
	"archive/zip"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// TestAccountPageExport: the account page links to GET /api/v1/export, and following the link
// with the session's cookie downloads the signed-in user's notes as a ZIP.
func TestAccountPageExport(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		signUp(t, b, "Erin Export")
		account := b.get("/settings/account")
		want(t, account, http.StatusOK, "Export your data")
		if !strings.Contains(account.Body, `<a class="btn" href="/api/v1/export" download>`) {
			t.Fatalf("the account page has no export link:\n%s", account.Body)
		}
		nb := apitest.Must(t, b.api("POST", "/notebooks", `{"name":"Mine"}`), http.StatusCreated).Str(t, "id")
		note := apitest.Must(t, b.api("POST", "/notes", `{"notebookId":"`+nb+`","content":"mine #erin"}`), http.StatusCreated).Str(t, "id")

		p := b.get("/api/v1/export")
		want(t, p, http.StatusOK)
		if p.Header.Get("Content-Type") != "application/zip" || !strings.HasPrefix(p.Header.Get("Content-Disposition"), "attachment;") {
			t.Fatalf("the link answered %v", p.Header)
		}
		zr, err := zip.NewReader(bytes.NewReader([]byte(p.Body)), int64(len(p.Body)))
		if err != nil {
			t.Fatalf("the download is not a ZIP: %v", err)
		}
		if len(zr.File) != 2 || zr.File[0].Name != "mine-"+nb+"/notebook.yaml" || zr.File[1].Name != "mine-"+nb+"/notes/"+note+".md" {
			t.Fatalf("the download holds %v", zr.File)
		}
	})
}
