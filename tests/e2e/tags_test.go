package e2e

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"folio/tests/apitest"
)

// tagView is a tag as an item shows it.
type tagView struct{ ID, Name, Kind string }

// itemTags returns the tags of an item response, in the order given.
func itemTags(t testing.TB, item map[string]any) []tagView {
	t.Helper()
	raw, ok := item["tags"].([]any)
	if !ok {
		t.Fatalf("no tags array in %v", item)
	}
	out := make([]tagView, len(raw))
	for i, r := range raw {
		m := r.(map[string]any)
		if got := fieldNames(m); !slices.Equal(got, []string{"id", "kind", "name"}) {
			t.Fatalf("tag fields %v", got)
		}
		out[i] = tagView{ID: m["id"].(string), Name: m["name"].(string), Kind: m["kind"].(string)}
	}
	return out
}

// tagLabels renders tags as KIND:name, in order.
func tagLabels(tags []tagView) []string {
	out := make([]string, len(tags))
	for i, tg := range tags {
		out[i] = tg.Kind + ":" + tg.Name
	}
	return out
}

// tagOf returns the tag of the given kind whose name equals name case-insensitively.
func tagOf(t testing.TB, item map[string]any, kind, name string) tagView {
	t.Helper()
	for _, tg := range itemTags(t, item) {
		if tg.Kind == kind && strings.EqualFold(tg.Name, name) {
			return tg
		}
	}
	t.Fatalf("no %s %q in %v", kind, name, item["tags"])
	return tagView{}
}

// TestTagIdentity: a tag is (space, kind, lower-cased name), where the space is the workspace for
// a workspace notebook's items and the owner's personal space for a personal notebook's. Notes and
// tasks of one space share tags; the casing first seen in the space is kept; tags are ordered by
// kind (TAG, then PERSON) and name.
func TestTagIdentity(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		teamTwo := apitest.Must(t, s.Post(t, w.bobRW, "/notebooks", map[string]any{"name": "Team Two", "workspaceId": w.team}), http.StatusCreated).Str(t, "id")
		bobNB := apitest.Must(t, s.Post(t, w.bobRW, "/notebooks", map[string]any{"name": "Bob personal"}), http.StatusCreated).Str(t, "id")
		create := func(key, kind, nb, text string) map[string]any {
			t.Helper()
			return apitest.Must(t, s.Post(t, key, "/"+kind+"s", contentBody(kind, nb, text)), http.StatusCreated).JSON(t)
		}

		// One workspace: two notebooks, two authors, a note and a task share one tag per name and
		// kind, named as first seen ("Hiring").
		first := create(w.annRW, "note", w.teamNB, "Plan #Hiring with @Dana")
		second := create(w.bobRW, "note", teamTwo, "More #hiring, ask @dana")
		task := create(w.annTeam, "task", w.teamNB, "#HIRING task for @DANA")
		hiring, dana := tagOf(t, first, "TAG", "hiring"), tagOf(t, first, "PERSON", "dana")
		for _, item := range []map[string]any{second, task} {
			if got := tagOf(t, item, "TAG", "hiring"); got != hiring {
				t.Fatalf("same tag in one workspace: %+v, want %+v", got, hiring)
			}
			if got := tagOf(t, item, "PERSON", "dana"); got != dana {
				t.Fatalf("same person in one workspace: %+v, want %+v", got, dana)
			}
		}
		if hiring.Name != "Hiring" || dana.Name != "Dana" {
			t.Fatalf("casing first seen: %+v %+v", hiring, dana)
		}
		// Reading them back (item and list, by another member) gives the same tags.
		got := apitest.Must(t, s.Get(t, w.bobRW, "/tasks/"+task["id"].(string)), http.StatusOK).JSON(t)
		if !slices.Equal(itemTags(t, got), itemTags(t, task)) {
			t.Fatalf("GET shows %v, create answered %v", got["tags"], task["tags"])
		}
		for _, n := range apitest.Must(t, s.Get(t, w.bobRW, "/notes?notebookId="+teamTwo), http.StatusOK).Data(t) {
			if n["id"] == second["id"] && !slices.Equal(itemTags(t, n), itemTags(t, second)) {
				t.Fatalf("list shows %v, create answered %v", n["tags"], second["tags"])
			}
		}

		// Other spaces: Ann's personal, Bob's personal, Carl's personal: each its own tag.
		seen := map[string]string{hiring.ID: "Team"}
		for name, item := range map[string]map[string]any{
			"Ann personal":  create(w.annRW, "note", w.annNB, "#hiring"),
			"Ann personal2": create(w.annPersonalNB, "task", w.annNB, "#hiring"),
			"Bob personal":  create(w.bobRW, "note", bobNB, "#hiring"),
			"Carl personal": create(w.carlRW, "task", w.carlNB, "#hiring"),
		} {
			id := tagOf(t, item, "TAG", "hiring").ID
			space := strings.TrimSuffix(name, "2")
			if prev, dup := seen[id]; dup && prev != space {
				t.Fatalf("tag id %s shared by %s and %s", id, prev, space)
			}
			seen[id] = space
		}
		if len(seen) != 4 {
			t.Fatalf("want 4 spaces with distinct tag ids, got %v", seen)
		}

		// Kind is part of identity: #dana and @dana are two tags.
		both := create(w.annRW, "note", w.teamNB, "#dana meets @dana")
		if tg, p := tagOf(t, both, "TAG", "dana"), tagOf(t, both, "PERSON", "dana"); tg.ID == p.ID || p != dana {
			t.Fatalf("#dana %+v, @dana %+v (want @dana = %+v)", tg, p, dana)
		}

		// Within one note: unique tags, the first casing, TAGs then PERSONs, each by name
		// (case-insensitively).
		mixed := create(w.annRW, "note", w.annNB, "@zed #beta @Amy #Alpha #gamma #ALPHA @amy #roadMap #ROADMAP #b2 #B1")
		if got, want := tagLabels(itemTags(t, mixed)), []string{"TAG:Alpha", "TAG:B1", "TAG:b2", "TAG:beta", "TAG:gamma", "TAG:roadMap", "PERSON:Amy", "PERSON:zed"}; !slices.Equal(got, want) {
			t.Fatalf("tags %v, want %v", got, want)
		}
	})
}

