// Package holdings is what the carriers that hold data for a credential share (CONTRACT.md
// section 20: webhooks, calendar feeds). Such a carrier belongs to the key or web session that
// created it, keeps that credential's restriction, and is stored in a table of its own with the
// user, the restriction and the credential in columns; this package holds the rules on those
// columns, so that every carrier follows them alike: who manages a holding (Table.Owned), the
// per-user limit on creating them (Store.Create), the queries every carrier runs alike (Store), a rotated key's holdings moving to the new key
// (Table.MoveKey, an auth.KeyHolder), and how a holding's credential is shown to its owner
// (Holder, Response).
package holdings

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// Table names a holdings table and its columns. Every such table has user_id, credential_kind and
// credential_id (auth.CredentialRef's kind and id); Workspace and Notebook name the columns of the
// creating key's restriction.
type Table struct {
	Name      string // "webhooks"
	Workspace string // "workspace_id"
	Notebook  string // "notebook_id"
	// Lock starts the PostgreSQL transaction-level advisory lock a create takes per user
	// ("foliowh:"), so that two concurrent creates cannot both pass the limit; on SQLite every
	// write transaction holds the database's write lock already.
	Lock string
}

func (t Table) col(c string) string { return t.Name + "." + c }

// Owned narrows q to the holdings principal p manages: its user's, and for a restricted key only
// those made under the same restriction (a notebook-scoped key must not read or delete what an
// unrestricted key holds: what it shows is beyond the key's reach).
func (t Table) Owned(q *gorm.DB, p *auth.Principal) *gorm.DB {
	q = q.Where(t.col("user_id")+" = ?", p.UserID)
	switch {
	case p.NotebookID != nil:
		return q.Where(t.col(t.Notebook)+" = ?", *p.NotebookID)
	case p.WorkspaceID != nil:
		return q.Where(t.col(t.Workspace)+" = ? AND "+t.col(t.Notebook)+" IS NULL", *p.WorkspaceID)
	default:
		return q
	}
}

// ByUser keeps userID's holdings, whatever credential made them (the settings UI); "" keeps every
// user's (the operator's commands).
func (t Table) ByUser(userID string) func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB {
		if userID == "" {
			return q
		}
		return q.Where(t.col("user_id")+" = ?", userID)
	}
}

// OwnedBy is Owned as a scope for Store.Remove.
func (t Table) OwnedBy(p *auth.Principal) func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB { return t.Owned(q, p) }
}

// MoveKey implements auth.KeyHolder: a rotation moves the old key's holdings to the new key, in
// the rotation's transaction (tx, a *gorm.DB).
func (t Table) MoveKey(ctx context.Context, tx any, fromKeyID, toKeyID string) error {
	gtx, ok := tx.(*gorm.DB)
	if !ok {
		return fmt.Errorf("holdings: %s: MoveKey needs the rotation's *gorm.DB transaction", t.Name)
	}
	return gtx.WithContext(ctx).Table(t.Name).Where("credential_kind = ? AND credential_id = ?", string(auth.CredentialKey), fromKeyID).
		Update("credential_id", toKeyID).Error
}

// Holder is the credential a holding belongs to as its owner is shown it: the key (its id, name
// and display prefix; all empty for a web session's, and the name and prefix nil for a key that
// no longer exists) and, when it reads nothing now, why (one of the auth.Dead* reasons).
type Holder struct {
	KeyID     string
	KeyName   *string
	KeyPrefix *string
	Dead      *string
}

// HolderOf is the Holder of the credential ref, held as h (auth.Rule.Hold's answer for it).
func HolderOf(ref auth.CredentialRef, h auth.Held) Holder {
	var out Holder
	if ref.Kind == auth.CredentialKey {
		out.KeyID, out.KeyName, out.KeyPrefix = ref.ID, h.KeyName, h.KeyPrefix
	}
	if h.Principal == nil && h.Dead != "" {
		dead := h.Dead
		out.Dead = &dead
	}
	return out
}

// HolderOfPrincipal is the Holder of a live principal's credential (a holding just created).
func HolderOfPrincipal(p *auth.Principal) Holder {
	if p.Credential != auth.CredentialKey {
		return Holder{}
	}
	name, prefix := p.KeyName, p.KeyPrefix
	return Holder{KeyID: p.KeyID, KeyName: &name, KeyPrefix: &prefix}
}

// The statuses of a holding on the wire.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
)

