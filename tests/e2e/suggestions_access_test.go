package e2e

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"folio/tests/apitest"
)

// TestSuggestionAccessMatrix sends every suggestion endpoint (suggest, list, approve, reject) with
// every principal of newWorld, on notes and tasks: Ann's personal item, a Team item and Carl's
// item. CONTRACT.md section 5: suggesting, approving and rejecting need write access to the item;
// an item outside the caller's reach is the kind's 404 on suggest and list, and its suggestions
// are 404 SUGGESTION_NOT_FOUND on approve and reject, before any 409. A refused request changes
// neither the item nor its suggestions.
func TestSuggestionAccessMatrix(t *testing.T) {
	// Parallel: no timing, no process-wide state (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	runKindMatrices(t, suggestionMatrix)
}

func suggestionMatrix(s *apitest.Server, w *world, kind string) []matrixRow {
	gone := "404 " + notFoundCode(kind)
	base := "/" + kind + "s"
	field := textField(kind)
	var seq atomic.Int64
	text := func(what string) string {
		n := seq.Add(1)
		return fmt.Sprintf("%s %d #s%d", what, n, n)
	}

	type target struct {
		id, ownerKey, notebookID string
	}
	personal := &target{ownerKey: w.annRW, notebookID: w.annNB}
	team := &target{ownerKey: w.annRW, notebookID: w.teamNB}
	carls := &target{ownerKey: w.carlRW, notebookID: w.carlNB}
	// path creates the item on first use (rows are built before the subtests run).
	path := func(t *testing.T, tg *target) string {
		if tg.id == "" {
			tg.id = newContent(t, s, tg.ownerKey, kind, tg.notebookID, "original text of the item")
		}
		return base + "/" + tg.id
	}
	// probes: the item and its suggestions, as its owner sees them.
	probes := func(t *testing.T, tg *target) []string {
		p := path(t, tg)
		return []string{p, p + "/suggestions?limit=100"}
	}
	statusOf := func(t *testing.T, tg *target, suggestionID string) string {
		for _, sg := range apitest.Must(t, s.Get(t, tg.ownerKey, path(t, tg)+"/suggestions?limit=100"), http.StatusOK).Data(t) {
			if sg["id"] == suggestionID {
				return sg["status"].(string)
			}
		}
		t.Fatalf("suggestion %s not listed", suggestionID)
		return ""
	}

	suggestOn := func(tg *target) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			p := path(t, tg)
			proposed := text("proposal")
			return matrixReq{path: p + "/suggest", body: map[string]any{"content": proposed, "rationale": "clearer"}, probe: probes(t, tg), probeKey: tg.ownerKey,
				after: func(t *testing.T, r apitest.Response) {
					sg := r.JSON(t)
					item := apitest.Must(t, s.Get(t, tg.ownerKey, p), http.StatusOK).JSON(t)
					if sg["status"] != "PENDING" || sg["suggestedContent"] != proposed || sg["originalContent"] != item[field] {
						t.Errorf("suggestion %v on item %v", sg, item)
					}
					if item[field] == proposed {
						t.Errorf("suggesting changed the item")
					}
					if got := statusOf(t, tg, sg["id"].(string)); got != "PENDING" {
						t.Errorf("new suggestion listed as %s", got)
					}
				}}
		}
	}
	// resolve sends approve or reject to a new PENDING suggestion (made by the item's owner) per cell.
	resolve := func(tg *target, verb string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			p := path(t, tg)
			proposed := text("to " + verb)
			id := apitest.Must(t, s.Post(t, tg.ownerKey, p+"/suggest", map[string]any{"content": proposed}), http.StatusCreated).Str(t, "id")
			before := apitest.Must(t, s.Get(t, tg.ownerKey, p), http.StatusOK).Str(t, field)
			return matrixReq{path: "/suggestions/" + id + "/" + verb, probe: probes(t, tg), probeKey: tg.ownerKey,
				after: func(t *testing.T, r apitest.Response) {
					want, wantBody := before, `{"ok":true,"status":"REJECTED"}`
					if verb == "approve" {
						want, wantBody = proposed, `{"ok":true,"status":"APPROVED"}`
					}
					if string(r.Body) != wantBody {
						t.Errorf("%s body %s", verb, r.Body)
					}
					if got := apitest.Must(t, s.Get(t, tg.ownerKey, p), http.StatusOK).Str(t, field); got != want {
						t.Errorf("after %s the item holds %q, want %q", verb, got, want)
					}
					if got, want := statusOf(t, tg, id), map[string]string{"approve": "APPROVED", "reject": "REJECTED"}[verb]; got != want {
						t.Errorf("after %s the suggestion is %s", verb, got)
					}
				}}
		}
	}
	// onResolved sends verb to a suggestion already resolved (approved, rejected or superseded).
	onResolved := func(tg *target, how, verb string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			p := path(t, tg)
			id := apitest.Must(t, s.Post(t, tg.ownerKey, p+"/suggest", map[string]any{"content": text("old")}), http.StatusCreated).Str(t, "id")
			switch how {
			case "approve", "reject":
				apitest.Must(t, s.Post(t, tg.ownerKey, "/suggestions/"+id+"/"+how, nil), http.StatusOK)
			case "supersede":
				apitest.Must(t, s.Post(t, tg.ownerKey, p+"/suggest", map[string]any{"content": text("newer")}), http.StatusCreated)
			}
			return matrixReq{path: "/suggestions/" + id + "/" + verb, probe: probes(t, tg), probeKey: tg.ownerKey}
		}
	}
	list := func(tg *target, query string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq { return matrixReq{path: path(t, tg) + "/suggestions" + query} }
	}
	// ofDeleted returns a suggestion (PENDING) of an item deleted since, or the deleted item's path.
	ofDeleted := func(suffix string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			p := base + "/" + newContent(t, s, w.annRW, kind, w.teamNB, "doomed")
			id := apitest.Must(t, s.Post(t, w.annRW, p+"/suggest", map[string]any{"content": "x"}), http.StatusCreated).Str(t, "id")
			apitest.Must(t, s.Delete(t, w.annRW, p), http.StatusOK)
			if suffix == "/suggest" || suffix == "/suggestions" {
				return matrixReq{path: p + suffix, body: map[string]any{"content": "y"}}
			}
			return matrixReq{path: "/suggestions/" + id + suffix}
		}
	}
	unknown := "zzzzzzzzzzzzzzzzzzzzzzzz"

	rows := []matrixRow{
		{name: "suggest on Ann's personal item", method: "POST", req: suggestOn(personal),
			want: map[string]string{"read": scope, "write": created, "rw": created, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": created, "carl": gone, "bob": gone}},
		{name: "suggest on the Team item", method: "POST", req: suggestOn(team),
			want: map[string]string{"read": scope, "write": created, "rw": created, "ws": created, "wsRead": scope, "nbTeam": created, "nbPersonal": gone, "carl": gone, "bob": created}},
		{name: "suggest on Carl's item", method: "POST", req: suggestOn(carls),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": created, "bob": gone}},
		{name: "suggest on an unknown item", method: "POST", req: fixed(base+"/"+unknown+"/suggest", map[string]any{"content": "x"}),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
		{name: "suggest on a deleted item", method: "POST", req: ofDeleted("/suggest"),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
		{name: "suggest without content on Carl's item (shape before access)", method: "POST", req: func(t *testing.T) matrixReq {
			return matrixReq{path: path(t, carls) + "/suggest", body: map[string]any{"rationale": "r"}, probe: probes(t, carls), probeKey: carls.ownerKey}
		}, want: map[string]string{"read": scope, "write": missing, "rw": missing, "ws": missing, "wsRead": scope, "nbTeam": missing, "nbPersonal": missing, "carl": missing, "bob": missing}},
		{name: "list suggestions of Ann's personal item", method: "GET", req: list(personal, ""),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
		{name: "list suggestions of the Team item", method: "GET", req: list(team, ""),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
		{name: "list suggestions of Carl's item", method: "GET", req: list(carls, ""),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}},
		{name: "list suggestions of Carl's item with a bad limit (shape before access)", method: "GET", req: list(carls, "?limit=0"),
			want: map[string]string{"read": bad, "write": scope, "rw": bad, "ws": bad, "wsRead": bad, "nbTeam": bad, "nbPersonal": bad, "carl": bad, "bob": bad}},
		{name: "list suggestions of an unknown item", method: "GET", req: fixed(base+"/"+unknown+"/suggestions", nil),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
		{name: "list suggestions of a deleted item", method: "GET", req: ofDeleted("/suggestions"),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
	}
	// one reads a new PENDING suggestion (made by the item's owner) of the item: GET /suggestions/:id.
	one := func(tg *target) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			p := path(t, tg)
			id := apitest.Must(t, s.Post(t, tg.ownerKey, p+"/suggest", map[string]any{"content": text("to read")}), http.StatusCreated).Str(t, "id")
			return matrixReq{path: "/suggestions/" + id, after: func(t *testing.T, r apitest.Response) {
				if got := r.JSON(t); got["id"] != id || got["itemId"] != tg.id || got["itemKind"] != kind || got["notebookId"] != tg.notebookID {
					t.Errorf("GET /suggestions/%s: %v", id, got)
				}
			}}
		}
	}
	// inbox reads GET /suggestions with query; every suggestion listed must be one the principal
	// may read, which TestSuggestionInbox checks item by item.
	inbox := func(query string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			path(t, personal)
			path(t, team)
			path(t, carls)
			return matrixReq{path: "/suggestions?itemKind=" + kind + query}
		}
	}
	rows = append(rows,
		matrixRow{name: "read a suggestion on Ann's personal item", method: "GET", req: one(personal),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": sgGone, "wsRead": sgGone, "nbTeam": sgGone, "nbPersonal": ok, "carl": sgGone, "bob": sgGone}},
		matrixRow{name: "read a suggestion on the Team item", method: "GET", req: one(team),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": sgGone, "carl": sgGone, "bob": ok}},
		matrixRow{name: "read a suggestion on Carl's item", method: "GET", req: one(carls),
			want: map[string]string{"read": sgGone, "write": scope, "rw": sgGone, "ws": sgGone, "wsRead": sgGone, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": ok, "bob": sgGone}},
		matrixRow{name: "read a suggestion of a deleted item", method: "GET", req: ofDeleted(""),
			want: map[string]string{"read": sgGone, "write": scope, "rw": sgGone, "ws": sgGone, "wsRead": sgGone, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": sgGone, "bob": sgGone}},
		matrixRow{name: "read an unknown suggestion", method: "GET", req: fixed("/suggestions/"+unknown, nil),
			want: map[string]string{"read": sgGone, "write": scope, "rw": sgGone, "ws": sgGone, "wsRead": sgGone, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": sgGone, "bob": sgGone}},
		matrixRow{name: "read a malformed suggestion id", method: "GET", req: fixed("/suggestions/NOT_AN_ID", nil),
			want: map[string]string{"read": sgGone, "write": scope, "rw": sgGone, "ws": sgGone, "wsRead": sgGone, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": sgGone, "bob": sgGone}},
		matrixRow{name: "inbox", method: "GET", req: inbox(""),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
		matrixRow{name: "inbox of the Team notebook", method: "GET", req: inbox("&notebookId=" + w.teamNB),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": nbMis, "carl": nbGone, "bob": ok}},
		matrixRow{name: "inbox of Ann's personal notebook", method: "GET", req: inbox("&notebookId=" + w.annNB),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": wsMis, "wsRead": wsMis, "nbTeam": nbMis, "nbPersonal": ok, "carl": nbGone, "bob": nbGone}},
		matrixRow{name: "inbox of Carl's notebook", method: "GET", req: inbox("&notebookId=" + w.carlNB),
			want: map[string]string{"read": nbGone, "write": scope, "rw": nbGone, "ws": nbGone, "wsRead": nbGone, "nbTeam": nbMis, "nbPersonal": nbMis, "carl": ok, "bob": nbGone}},
		matrixRow{name: "inbox with a bad status (shape before access)", method: "GET", req: inbox("&status=pending&notebookId=" + w.carlNB),
			want: map[string]string{"read": bad, "write": scope, "rw": bad, "ws": bad, "wsRead": bad, "nbTeam": bad, "nbPersonal": bad, "carl": bad, "bob": bad}},
	)
	for _, verb := range []string{"approve", "reject"} {
		rows = append(rows,
			matrixRow{name: verb + " a suggestion on Ann's personal item", method: "POST", req: resolve(personal, verb),
				want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": sgGone, "wsRead": scope, "nbTeam": sgGone, "nbPersonal": ok, "carl": sgGone, "bob": sgGone}},
			matrixRow{name: verb + " a suggestion on the Team item", method: "POST", req: resolve(team, verb),
				want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": ok, "nbPersonal": sgGone, "carl": sgGone, "bob": ok}},
			matrixRow{name: verb + " a suggestion on Carl's item", method: "POST", req: resolve(carls, verb),
				want: map[string]string{"read": scope, "write": sgGone, "rw": sgGone, "ws": sgGone, "wsRead": scope, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": ok, "bob": sgGone}},
			matrixRow{name: verb + " an approved suggestion on Ann's personal item", method: "POST", req: onResolved(personal, "approve", verb),
				want: map[string]string{"read": scope, "write": resolved, "rw": resolved, "ws": sgGone, "wsRead": scope, "nbTeam": sgGone, "nbPersonal": resolved, "carl": sgGone, "bob": sgGone}},
			matrixRow{name: verb + " a rejected suggestion on the Team item", method: "POST", req: onResolved(team, "reject", verb),
				want: map[string]string{"read": scope, "write": resolved, "rw": resolved, "ws": resolved, "wsRead": scope, "nbTeam": resolved, "nbPersonal": sgGone, "carl": sgGone, "bob": resolved}},
			matrixRow{name: verb + " a superseded suggestion on Carl's item", method: "POST", req: onResolved(carls, "supersede", verb),
				want: map[string]string{"read": scope, "write": sgGone, "rw": sgGone, "ws": sgGone, "wsRead": scope, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": resolved, "bob": sgGone}},
			matrixRow{name: verb + " a suggestion of a deleted item", method: "POST", req: ofDeleted("/" + verb),
				want: map[string]string{"read": scope, "write": sgGone, "rw": sgGone, "ws": sgGone, "wsRead": scope, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": sgGone, "bob": sgGone}},
			matrixRow{name: verb + " an unknown suggestion", method: "POST", req: fixed("/suggestions/"+unknown+"/"+verb, nil),
				want: map[string]string{"read": scope, "write": sgGone, "rw": sgGone, "ws": sgGone, "wsRead": scope, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": sgGone, "bob": sgGone}},
			matrixRow{name: verb + " a malformed suggestion id", method: "POST", req: fixed("/suggestions/NOT_AN_ID/"+verb, nil),
				want: map[string]string{"read": scope, "write": sgGone, "rw": sgGone, "ws": sgGone, "wsRead": scope, "nbTeam": sgGone, "nbPersonal": sgGone, "carl": sgGone, "bob": sgGone}},
		)
	}
	return rows
}

// TestSuggestionOfMovedItem: a suggestion follows its item. Once a Team note moves to Ann's
// personal notebook, Team's keys and Bob no longer reach its suggestions (404), and Ann's
// personal notebook key does.
func TestSuggestionOfMovedItem(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				p := "/" + kind + "s/" + newContent(t, s, w.annRW, kind, w.teamNB, "moving")
				first := apitest.Must(t, s.Post(t, w.bobRW, p+"/suggest", map[string]any{"content": "by Bob"}), http.StatusCreated).Str(t, "id")
				apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{"notebookId": w.annNB}), http.StatusOK)
				for _, key := range []string{w.bobRW, w.annTeam, w.annTeamNB} {
					wantErr(t, s.Post(t, key, "/suggestions/"+first+"/approve", nil), http.StatusNotFound, "SUGGESTION_NOT_FOUND")
					wantErr(t, s.Get(t, key, p+"/suggestions"), http.StatusNotFound, notFoundCode(kind))
					wantErr(t, s.Post(t, key, p+"/suggest", map[string]any{"content": "again"}), http.StatusNotFound, notFoundCode(kind))
				}
				apitest.Must(t, s.Post(t, w.annPersonalNB, "/suggestions/"+first+"/reject", nil), http.StatusOK)
				if got := listIDs(t, s, w.annPersonalNB, p+"/suggestions"); len(got) != 1 || got[0] != first {
					t.Fatalf("suggestions after the move: %v", got)
				}
			})
		}
	})
}
