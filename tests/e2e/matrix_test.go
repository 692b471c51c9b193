package e2e

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// The one access-matrix runner: every request of a matrix is sent once per principal of newWorld,
// and each cell's status and error code are checked (TestAccessMatrix, TestContentAccessMatrix,
// TestSuggestionAccessMatrix).

// matrixPrincipals are the columns of every access matrix, in report order.
var matrixPrincipals = []string{"none", "garbage", "malformed", "revoked", "rotated", "read", "write", "rw", "ws", "wsRead", "nbTeam", "nbPersonal", "carl", "bob"}

// matrixKeys maps the columns to the keys of newWorld. The first five never authenticate.
func matrixKeys(w *world) map[string]string {
	return map[string]string{
		"none": "", "garbage": "svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB", "malformed": "not-a-key",
		"revoked": w.annRevoked, "rotated": w.annRotatedAway,
		"read": w.annRead, "write": w.annWrite, "rw": w.annRW, "ws": w.annTeam, "wsRead": w.annTeamRead,
		"nbTeam": w.annTeamNB, "nbPersonal": w.annPersonalNB, "carl": w.carlRW, "bob": w.bobRW,
	}
}

// The outcomes a matrix cell expects (matrixRow.want), shared by every matrix.
const (
	ok       = "200"
	created  = "201"
	bad      = "400 VALIDATION_ERROR"
	missing  = "400 MISSING_FIELD"
	scope    = "403 INSUFFICIENT_SCOPE"
	nbMis    = "403 KEY_NOTEBOOK_MISMATCH"
	wsMis    = "403 KEY_WORKSPACE_MISMATCH"
	notMem   = "403 NOT_WORKSPACE_MEMBER"
	nbGone   = "404 NOTEBOOK_NOT_FOUND"
	sgGone   = "404 SUGGESTION_NOT_FOUND"
	resolved = "409 SUGGESTION_ALREADY_RESOLVED"
)

// matrixRow is one request sent by every principal. want gives the expected outcome per column
// ("200", "201", "403 CODE", "404 CODE", "400 CODE"); a column it leaves out must get 401
// UNAUTHENTICATED, so a row that forgets an authenticated principal fails.
type matrixRow struct {
	name   string
	method string
	// req builds the request of one cell. It runs before every cell, so a row whose request
	// consumes its target (DELETE, a move, an approval) gets a fresh one per principal.
	req  func(t *testing.T) matrixReq
	want map[string]string
}

type matrixReq struct {
	path string
	body any
	// probe lists paths read with probeKey before and after the request: a refused request must
	// leave each exactly as it was.
	probe    []string
	probeKey string
	// after, when set, checks the effect of an accepted request.
	after func(t *testing.T, r apitest.Response)
	// header, when set, is sent with the request (Accept, say).
	header map[string]string
	// afterCol, when set, checks what one column's accepted request showed (rows whose answer
	// differs per principal: the feed's data, a replay).
	afterCol func(t *testing.T, col string, r apitest.Response)
}

// fixed is a request that is the same in every cell.
func fixed(path string, body any) func(t *testing.T) matrixReq {
	return func(t *testing.T) matrixReq { return matrixReq{path: path, body: body} }
}

// runKindMatrices runs, on each database, the matrix that build makes for each item kind (note,
// task) in one fixture world.
func runKindMatrices(t *testing.T, build func(s *apitest.Server, w *world, kind string) []matrixRow) {
	t.Helper()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				runMatrix(t, s, w, build(s, w, kind))
			})
		}
	})
}

// runMatrix sends every row with every principal. A refused cell must be a well-formed error
// envelope and leave the row's probes unchanged; an accepted one runs the row's after check.
func runMatrix(t *testing.T, s *apitest.Server, w *world, rows []matrixRow) {
	t.Helper()
	keys := matrixKeys(w)
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			for _, col := range matrixPrincipals {
				want, listed := row.want[col]
				if !listed {
					want = "401 UNAUTHENTICATED"
				}
				req := row.req(t)
				before := make([][]byte, len(req.probe))
				for i, p := range req.probe {
					before[i] = apitest.Must(t, s.Get(t, req.probeKey, p), http.StatusOK).Body
				}
				r := s.Do(t, apitest.Request{Method: row.method, Path: req.path, Key: keys[col], Body: req.body, Header: req.header})
				status, code, _ := strings.Cut(want, " ")
				wantStatus, _ := strconv.Atoi(status)
				if r.Status != wantStatus || (code != "" && r.ErrorCode(t) != code) {
					t.Errorf("%s: got %d %s, want %s: %s", col, r.Status, r.ErrorCode(t), want, r.Body)
					continue
				}
				if code != "" {
					apitest.CheckEnvelope(t, r, wantStatus, code)
					for i, p := range req.probe {
						if after := apitest.Must(t, s.Get(t, req.probeKey, p), http.StatusOK).Body; !bytes.Equal(before[i], after) {
							t.Errorf("%s: refused with %s, but %s changed:\n before %s\n after  %s", col, want, p, before[i], after)
						}
					}
				} else {
					if req.after != nil {
						req.after(t, r)
					}
					if req.afterCol != nil {
						req.afterCol(t, col, r)
					}
				}
			}
		})
	}
}
