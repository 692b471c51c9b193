package e2e

import (
	"net/http"
	"testing"

	"folio/tests/apitest"
)

// TestVersionAccessMatrix sends the version endpoints of notes and tasks with every principal of
// newWorld: reading needs read access to the item, restoring write access; the item's 404 comes
// before the version's.
func TestVersionAccessMatrix(t *testing.T) { runKindMatrices(t, versionMatrix) }

func versionMatrix(s *apitest.Server, w *world, kind string) []matrixRow {
	base := "/" + kind + "s"
	gone := "404 " + notFoundCode(kind)
	vGone := "404 VERSION_NOT_FOUND"
	field := textField(kind)
	type item struct{ ownerKey, notebookID, id, version string }
	personal := &item{ownerKey: w.annRW, notebookID: w.annNB}
	team := &item{ownerKey: w.annRW, notebookID: w.teamNB}
	carls := &item{ownerKey: w.carlRW, notebookID: w.carlNB}
	// ensure creates the item and one version of it (a PATCH of its text) on first use.
	ensure := func(t *testing.T, it *item) *item {
		if it.id == "" {
			it.id = newContent(t, s, it.ownerKey, kind, it.notebookID, "first text")
			apitest.Must(t, patch(t, s, it.ownerKey, base+"/"+it.id, map[string]any{field: "second text"}), http.StatusOK)
			it.version = apitest.Must(t, s.Get(t, it.ownerKey, base+"/"+it.id+"/versions"), http.StatusOK).Data(t)[0]["id"].(string)
		}
		return it
	}
	list := func(it *item) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq { return matrixReq{path: base + "/" + ensure(t, it).id + "/versions"} }
	}
	get := func(it *item) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			ensure(t, it)
			return matrixReq{path: base + "/" + it.id + "/versions/" + it.version}
		}
	}
	restore := func(it *item) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			ensure(t, it)
			p := base + "/" + it.id
			// Each cell starts from other text, so an accepted restore shows.
			apitest.Must(t, patch(t, s, it.ownerKey, p, map[string]any{field: "text before the restore"}), http.StatusOK)
			return matrixReq{path: p + "/versions/" + it.version + "/restore", probe: []string{p, p + "/versions?limit=100"}, probeKey: it.ownerKey,
				after: func(t *testing.T, r apitest.Response) {
					if got := r.Str(t, field); got != "first text" {
						t.Errorf("restored %s %q, want %q", field, got, "first text")
					}
				}}
		}
	}
	// otherVersion names Ann's personal item's version under the Team item.
	otherVersion := func(suffix string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			return matrixReq{path: base + "/" + ensure(t, team).id + "/versions/" + ensure(t, personal).version + suffix}
		}
	}
	readPersonal := map[string]string{"read": ok, "write": scope, "rw": ok, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}
	readTeam := map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}
	readCarls := map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}
	return []matrixRow{
		{name: "list versions of Ann's personal item", method: "GET", req: list(personal), want: readPersonal},
		{name: "list versions of the Team item", method: "GET", req: list(team), want: readTeam},
		{name: "list versions of Carl's item", method: "GET", req: list(carls), want: readCarls},
		{name: "list versions of an unknown item", method: "GET", req: fixed(base+"/zzzzzzzzzzzzzzzzzzzzzzzz/versions", nil),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
		{name: "get a version of Ann's personal item", method: "GET", req: get(personal), want: readPersonal},
		{name: "get a version of the Team item", method: "GET", req: get(team), want: readTeam},
		{name: "get a version of Carl's item", method: "GET", req: get(carls), want: readCarls},
		{name: "get another item's version", method: "GET", req: otherVersion(""),
			want: map[string]string{"read": vGone, "write": scope, "rw": vGone, "ws": vGone, "wsRead": vGone, "nbTeam": vGone, "nbPersonal": gone, "carl": gone, "bob": vGone}},
		{name: "restore a version of Ann's personal item", method: "POST", req: restore(personal),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
		{name: "restore a version of the Team item", method: "POST", req: restore(team),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
		{name: "restore a version of Carl's item", method: "POST", req: restore(carls),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}},
		{name: "restore another item's version", method: "POST", req: otherVersion("/restore"),
			want: map[string]string{"read": scope, "write": vGone, "rw": vGone, "ws": vGone, "wsRead": scope, "nbTeam": vGone, "nbPersonal": gone, "carl": gone, "bob": vGone}},
	}
}
