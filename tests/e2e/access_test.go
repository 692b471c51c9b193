package e2e

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"

	"folio/tests/apitest"
	"folio/tests/ziptest"
)

// TestAccessMatrix sends every endpoint of the foundation with every kind of principal and checks
// the status and code of each cell. Keys that do not authenticate get 401 everywhere; the other
// columns are spelled out per row.
func TestAccessMatrix(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		dan := s.NewUser(t, "Dan Temp")
		annHook := apitest.Must(t, s.Post(t, w.annRW, "/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}), http.StatusCreated).Str(t, "id")
		const hookGone = "404 WEBHOOK_NOT_FOUND"
		var annFeed string // the feed the delete row made last
		everyone := map[string]string{}
		for _, col := range matrixPrincipals {
			everyone[col] = ok
		}
		rows := []matrixRow{
			// The OpenAPI document needs no authentication: every principal, even no key or a bad
			// one, gets it (CONTRACT.md section 10).
			{name: "the OpenAPI document", method: "GET", req: fixed("/openapi.json", nil), want: everyone},
			// Nor does the docs page that renders it (outside /api/v1), nor its assets; a key or
			// cookie that does not authenticate is ignored there.
			{name: "the docs page", method: "GET", req: fixed("//docs", nil), want: everyone},
			{name: "the docs page's script", method: "GET", req: fixed("//docs/assets/apiref.js", nil), want: everyone},
			{name: "export", method: "GET", req: func(t *testing.T) matrixReq {
				return matrixReq{path: "/export", after: func(t *testing.T, r apitest.Response) {
					if r.Header.Get("Content-Type") != "application/zip" || !bytes.HasPrefix(r.Body, []byte("PK")) {
						t.Errorf("GET /export: %s, %.20q", r.Header.Get("Content-Type"), r.Body)
					}
				}}
			}, want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			// The import (CONTRACT.md section 24) writes: into a notebook named, with that
			// notebook's codes; without one it makes notebooks, as POST /notebooks does.
			{name: "import into Ann's personal notebook", method: "POST", req: importReq(t, "/import?notebookId="+w.annNB, w.annRW),
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": wsMis, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": created, "carl": nbGone, "bob": nbGone}},
			{name: "import into new notebooks", method: "POST", req: importReq(t, "/import", w.annRW),
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": created, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": created, "bob": created}},
			{name: "list notebooks", method: "GET", req: fixed("/notebooks", nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "get personal notebook", method: "GET", req: fixed("/notebooks/"+w.annNB, nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": wsMis, "wsRead": wsMis, "nbTeam": nbMis, "nbPersonal": ok, "carl": nbGone, "bob": nbGone}},
			{name: "get workspace notebook", method: "GET", req: fixed("/notebooks/"+w.teamNB, nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": nbMis, "carl": nbGone, "bob": ok}},
			{name: "create notebook without workspace", method: "POST", req: fixed("/notebooks", map[string]any{"name": "n"}),
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": created, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": created, "bob": created}},
			{name: "create notebook in Team", method: "POST", req: fixed("/notebooks", map[string]any{"name": "n", "workspaceId": w.team}),
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": created, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": notMem, "bob": created}},
			{name: "create notebook in Carl's workspace", method: "POST", req: fixed("/notebooks", map[string]any{"name": "n", "workspaceId": w.carlWS}),
				want: map[string]string{"read": scope, "write": notMem, "rw": notMem, "ws": wsMis, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": created, "bob": notMem}},
			{name: "list workspaces", method: "GET", req: fixed("/workspaces", nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "create workspace", method: "POST", req: fixed("/workspaces", map[string]any{"name": "w"}),
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": scope, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": created, "bob": created}},
			{name: "invite to Team (already a member)", method: "POST", req: fixed("/workspaces/"+w.team+"/members", map[string]any{"email": w.bob.Email}),
				want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": notMem, "bob": scope}},
			{name: "invite to Carl's workspace", method: "POST", req: fixed("/workspaces/"+w.carlWS+"/members", map[string]any{"email": w.carl.Email}),
				want: map[string]string{"read": scope, "write": notMem, "rw": notMem, "ws": wsMis, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": ok, "bob": notMem}},
			{name: "remove a member of Team", method: "DELETE", req: func(t *testing.T) matrixReq {
				s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": dan.Email})
				return matrixReq{path: "/workspaces/" + w.team + "/members/" + dan.ID}
			}, want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": notMem, "bob": scope}},
			{name: "audit log", method: "GET", req: fixed("/audit-log", nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			// The feed's visibility per principal is TestEventsVisibility (the side channel test).
			{name: "events", method: "GET", req: fixed("/events?types=note.created", nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "list webhooks", method: "GET", req: fixed("/webhooks", nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "create webhook", method: "POST", req: fixed("/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}),
				want: map[string]string{"read": scope, "write": scope, "rw": created, "ws": created, "wsRead": scope, "nbTeam": created, "nbPersonal": created, "carl": created, "bob": created}},
			{name: "get Ann's unrestricted webhook", method: "GET", req: fixed("/webhooks/"+annHook, nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": hookGone, "wsRead": hookGone, "nbTeam": hookGone, "nbPersonal": hookGone, "carl": hookGone, "bob": hookGone}},
			{name: "deliveries of Ann's unrestricted webhook", method: "GET", req: fixed("/webhooks/"+annHook+"/deliveries", nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": hookGone, "wsRead": hookGone, "nbTeam": hookGone, "nbPersonal": hookGone, "carl": hookGone, "bob": hookGone}},
			{name: "delete Ann's unrestricted webhook", method: "DELETE", req: func(t *testing.T) matrixReq {
				id := apitest.Must(t, s.Post(t, w.annRW, "/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}), http.StatusCreated).Str(t, "id")
				return matrixReq{path: "/webhooks/" + id, probe: []string{"/webhooks/" + id}, probeKey: w.annRW}
			}, want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": hookGone, "wsRead": scope, "nbTeam": hookGone, "nbPersonal": hookGone, "carl": hookGone, "bob": hookGone}},
			// Calendar feeds are managed like webhooks (CONTRACT.md sections 20 and 21): a feed
			// reads, so making one needs read and write scope; a restricted key manages only the
			// feeds made under its own restriction. What each principal's feed shows is
			// TestCalendarFeedMatrix. Each accepted create is deleted again, to stay under the
			// limit of 10 per user.
			{name: "list calendar feeds", method: "GET", req: fixed("/calendar-feeds", nil),
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "create calendar feed", method: "POST", req: feedCreate(s, w, map[string]any{"name": "f"}),
				want: map[string]string{"read": scope, "write": scope, "rw": created, "ws": created, "wsRead": scope, "nbTeam": created, "nbPersonal": created, "carl": created, "bob": created}},
			{name: "create calendar feed of Team Notes", method: "POST", req: feedCreate(s, w, map[string]any{"name": "f", "notebookId": w.teamNB}),
				want: map[string]string{"read": scope, "write": scope, "rw": created, "ws": created, "wsRead": scope, "nbTeam": created, "nbPersonal": nbMis, "carl": nbGone, "bob": created}},
			{name: "create calendar feed of Ann's personal notebook", method: "POST", req: feedCreate(s, w, map[string]any{"name": "f", "notebookId": w.annNB}),
				want: map[string]string{"read": scope, "write": scope, "rw": created, "ws": wsMis, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": created, "carl": nbGone, "bob": nbGone}},
			{name: "delete Ann's unrestricted calendar feed", method: "DELETE", req: func(t *testing.T) matrixReq {
				if annFeed != "" { // the previous cell's, when it was refused
					s.Delete(t, w.annRW, "/calendar-feeds/"+annFeed)
				}
				annFeed = apitest.Must(t, s.Post(t, w.annRW, "/calendar-feeds", map[string]any{"name": "f"}), http.StatusCreated).Str(t, "id")
				return matrixReq{path: "/calendar-feeds/" + annFeed, probe: []string{"/calendar-feeds"}, probeKey: w.annRW}
			}, want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": feedGone404, "wsRead": scope, "nbTeam": feedGone404, "nbPersonal": feedGone404, "carl": feedGone404, "bob": feedGone404}},
			{name: "events with a bad after", method: "GET", req: fixed("/events?after=x", nil),
				want: map[string]string{"read": bad, "write": scope, "rw": bad, "ws": bad, "wsRead": bad, "nbTeam": bad, "nbPersonal": bad, "carl": bad, "bob": bad}},
		}
		// The access rule at every use (CONTRACT.md section 20): the feed shows no data of what a
		// principal cannot read now, and a replay is served only to the credential that made it.
		// Deliveries have their own matrix (TestDeliveryMatrix: asynchronous, one webhook per
		// principal).
		gone := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "quokkamatrix", "notebookId": w.teamNB}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+gone), http.StatusOK)
		kept := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "kept in Team", "notebookId": w.teamNB}), http.StatusCreated).Str(t, "id")
		replayBody := map[string]any{"content": "Ann's replayable note", "notebookId": w.annNB}
		stored := apitest.Must(t, withKey(t, s, w.annRW, http.MethodPost, "/notes", "matrix-replay", replayBody), http.StatusCreated).Str(t, "id")
		seesTeam := map[string]bool{"read": true, "rw": true, "ws": true, "wsRead": true, "nbTeam": true}
		rows = append(rows, []matrixRow{
			{name: "the feed after a delete", method: "GET", req: func(t *testing.T) matrixReq {
				return matrixReq{path: "/events?types=note.created&limit=100", afterCol: func(t *testing.T, col string, r apitest.Response) {
					if strings.Contains(string(r.Body), "quokkamatrix") {
						t.Errorf("%s: the feed still shows a deleted note's content", col)
					}
					shown := false
					for _, e := range r.Data(t) {
						if e["resourceId"] == gone && e["data"] != nil {
							t.Errorf("%s: the deleted note's creation has data %v, want null", col, e["data"])
						}
						if e["resourceId"] == kept && e["data"] != nil {
							shown = true
						}
					}
					if shown != seesTeam[col] {
						t.Errorf("%s: the live Team note's data shown %v, want %v", col, shown, seesTeam[col])
					}
				}}
			}, want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "a replay of Ann's create", method: "POST", req: func(t *testing.T) matrixReq {
				return matrixReq{path: "/notes", body: replayBody, header: map[string]string{"Idempotency-Key": "matrix-replay"},
					afterCol: func(t *testing.T, col string, r apitest.Response) {
						replayed := r.Header.Get("Idempotent-Replayed") == "true"
						if replayed != (col == "rw") || (r.Str(t, "id") == stored) != (col == "rw") {
							t.Errorf("%s: replayed %v, id %s (the stored answer is %s): only the key that sent it gets it", col, replayed, r.Str(t, "id"), stored)
						}
					}}
			}, want: map[string]string{"read": scope, "write": created, "rw": created, "ws": wsMis, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": created, "carl": nbGone, "bob": nbGone}},
		}...)
		// The Focus view shows each principal what its lists show (TestFocusRestriction compares
		// it with GET /notes and GET /tasks).
		inFocus := map[string]string{}
		for _, it := range []struct{ key, nb, label string }{{w.annRW, w.annNB, "ann"}, {w.annRW, w.teamNB, "team"}, {w.carlRW, w.carlNB, "carl"}} {
			id := focusItems{t, s, it.key, it.nb}.task("focus "+it.label, map[string]any{"targetAt": "2025-05-05T08:00:00Z", "dueAt": "2025-05-01"})
			inFocus[id] = it.label
		}
		seesInFocus := map[string]string{"read": "ann team", "rw": "ann team", "ws": "team", "wsRead": "team", "nbTeam": "team",
			"nbPersonal": "ann", "carl": "carl", "bob": "team"}
		rows = append(rows, []matrixRow{
			{name: "focus", method: "GET", req: func(t *testing.T) matrixReq {
				return matrixReq{path: "/focus?date=2025-05-05&tz=Europe/Berlin", afterCol: func(t *testing.T, col string, r apitest.Response) {
					for _, list := range []string{"targeted", "due"} {
						var seen []string
						for _, e := range r.JSON(t)[list].([]any) {
							seen = append(seen, inFocus[e.(map[string]any)["item"].(map[string]any)["id"].(string)])
						}
						if slices.Sort(seen); strings.Join(seen, " ") != seesInFocus[col] {
							t.Errorf("%s: %s shows %v, want %s", col, list, seen, seesInFocus[col])
						}
					}
				}}
			}, want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "focus with an unknown zone", method: "GET", req: fixed("/focus?tz=Mars/Olympus_Mons", nil),
				want: map[string]string{"read": bad, "write": scope, "rw": bad, "ws": bad, "wsRead": bad, "nbTeam": bad, "nbPersonal": bad, "carl": bad, "bob": bad}},
			{name: "focus with a bad date", method: "GET", req: fixed("/focus?date=2025-02-29", nil),
				want: map[string]string{"read": bad, "write": scope, "rw": bad, "ws": bad, "wsRead": bad, "nbTeam": bad, "nbPersonal": bad, "carl": bad, "bob": bad}},
		}...)
		runMatrix(t, s, w, rows)
	})
}

// importReq is an import of one note to path; a refused one must leave probeKey's notebooks and
// notes as they were.
func importReq(t *testing.T, path, probeKey string) func(t *testing.T) matrixReq {
	one := ziptest.Zip(t, ziptest.Entry{Name: "Imported/one.md", Body: []byte("imported by the matrix")})
	return func(t *testing.T) matrixReq {
		return matrixReq{path: path, body: one, header: map[string]string{"Content-Type": "application/zip"},
			probe: []string{"/notebooks?limit=100", "/notes?limit=100"}, probeKey: probeKey}
	}
}

// TestVisibility checks what each kind of principal sees in the lists, not just that it may list.
func TestVisibility(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		ids := func(key, path string) []string {
			var out []string
			for _, item := range apitest.Must(t, s.Get(t, key, path), http.StatusOK).Data(t) {
				out = append(out, item["id"].(string))
			}
			return out
		}
		for _, tc := range []struct {
			name, key, path string
			want            []string
		}{
			{"unrestricted key sees personal and workspace notebooks", w.annRW, "/notebooks", []string{w.teamNB, w.annNB}},
			{"workspace key sees its workspace's notebooks", w.annTeam, "/notebooks", []string{w.teamNB}},
			{"notebook key sees its notebook", w.annTeamNB, "/notebooks", []string{w.teamNB}},
			{"personal notebook key sees its notebook", w.annPersonalNB, "/notebooks", []string{w.annNB}},
			{"member sees workspace notebooks, not the owner's personal ones", w.bobRW, "/notebooks", []string{w.teamNB}},
			{"outsider sees only their own", w.carlRW, "/notebooks", []string{w.carlNB}},
			{"unrestricted key sees every workspace of its user", w.annRW, "/workspaces", []string{w.team}},
			{"workspace key sees its workspace", w.annTeam, "/workspaces", []string{w.team}},
			{"notebook key sees no workspace", w.annTeamNB, "/workspaces", nil},
			{"member sees the workspace", w.bobRW, "/workspaces", []string{w.team}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := ids(tc.key, tc.path)
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			})
		}
	})
}

// feedGone404 is the refusal of a calendar feed outside the caller's reach.
const feedGone404 = "404 CALENDAR_FEED_NOT_FOUND"

// feedCreate is a matrix request that creates a calendar feed; an accepted one is deleted again
// with the same key (a user has at most 10 feeds).
func feedCreate(s *apitest.Server, w *world, body map[string]any) func(t *testing.T) matrixReq {
	keys := matrixKeys(w)
	return func(t *testing.T) matrixReq {
		return matrixReq{path: "/calendar-feeds", body: body, afterCol: func(t *testing.T, col string, r apitest.Response) {
			apitest.Must(t, s.Delete(t, keys[col], "/calendar-feeds/"+r.Str(t, "id")), http.StatusOK)
		}}
	}
}