// TestTagReplacement: an item's tags are replaced as a whole by every change of its content
// (PATCH, approved suggestion), untouched by other changes, and follow a move to a notebook of
// another space (re-tagged there), for notes and tasks.
func TestTagReplacement(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		teamTwo := apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "Team Two", "workspaceId": w.team}), http.StatusCreated).Str(t, "id")
		// Team already knows #PLAN (first seen in upper case) and @EVE.
		team := apitest.Must(t, s.Post(t, w.bobRW, "/notes", map[string]any{"content": "#PLAN @EVE", "notebookId": w.teamNB}), http.StatusCreated).JSON(t)
		teamPlan, teamEve := tagOf(t, team, "TAG", "plan"), tagOf(t, team, "PERSON", "eve")
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				base := "/" + kind + "s"
				field := textField(kind)
				item := apitest.Must(t, s.Post(t, w.annRW, base, contentBody(kind, w.annNB, "#Plan with @Eve and #extra")), http.StatusCreated).JSON(t)
				p := base + "/" + item["id"].(string)
				plan, eve := tagOf(t, item, "TAG", "plan"), tagOf(t, item, "PERSON", "eve")
				if plan == teamPlan || eve == teamEve || plan.Name != "Plan" {
					t.Fatalf("personal tags %+v %+v share Team's %+v %+v", plan, eve, teamPlan, teamEve)
				}
				tags := func(r apitest.Response) []string {
					return tagLabels(itemTags(t, apitest.Must(t, r, http.StatusOK).JSON(t)))
				}

				// Content change: the whole set is replaced.
				if got := tags(patch(t, s, w.annRW, p, map[string]any{field: "only #fresh now"})); !slices.Equal(got, []string{"TAG:fresh"}) {
					t.Fatalf("after a content PATCH: %v", got)
				}
				if got := tags(s.Get(t, w.annRW, p)); !slices.Equal(got, []string{"TAG:fresh"}) {
					t.Fatalf("read back: %v", got)
				}
				// Other fields leave the tags alone.
				if got := tags(patch(t, s, w.annRW, p, map[string]any{"archived": true, "targetAt": "2026-05-01"})); !slices.Equal(got, []string{"TAG:fresh"}) {
					t.Fatalf("after a PATCH without content: %v", got)
				}
				// Back to the first text: the same tag ids as at creation (tags are never deleted).
				back := apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{field: "#Plan with @Eve and #extra"}), http.StatusOK).JSON(t)
				if !slices.Equal(itemTags(t, back), itemTags(t, item)) {
					t.Fatalf("same text again: %v, at creation %v", back["tags"], item["tags"])
				}
				// Move to Team: re-tagged in Team's space, Team's ids and casing.
				moved := apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{"notebookId": w.teamNB}), http.StatusOK).JSON(t)
				if tagOf(t, moved, "TAG", "plan") != teamPlan || tagOf(t, moved, "PERSON", "eve") != teamEve {
					t.Fatalf("after the move to Team: %v, want Team's %+v %+v", moved["tags"], teamPlan, teamEve)
				}
				extra := tagOf(t, moved, "TAG", "extra")
				if got := apitest.Must(t, s.Get(t, w.bobRW, p), http.StatusOK).JSON(t); !slices.Equal(itemTags(t, got), itemTags(t, moved)) {
					t.Fatalf("Bob reads %v, the move answered %v", got["tags"], moved["tags"])
				}
				// Within the same space: nothing changes.
				same := apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{"notebookId": teamTwo}), http.StatusOK).JSON(t)
				if !slices.Equal(itemTags(t, same), itemTags(t, moved)) {
					t.Fatalf("move inside Team: %v, was %v", same["tags"], moved["tags"])
				}
				// Back to the personal notebook: the personal tags again.
				home := apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{"notebookId": w.annNB}), http.StatusOK).JSON(t)
				if !slices.Equal(itemTags(t, home), itemTags(t, item)) {
					t.Fatalf("back home: %v, want %v", home["tags"], item["tags"])
				}
				// Move and content in one PATCH: the new content's tags, in the new space.
				both := apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{"notebookId": w.teamNB, field: "#extra only"}), http.StatusOK).JSON(t)
				if got := itemTags(t, both); len(got) != 1 || got[0] != extra {
					t.Fatalf("move with new content: %v, want Team's %+v", both["tags"], extra)
				}
				// An approved suggestion replaces them too; a rejected one does not.
				sg := apitest.Must(t, s.Post(t, w.bobRW, p+"/suggest", map[string]any{"content": "#suggested by @bob"}), http.StatusCreated).Str(t, "id")
				if got := tags(s.Get(t, w.annRW, p)); !slices.Equal(got, []string{"TAG:extra"}) {
					t.Fatalf("a pending suggestion changed the tags: %v", got)
				}
				apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg+"/approve", nil), http.StatusOK)
				if got := tags(s.Get(t, w.annRW, p)); !slices.Equal(got, []string{"TAG:suggested", "PERSON:bob"}) {
					t.Fatalf("after approval: %v", got)
				}
				sg = apitest.Must(t, s.Post(t, w.bobRW, p+"/suggest", map[string]any{"content": "#rejected"}), http.StatusCreated).Str(t, "id")
				apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg+"/reject", nil), http.StatusOK)
				if got := tags(s.Get(t, w.annRW, p)); !slices.Equal(got, []string{"TAG:suggested", "PERSON:bob"}) {
					t.Fatalf("after rejection: %v", got)
				}
				// No text, no tags.
				empty := map[string]any{field: ""}
				if kind == "task" {
					empty = map[string]any{field: nil}
				}
				if got := tags(patch(t, s, w.annRW, p, empty)); len(got) != 0 {
					t.Fatalf("after emptying the text: %v", got)
				}
				// A refused content change keeps the old tags (the change is one transaction).
				apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{field: "#kept"}), http.StatusOK)
				wantErr(t, patch(t, s, w.annRW, p, map[string]any{field: "#lost", "notebookId": w.carlNB}), http.StatusNotFound, "NOTEBOOK_NOT_FOUND")
				wantErr(t, patch(t, s, w.annRW, p, map[string]any{field: "#lost ![img](x.png)"}), http.StatusBadRequest, "INVALID_MARKDOWN", field)
				if got := tags(s.Get(t, w.annRW, p)); !slices.Equal(got, []string{"TAG:kept"}) {
					t.Fatalf("after refused changes: %v", got)
				}
			})
		}
	})
}

