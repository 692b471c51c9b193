package tags_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/modules/items"
	"folio/platform/markdown"
	"folio/tests/apitest"
)

// TestReplaceAndForItems: Replace attaches exactly the tags it is given (a tag of a space is one
// row whatever the casing, and keeps its first casing), a second Replace drops what is no longer
// there, another space has tags of its own, and ForItems reads the tags of many items back in one
// statement, ordered TAG before PERSON and then by name.
func TestReplaceAndForItems(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		replace := func(space, itemID string, found ...markdown.Tag) {
			t.Helper()
			if err := g.DB.Transaction(func(tx *gorm.DB) error { return g.Tags.Replace(ctx, tx, space, "note", itemID, time.Now(), found) }); err != nil {
				t.Fatal(err)
			}
		}
		tag := func(name string) markdown.Tag { return markdown.Tag{Sigil: markdown.SigilTag, Name: name} }
		person := func(name string) markdown.Tag { return markdown.Tag{Sigil: markdown.SigilPerson, Name: name} }
		forItems := func(ids ...string) map[string][]items.Tag {
			t.Helper()
			var byItem map[string][]items.Tag
			var err error
			if reads := g.SQL.Reads(func() { byItem, err = g.Tags.ForItems(ctx, nil, "note", ids) }); reads != 1 {
				t.Errorf("ForItems of %d items: %d SQL reads, want 1", len(ids), reads)
			}
			if err != nil {
				t.Fatal(err)
			}
			return byItem
		}
		names := func(tags []items.Tag) []string {
			var out []string
			for _, tg := range tags {
				out = append(out, tg.Kind+":"+tg.Name)
			}
			return out
		}
		equal := func(what string, got []string, want ...string) {
			t.Helper()
			if len(got) != len(want) {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: %v, want %v", what, got, want)
				}
			}
		}

		replace("space1", "note1", person("ann"), tag("Budget"), tag("alpha"))
		replace("space1", "note2", tag("BUDGET"), person("Ann"))
		replace("space2", "note3", tag("budget"))
		byItem := forItems("note1", "note2", "note3", "note4")
		equal("note1", names(byItem["note1"]), "TAG:alpha", "TAG:Budget", "PERSON:ann")
		equal("note2 (tags of the space, their first casing)", names(byItem["note2"]), "TAG:Budget", "PERSON:ann")
		equal("note3", names(byItem["note3"]), "TAG:budget")
		equal("note4 (no tags)", names(byItem["note4"]))
		if byItem["note1"][1].ID != byItem["note2"][0].ID {
			t.Fatalf("Budget and BUDGET in one space are two tags: %+v, %+v", byItem["note1"], byItem["note2"])
		}
		if byItem["note3"][0].ID == byItem["note2"][0].ID {
			t.Fatal("two spaces share a tag")
		}

		// Replace drops the attachments the item no longer has, and leaves other items alone.
		replace("space1", "note1", tag("Zeta"))
		byItem = forItems("note1", "note2")
		equal("note1 after the second Replace", names(byItem["note1"]), "TAG:Zeta")
		equal("note2 after note1's second Replace", names(byItem["note2"]), "TAG:Budget", "PERSON:ann")
		replace("space1", "note2")
		equal("note2 without tags", names(forItems("note2")["note2"]))
		if got, err := g.Tags.ForItems(ctx, nil, "task", []string{"note1"}); err != nil || len(got["note1"]) != 0 {
			t.Fatalf("the tags of note1 as a task: %v, %v", got, err)
		}
	})
}
