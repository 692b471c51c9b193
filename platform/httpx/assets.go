package httpx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/gin-gonic/gin"

	"folio/platform/apierr"
)

// Assets are static files embedded in the binary (stylesheets, scripts, icons of the settings UI
// and of the docs page), served by name under one URL path. Pages link to them through URL, which
// adds the file's version (the first 12 hex digits of its SHA-256) as a query, so a browser may
// keep a file for a day and still gets a changed one at once.
//
// A file's bytes are read from fsys on each request (one copy, garbage once sent), not kept: an
// embedded file is already in the binary, and a copy kept on the heap (the docs page's 1.1 MB
// script) was long-lived memory that the collector let the heap grow twice over
// (docs/performance.md, Memory). Browsers keep a file for a day, so a file is rarely asked for.
type Assets struct {
	base  string
	fsys  fs.FS
	dir   string
	files map[string]asset
}

type asset struct {
	contentType string
	version     string
}

// LoadAssets reads every file of dir in fsys; base is the URL path they are served under (with
// its trailing slash, e.g. "/assets/").
func LoadAssets(fsys fs.FS, dir, base string) (Assets, error) {
	a := Assets{base: base, fsys: fsys, dir: dir, files: map[string]asset{}}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return Assets{}, err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return Assets{}, err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(e.Name()))
		if ct == "" {
			ct = "application/octet-stream"
		}
		a.files[e.Name()] = asset{contentType: ct, version: hex.EncodeToString(sum[:6])}
	}
	return a, nil
}

// URL returns the versioned URL of the named file (an error for a name that is not there, so a
// template naming a missing file fails at start).
func (a Assets) URL(name string) (string, error) {
	f, ok := a.files[name]
	if !ok {
		return "", fmt.Errorf("no asset %q", name)
	}
	return a.base + name + "?v=" + f.version, nil
}

// Serve answers GET base+":name": the file with its content type, nosniff, a day of caching and
// its version as ETag (304 to a matching If-None-Match); 404 ROUTE_NOT_FOUND for any other name.
func (a Assets) Serve(c *gin.Context) {
	f, ok := a.files[c.Param("name")]
	if !ok {
		WriteError(c, apierr.ErrRouteNotFound)
		return
	}
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("ETag", `"`+f.version+`"`)
	if c.GetHeader("If-None-Match") == `"`+f.version+`"` {
		c.Status(http.StatusNotModified)
		return
	}
	body, err := fs.ReadFile(a.fsys, path.Join(a.dir, c.Param("name")))
	if err != nil {
		WriteError(c, err)
		return
	}
	c.Data(http.StatusOK, f.contentType, body)
}
