package holdings_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/holdings"
	"folio/platform/ids"
	"folio/platform/paginate"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// thing is a holding of the tests' own, with its restriction in columns named as a calendar
// feed's are (the table's own notebook_id is something else).
type thing struct {
	ID             string `gorm:"primaryKey;size:24"`
	UserID         string `gorm:"size:24;not null"`
	NotebookID     *string
	KeyWorkspaceID *string
	KeyNotebookID  *string
	CredentialKind string `gorm:"size:10;not null"`
	CredentialID   string `gorm:"size:24;not null"`
	CreatedAt      time.Time
}

var (
	table       = holdings.Table{Name: "things", Workspace: "key_workspace_id", Notebook: "key_notebook_id", Lock: "test:"}
	errNotFound = apierr.NotFound("THING_NOT_FOUND", "thing not found")
	errLimit    = apierr.Forbidden("THING_LIMIT_REACHED", "too many things")
)

func open(t *testing.T, kind string) holdings.Store[thing] {
	t.Helper()
	gdb := testenv.OpenEmpty(t, kind, nil)
	if err := gdb.Migrator().CreateTable(&thing{}); err != nil {
		t.Fatal(err)
	}
	return holdings.Store[thing]{DB: gdb, Table: table, NotFound: errNotFound, ID: func(x thing) string { return x.ID }}
}

func ptr(s string) *string { return &s }

// TestStore: the limit per user, who manages what (a restricted key only what was made under its
// own restriction), a rotation moving a key's holdings, and deletes (another user's, an unknown
// or a malformed id: NotFound) on both databases.
func TestStore(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, kind)
			ws, nb := ids.New(), ids.New()
			ann := auth.Principal{Credential: auth.CredentialKey, UserID: "ann", Scope: 3, KeyID: "k1"}
			annWS := auth.Principal{Credential: auth.CredentialKey, UserID: "ann", Scope: 3, KeyID: "k2", WorkspaceID: &ws}
			annNB := auth.Principal{Credential: auth.CredentialKey, UserID: "ann", Scope: 3, KeyID: "k3", NotebookID: &nb}
			bob := auth.SessionPrincipal("bob", "s1")
			var made []string
			create := func(p auth.Principal) error {
				x := thing{ID: ids.New(), UserID: p.UserID, NotebookID: ptr("other"), KeyWorkspaceID: p.WorkspaceID, KeyNotebookID: p.NotebookID,
					CredentialKind: string(p.Ref().Kind), CredentialID: p.Ref().ID, CreatedAt: time.Now()}
				err := s.Create(ctx, p.UserID, &x, 3, errLimit, "things")
				if err == nil {
					made = append(made, x.ID)
				}
				return err
			}
			for _, p := range []auth.Principal{ann, annWS, annNB, bob} {
				if err := create(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := create(ann); !errors.Is(err, errLimit) || apierr.From(err).Message != "a user has at most 3 things; delete one first" {
				t.Fatalf("the fourth of Ann's: %v", err)
			}
			manages := func(p auth.Principal) []string {
				rows, _, err := s.List(ctx, &p, paginate.Params{Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, r := range rows {
					out = append(out, r.ID)
				}
				slices.Sort(out)
				return out
			}
			sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
			for name, tc := range map[string]struct {
				p    auth.Principal
				want []string
			}{
				"unrestricted": {ann, sorted(made[0], made[1], made[2])},
				"workspace":    {annWS, sorted(made[1])},
				"notebook":     {annNB, sorted(made[2])},
				"another user": {bob, sorted(made[3])},
			} {
				if got := manages(tc.p); !slices.Equal(got, tc.want) {
					t.Errorf("%s manages %v, want %v", name, got, tc.want)
				}
			}
			if _, err := s.Get(ctx, &annNB, made[0]); !errors.Is(err, errNotFound) {
				t.Errorf("a notebook key gets an unrestricted key's holding: %v", err)
			}
			if got, err := s.Get(ctx, &ann, made[2]); err != nil || got.ID != made[2] {
				t.Errorf("Ann's unrestricted key gets %v, %v", got, err)
			}

			if err := s.DB.Transaction(func(tx *gorm.DB) error { return table.MoveKey(ctx, tx, "k1", "k9") }); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.Get(ctx, &ann, made[0]); got.CredentialID != "k9" {
				t.Errorf("after the rotation the holding is %s's", got.CredentialID)
			}
			if got, _ := s.Get(ctx, &ann, made[1]); got.CredentialID != "k2" {
				t.Errorf("another key's holding moved to %s", got.CredentialID)
			}

			for _, id := range []string{made[0], ids.New(), "not-an-id"} {
				if err := s.Remove(ctx, table.OwnedBy(&bob), id, nil); !errors.Is(err, errNotFound) {
					t.Errorf("Bob deletes %s: %v", id, err)
				}
			}
			also := 0
			if err := s.Remove(ctx, table.ByUser("ann"), made[0], func(*gorm.DB) error { also++; return nil }); err != nil || also != 1 {
				t.Fatalf("Ann's delete: %v (also ran %d times)", err, also)
			}
			if rows, err := s.OfUser(ctx, "ann"); err != nil || len(rows) != 2 {
				t.Fatalf("Ann has %d left (%v)", len(rows), err)
			}
			if err := create(ann); err != nil {
				t.Fatalf("after a delete there is room again: %v", err)
			}
		})
	}
}
