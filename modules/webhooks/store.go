package webhooks

import (
	"context"
	"time"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/holdings"
	"folio/platform/paginate"
)

// Store holds every query of the webhooks module; those every holdings table runs alike
// (create within the limit, get, list, a user's all, delete) are holdings.Store's.
type Store struct {
	db *gorm.DB
	holdings.Store[Webhook]
}

// NewStore returns the webhooks store.
func NewStore(gdb *gorm.DB) *Store {
	return &Store{db: gdb, Store: holdings.Store[Webhook]{DB: gdb, Table: table, NotFound: ErrNotFound, ID: func(w Webhook) string { return w.ID }}}
}

// table is the webhooks' holdings table: who manages a webhook, the per-user limit, and a
// rotated key's webhooks moving to the new key (platform/holdings).
var table = holdings.Table{Name: "webhooks", Workspace: "workspace_id", Notebook: "notebook_id", Lock: "foliowh:"}

func (s *Store) byID(ctx context.Context, id string) (Webhook, error) {
	return db.Take[Webhook](s.db.WithContext(ctx).Where("id = ?", id), false, ErrNotFound)
}

// remove deletes one of the webhooks scope keeps, and its attempts; its queued deliveries find it
// gone and stop.
func (s *Store) remove(ctx context.Context, scope func(*gorm.DB) *gorm.DB, id string) error {
	return s.Remove(ctx, scope, id, func(tx *gorm.DB) error { return tx.Where("webhook_id = ?", id).Delete(&Attempt{}).Error })
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
