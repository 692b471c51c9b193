package webhooks

import (
	"context"
	"time"

	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds every query of the webhooks module.
type Store struct{ db *gorm.DB }

// NewStore returns the webhooks store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

// webhookLockKey starts the PostgreSQL transaction-level advisory lock a create takes per user
// ("foliowh" and a hash of the user id), so that two concurrent creates cannot both pass the limit;
// on SQLite every write transaction holds the database's write lock already.
const webhookLockKey = "foliowh:"

// create stores w unless its user already has max webhooks (403 WEBHOOK_LIMIT_REACHED).
func (s *Store) create(ctx context.Context, w *Webhook, max int) error {
	return db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		if db.IsPostgres(tx) {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", webhookLockKey+w.UserID).Error; err != nil {
				return err
			}
		}
		var n int64
		if err := tx.Model(&Webhook{}).Where("user_id = ?", w.UserID).Count(&n).Error; err != nil {
			return err
		}
		if n >= int64(max) {
			return ErrLimit.WithMessage("a user has at most %d webhooks; delete one first", max)
		}
		return tx.Create(w).Error
	})
}

// owned narrows q to the webhooks the principal manages: its user's, and for a restricted key
// only those made under the same restriction (a notebook-scoped key must not read or delete the
// webhook of an unrestricted key: its URL, and what it sees, are beyond the key's reach).
func owned(q *gorm.DB, p *auth.Principal) *gorm.DB {
	q = q.Where("webhooks.user_id = ?", p.UserID)
	switch {
	case p.NotebookID != nil:
		return q.Where("webhooks.notebook_id = ?", *p.NotebookID)
	case p.WorkspaceID != nil:
		return q.Where("webhooks.workspace_id = ? AND webhooks.notebook_id IS NULL", *p.WorkspaceID)
	default:
		return q
	}
}

func (s *Store) get(ctx context.Context, p *auth.Principal, id string) (Webhook, error) {
	return db.Take[Webhook](owned(s.db.WithContext(ctx).Table("webhooks"), p).Where("webhooks.id = ?", id), false, ErrNotFound)
}

func (s *Store) byID(ctx context.Context, id string) (Webhook, error) {
	return db.Take[Webhook](s.db.WithContext(ctx).Where("id = ?", id), false, ErrNotFound)
}

var keyset = paginate.Keyset{Table: "webhooks"}

func (s *Store) list(ctx context.Context, pr *auth.Principal, p paginate.Params) ([]Webhook, *string, error) {
	scope := func() *gorm.DB { return owned(s.db.WithContext(ctx).Table("webhooks"), pr) }
	return paginate.Find(scope(), scope(), keyset, p, func(w Webhook) string { return w.ID })
}

// remove deletes the webhook and its attempts; its queued deliveries find it gone and stop.
func (s *Store) remove(ctx context.Context, p *auth.Principal, id string) error {
	return s.removeWhere(ctx, func(q *gorm.DB) *gorm.DB { return owned(q, p) }, id)
}

// removeOfUser is remove for one of userID's webhooks ("" for any user's).
func (s *Store) removeOfUser(ctx context.Context, userID, id string) error {
	return s.removeWhere(ctx, func(q *gorm.DB) *gorm.DB {
		if userID == "" {
			return q
		}
		return q.Where("webhooks.user_id = ?", userID)
	}, id)
}

func (s *Store) removeWhere(ctx context.Context, scope func(*gorm.DB) *gorm.DB, id string) error {
	return db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		res := scope(tx).Where("webhooks.id = ?", id).Delete(&Webhook{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return tx.Where("webhook_id = ?", id).Delete(&Attempt{}).Error
	})
}

// active returns every active webhook, read in tx (the sequencer's).
func (s *Store) active(ctx context.Context, tx *gorm.DB) ([]Webhook, error) {
	var rows []Webhook
	err := tx.WithContext(ctx).Where("status = ?", StatusActive).Find(&rows).Error
	return rows, err
}

// credentialsOf returns the credential id each of the webhooks holds now (read outside any
// transaction).
func (s *Store) credentialsOf(ctx context.Context, ids []string) (map[string]string, error) {
	var rows []Webhook
	if err := s.db.WithContext(ctx).Select("id", "credential_id").Where("id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, w := range rows {
		out[w.ID] = w.CredentialID
	}
	return out, nil
}

// ofUser returns every webhook of a user, newest first (at most MaxPerUser).
func (s *Store) ofUser(ctx context.Context, userID string) ([]Webhook, error) {
	var rows []Webhook
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id DESC").Find(&rows).Error
	return rows, err
}

// lastAttempts returns the newest attempt of each webhook that has one.
func (s *Store) lastAttempts(ctx context.Context, hooks []Webhook) (map[string]Attempt, error) {
	out := map[string]Attempt{}
	for _, w := range hooks { // at most MaxPerUser, each one probe of idx_webhook_attempts
		var rows []Attempt
		if err := s.db.WithContext(ctx).Where("webhook_id = ?", w.ID).Order("id DESC").Limit(1).Find(&rows).Error; err != nil {
			return nil, err
		}
		if len(rows) == 1 {
			out[w.ID] = rows[0]
		}
	}
	return out, nil
}

var attemptKeyset = paginate.Keyset{Table: "webhook_attempts", ByIDOnly: true}

func (s *Store) attempts(ctx context.Context, webhookID string, p paginate.Params) ([]Attempt, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("webhook_attempts").Where("webhook_attempts.webhook_id = ?", webhookID)
	}
	return paginate.Find(scope(), scope(), attemptKeyset, p, func(a Attempt) string { return formatInt(a.ID) })
}

// recordAttempt stores an attempt and the webhook's health: a success clears failingSince; a
// failure sets it if unset, and disables the webhook once it is older than disableAfter.
func (s *Store) recordAttempt(ctx context.Context, a *Attempt, ok bool, disableAfter time.Duration) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(a).Error; err != nil {
			return err
		}
		q := tx.Model(&Webhook{}).Where("id = ?", a.WebhookID)
		if ok {
			return q.Where("failing_since IS NOT NULL").Update("failing_since", nil).Error
		}
		if err := q.Where("failing_since IS NULL").Update("failing_since", a.AttemptedAt).Error; err != nil {
			return err
		}
		return tx.Model(&Webhook{}).Where("id = ? AND failing_since <= ?", a.WebhookID, a.AttemptedAt.Add(-disableAfter)).
			Updates(map[string]any{"status": StatusDisabled, "disabled_reason": ReasonFailing}).Error
	})
}