// TestTagConcurrentCreation: many items created at once with the same new tags (in any casing and
// order) in one space end with one tag each, without deadlock; concurrent content changes of one
// item leave it with exactly the tags of its final content.
func TestTagConcurrentCreation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		const n = 12
		results := make([]map[string]any, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				kind := []string{"note", "task"}[i%2]
				key := []string{w.annRW, w.bobRW, w.annTeam}[i%3]
				name := []string{"Race", "RACE", "race"}[i%3]
				text := "#Zulu #" + name + " with @Runner and #alpha"
				if i%2 == 1 {
					text = "@runner: #ALPHA, #" + name + ", #zulu"
				}
				r := s.Post(t, key, "/"+kind+"s", contentBody(kind, w.teamNB, text))
				if r.Status != http.StatusCreated {
					t.Errorf("create %d: %d %s", i, r.Status, r.Body)
					return
				}
				results[i] = r.JSON(t)
			}(i)
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		race := tagOf(t, results[0], "TAG", "race")
		for i, item := range results {
			if got := itemTags(t, item); !slices.Equal(got, itemTags(t, results[0])) || len(got) != 4 {
				t.Fatalf("item %d has tags %v, item 0 %v", i, item["tags"], results[0]["tags"])
			}
		}
		// Whichever casing won, every item shows the same one, and so do later reads.
		later := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "#rAcE", "notebookId": w.teamNB}), http.StatusCreated).JSON(t)
		if got := tagOf(t, later, "TAG", "race"); got != race {
			t.Fatalf("later item: %+v, want %+v", got, race)
		}

		// Concurrent PATCHes of one note: the tags are those of whichever content won.
		id := createNote(t, s, w.annRW, w.teamNB, "start")["id"].(string)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				text := "#only" + strings.Repeat("x", i) + " #common" + strings.Repeat("y", i%3) + " @by" + strings.Repeat("z", i%4)
				if r := patch(t, s, []string{w.annRW, w.bobRW}[i%2], "/notes/"+id, map[string]any{"content": text}); r.Status != http.StatusOK {
					t.Errorf("patch %d: %d %s", i, r.Status, r.Body)
				}
			}(i)
		}
		wg.Wait()
		final := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+id), http.StatusOK).JSON(t)
		fresh := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": final["content"], "notebookId": w.teamNB}), http.StatusCreated).JSON(t)
		if !slices.Equal(itemTags(t, final), itemTags(t, fresh)) {
			t.Fatalf("after concurrent PATCHes the note holds %q with tags %v; that content tags %v", final["content"], final["tags"], fresh["tags"])
		}
	})
}

