package versions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/modules/document"
	"folio/platform/auth"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestSave: a snapshot keeps the document, the reason, the actor and the time; an item's snapshots
// are listed newest first and apart from other items'; a snapshot saved in a transaction that
// rolls back is gone with it.
func TestSave(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		save := func(tx *gorm.DB, kind, id, doc, reason string) error {
			p := &auth.Principal{Credential: auth.CredentialKey, UserID: "actor1", KeyName: "assistant", KeyPrefix: "svc_live_ABCDEFGH"}
			if reason == "suggestion" { // by a session: no key is named
				p = &auth.Principal{Credential: auth.CredentialSession, UserID: "actor1"}
			}
			return g.Versions.Save(ctx, tx, kind, id, []byte(doc), document.Written{}, reason, p)
		}
		if err := save(g.DB, "note", "item1", `{"v":1}`, "update"); err != nil {
			t.Fatal(err)
		}
		first := g.Clock.Now()
		g.Clock.Advance(time.Second)
		if err := save(g.DB, "note", "item1", `{"v":2}`, "suggestion"); err != nil {
			t.Fatal(err)
		}
		if err := save(g.DB, "task", "item1", `{"v":3}`, "update"); err != nil {
			t.Fatal(err)
		}
		err := g.DB.Transaction(func(tx *gorm.DB) error {
			if err := save(tx, "note", "item1", `{"v":4}`, "update"); err != nil {
				t.Fatal(err)
			}
			return gorm.ErrInvalidTransaction // roll back
		})
		if err == nil {
			t.Fatal("the transaction did not fail")
		}

		// PostgreSQL keeps a document as jsonb, which spaces it its own way.
		doc := func(raw []byte) string {
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		got, err := g.Versions.List(ctx, g.DB, "note", "item1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("%d snapshots of note item1, want 2: %+v", len(got), got)
		}
		if doc(got[0].Document) != `{"v":2}` || got[0].Reason != "suggestion" || !got[0].CreatedAt.Equal(first.Add(time.Second)) ||
			doc(got[1].Document) != `{"v":1}` || got[1].Reason != "update" || got[1].ActorUserID != "actor1" || !got[1].CreatedAt.Equal(first) ||
			got[0].APIKeyName != nil || got[0].APIKeyPrefix != nil || got[1].APIKeyName == nil || *got[1].APIKeyName != "assistant" || *got[1].APIKeyPrefix != "svc_live_ABCDEFGH" {
			t.Fatalf("snapshots %+v", got)
		}
		if tasks, err := g.Versions.List(ctx, g.DB, "task", "item1"); err != nil || len(tasks) != 1 || doc(tasks[0].Document) != `{"v":3}` {
			t.Fatalf("snapshots of task item1: %+v, %v", tasks, err)
		}
	})
}