// Response is how the API shows a holding's state and credential, the last fields of a webhook
// and of a calendar feed: status (active, or disabled with disabledReason) and the key it
// belongs to (null name and prefix for a web session's).
type Response struct {
	Status string `json:"status"`
	// DisabledReason says why a disabled holding does nothing (null while active).
	DisabledReason *string `json:"disabledReason"`
	APIKeyName     *string `json:"apiKeyName"`
	APIKeyPrefix   *string `json:"apiKeyPrefix"`
}

// ResponseOf is the Response of a holding whose status is status (disabled with reason, which is
// nil while active) and whose credential is h.
func ResponseOf(status string, reason *string, h Holder) Response {
	return Response{Status: status, DisabledReason: reason, APIKeyName: h.KeyName, APIKeyPrefix: h.KeyPrefix}
}

// Store is the queries every holdings table runs alike, on the carrier's rows (Row, its GORM
// model for Table): the limited create, a holding or a page of those a principal manages, a
// user's every holding, and a delete.
type Store[Row any] struct {
	DB       *gorm.DB
	Table    Table
	NotFound error // the carrier's 404 (WEBHOOK_NOT_FOUND, ...)
	ID       func(Row) string
}

func (s Store[Row]) from(ctx context.Context) *gorm.DB {
	return s.DB.WithContext(ctx).Table(s.Table.Name)
}

// Create stores row, a holding of userID, unless the user already has max of them: then it
// returns over (the carrier's 403) saying so, with what the carrier calls them ("webhooks").
func (s Store[Row]) Create(ctx context.Context, userID string, row *Row, max int, over *apierr.Error, what string) error {
	return db.Transaction(ctx, s.DB, func(tx *gorm.DB) error {
		if db.IsPostgres(tx) {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", s.Table.Lock+userID).Error; err != nil {
				return err
			}
		}
		var n int64
		if err := tx.Table(s.Table.Name).Where("user_id = ?", userID).Count(&n).Error; err != nil {
			return err
		}
		if n >= int64(max) {
			return over.WithMessage("a user has at most %d %s; delete one first", max, what)
		}
		return tx.Create(row).Error
	})
}

// Get returns the holding id if p manages it (Owned), else NotFound (also for an id that is not
// well-formed).
func (s Store[Row]) Get(ctx context.Context, p *auth.Principal, id string) (Row, error) {
	if !ids.Valid(id) {
		var none Row
		return none, s.NotFound
	}
	return db.Take[Row](s.Table.Owned(s.from(ctx), p).Where(s.Table.col("id")+" = ?", id), false, s.NotFound)
}

// List returns a page of the holdings p manages, newest first.
func (s Store[Row]) List(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Row, *string, error) {
	scope := func() *gorm.DB { return s.Table.Owned(s.from(ctx), p) }
	return paginate.Find(scope(), scope(), paginate.Keyset{Table: s.Table.Name}, page, s.ID)
}

// Page is List with each holding made a view by views (a carrier decides the state of its
// holdings when they are read): an auth.Lister.
func Page[Row, View any](s Store[Row], views func(context.Context, []Row) ([]View, error)) auth.Lister[View] {
	return func(ctx context.Context, p *auth.Principal, page paginate.Params) ([]View, *string, error) {
		rows, next, err := s.List(ctx, p, page)
		if err != nil {
			return nil, nil, err
		}
		vs, err := views(ctx, rows)
		return vs, next, err
	}
}

// OfUser returns every holding of a user, newest first (a carrier limits how many a user has).
func (s Store[Row]) OfUser(ctx context.Context, userID string) ([]Row, error) {
	var rows []Row
	err := s.from(ctx).Where("user_id = ?", userID).Order("created_at DESC, id DESC").Find(&rows).Error
	return rows, err
}

// Remove deletes the holding id among those scope keeps (Table.OwnedBy, Table.ByUser), and then,
// in the same transaction, runs also (nil: nothing) to delete what belongs to it; none is
// NotFound (also for an id that is not well-formed).
func (s Store[Row]) Remove(ctx context.Context, scope func(*gorm.DB) *gorm.DB, id string, also func(tx *gorm.DB) error) error {
	if !ids.Valid(id) {
		return s.NotFound
	}
	return db.Transaction(ctx, s.DB, func(tx *gorm.DB) error {
		var row Row
		res := scope(tx).Where(s.Table.col("id")+" = ?", id).Delete(&row)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return s.NotFound
		}
		if also == nil {
			return nil
		}
		return also(tx)
	})
}

// Refs are the credentials of holdings (ref gives a holding's), in their order, for
// auth.Rule.Hold.
func Refs[Row any](rows []Row, ref func(Row) auth.CredentialRef) []auth.CredentialRef {
	out := make([]auth.CredentialRef, len(rows))
	for i, r := range rows {
		out[i] = ref(r)
	}
	return out
}