// TestTagExtraction: which text attaches tags and mentions, by the rules of CONTRACT.md section 4,
// and when hasDecision is true, as notes and tasks answer them.
func TestTagExtraction(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text     string
		tags     []string
		decision bool
	}{
		{"plain #tag and @person", []string{"TAG:tag", "PERSON:person"}, false},
		{"#start of a line", []string{"TAG:start"}, false},
		{"# Heading", nil, false},
		{"## Plan #q3", []string{"TAG:q3"}, false},
		{"`#code @x`", nil, false},
		{"```\n#fenced @x\n```", nil, false},
		{"para\n\n    #indented @code", nil, false},
		{"[#linktext @who](https://example.com/#frag)", nil, false},
		{"[docs](https://example.com/#anchor?x=@y)", nil, false},
		{"[#a](#b)", nil, false},
		{"[x](/#y)", nil, false},
		{"see https://example.com/#anchor", nil, false},
		{"https://example.com/path#frag and https://example.com/@user", nil, false},
		{"<https://example.com/#auto>", nil, false},
		{"mail ann@example.com", nil, false},
		{"C# and F#, a#b, x@y, /#slash, /@slash, &#35;ref, \\#escaped, \\@escaped", nil, false},
		{"#123 #- # @", nil, false},
		{"##double", nil, false},
		{"#1st #_x #a-b_c", []string{"TAG:1st", "TAG:_x", "TAG:a-b_c"}, false},
		{"(#paren) #end. #tag's", []string{"TAG:end", "TAG:paren", "TAG:tag"}, false},
		{"@first.last. @a..b", []string{"PERSON:a", "PERSON:first.last"}, false},
		{"#über @Zoë", []string{"TAG:über", "PERSON:Zoë"}, false},
		{"**#bold** *@ital* ~~#strike~~ __#under__", []string{"TAG:bold", "TAG:strike", "TAG:under", "PERSON:ital"}, false},
		{"#a#b #c@d @e#f", []string{"TAG:a", "TAG:c", "PERSON:e"}, false},
		{"- item #listed\n1. @numbered", []string{"TAG:listed", "PERSON:numbered"}, false},
		{"| a | #cell |\n|---|---|\n| @x | y |", []string{"TAG:cell", "PERSON:x"}, false},
		{"> **Decision:** adopt #postgres", []string{"TAG:postgres"}, true},
		{"> **Decision:**", nil, true},
		{"intro\n\n> **Why:** cost\n\n> **Decision:** go", nil, true},
		{"> > **Decision:** nested", nil, true},
		{"> **Why:** because #reasons", []string{"TAG:reasons"}, false},
		{"**Decision:** not in a quote", nil, false},
		{"> Decision: not bold", nil, false},
		{"> **decision:** lower case", nil, false},
		{"```\n> **Decision:** in code\n```", nil, false},
		{"`> **Decision:** inline code`", nil, false},
	}
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				for _, tc := range cases {
					item := apitest.Must(t, s.Post(t, w.annRW, "/"+kind+"s", contentBody(kind, w.teamNB, tc.text)), http.StatusCreated).JSON(t)
					if got := tagLabels(itemTags(t, item)); !slices.Equal(got, tc.tags) && len(got)+len(tc.tags) > 0 {
						t.Errorf("%q: tags %v, want %v", tc.text, got, tc.tags)
					}
					if kind == "note" && item["hasDecision"] != tc.decision {
						t.Errorf("%q: hasDecision %v, want %v", tc.text, item["hasDecision"], tc.decision)
					}
				}
			})
		}
		// hasDecision follows every content change: PATCH and an approved suggestion.
		id := createNote(t, s, w.annRW, w.teamNB, "no decision yet")["id"].(string)
		steps := []struct {
			how, text string
			want      bool
		}{
			{"patch", "> **Decision:** yes", true},
			{"patch", "> **Why:** only why", false},
			{"approve", "now\n\n> **Decision:** approved", true},
			{"approve", "gone again", false},
		}
		for _, st := range steps {
			if st.how == "patch" {
				apitest.Must(t, patch(t, s, w.annRW, "/notes/"+id, map[string]any{"content": st.text}), http.StatusOK)
			} else {
				sg := apitest.Must(t, s.Post(t, w.bobRW, "/notes/"+id+"/suggest", map[string]any{"content": st.text}), http.StatusCreated).Str(t, "id")
				apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg+"/approve", nil), http.StatusOK)
			}
			if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+id), http.StatusOK).JSON(t)["hasDecision"]; got != st.want {
				t.Fatalf("after %s of %q: hasDecision %v", st.how, st.text, got)
			}
		}
	})
}
