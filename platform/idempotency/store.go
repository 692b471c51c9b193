package idempotency

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"go.uber.org/zap"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/platform/db"
	"folio/platform/ids"
)

// record is one key of one credential (CONTRACT.md sections 13 and 20: an API key, or a web
// session): claimed by a running request (Status 0), or the stored 2xx response of the request
// that completed it. The same Idempotency-Key sent by another key or session of the same user is
// another record, never a replay.
type record struct {
	ID     string `gorm:"primaryKey;size:24"`
	UserID string `gorm:"size:24;not null"`
	// Credential is the auth.CredentialRef that sent the request ("key:<id>", "session:<id>").
	Credential string `gorm:"size:40;not null;default:'';uniqueIndex:idx_idempotency_credential_key,priority:1"`
	// IdemKey is the client's key (not "key", a keyword in SQL).
	IdemKey string `gorm:"column:idem_key;size:255;not null;uniqueIndex:idx_idempotency_credential_key,priority:2"`
	// Fingerprint is the SHA-256 of the request's method, path and body.
	Fingerprint []byte `gorm:"not null"`
	// Token names the request that holds the claim: only it may complete or release it.
	Token string `gorm:"size:24;not null"`
	// LeaseUntil is when a claim whose request never completed nor released it (its process
	// stopped) may be taken over by a retry.
	LeaseUntil time.Time `gorm:"not null"`
	Status     int       `gorm:"not null;default:0"`  // 0 while running; then the stored status
	Header     string    `gorm:"not null;default:''"` // the stored headers, a JSON object
	Body       []byte
	// Resource is what the stored body shows ("note:<id>", from its Location or the request's
	// path; "" for a delete, whose body shows nothing): a replay is served only while the
	// credential can still read it (the access rule, CONTRACT.md section 20).
	Resource string `gorm:"size:80;not null;default:''"`
	// CreatedAt starts the record's 24 hours (from the service's clock).
	CreatedAt time.Time `gorm:"not null;autoCreateTime:false;index:idx_idempotency_created"`
}

func (record) TableName() string { return "idempotency_keys" }

// Migrations creates the table of idempotency keys.
func Migrations() db.Migrations {
	return db.Migrations{{
		ID:       "202611232310_idempotency_init",
		Migrate:  func(tx *gorm.DB) error { return tx.Migrator().CreateTable(&record{}) },
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&record{}) },
	}, {
		// Keys belong to the credential that sent them (CONTRACT.md section 20), no longer to the
		// user. Records made before name no credential: they could match no request any more, and
		// are deleted (a retry of such a request across the upgrade runs afresh). A database whose first step ran after the column joined the model has it.
		ID: "202611262310_idempotency_credential",
		Migrate: func(tx *gorm.DB) error {
			m := tx.Migrator()
			for _, col := range []string{"Credential", "Resource"} {
				if !m.HasColumn(&record{}, col) {
					if err := m.AddColumn(&record{}, col); err != nil {
						return err
					}
				}
			}
			if m.HasIndex(&record{}, "idx_idempotency_user_key") {
				if err := m.DropIndex(&record{}, "idx_idempotency_user_key"); err != nil {
					return err
				}
			}
			// Records made before name no credential and can never be replayed again; two users'
			// same key among them would also break the new unique index.
			if err := tx.Exec("DELETE FROM idempotency_keys WHERE credential = ''").Error; err != nil {
				return err
			}
			if !m.HasIndex(&record{}, "idx_idempotency_credential_key") {
				return m.CreateIndex(&record{}, "idx_idempotency_credential_key")
			}
			return nil
		},
	}}
}

// claim is a running request's hold on its key.
type claim struct{ id, token string }

// claimKey takes the credential's key for a request with fingerprint fp. It returns the claim, or the
// stored record to replay, or ErrReused / ErrInUse. A claim is one INSERT committed at once (so
// that a retry on any instance sees it while the request runs); what follows it is the one
// UPDATE in the request's own transaction (complete).
func (m *Middleware) claimKey(ctx context.Context, userID, credential, key string, fp []byte) (claim, *record, error) {
	for range 3 {
		now := m.clock.Now()
		rec := record{ID: ids.New(), UserID: userID, Credential: credential, IdemKey: key, Fingerprint: fp, Token: ids.New(), LeaseUntil: now.Add(Lease), CreatedAt: now}
		res := m.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&rec)
		if res.Error != nil {
			return claim{}, nil, res.Error
		}
		if res.RowsAffected == 1 {
			return claim{id: rec.ID, token: rec.Token}, nil, nil
		}
		var rows []record
		if err := m.db.WithContext(ctx).Where("credential = ? AND idem_key = ?", credential, key).Limit(1).Find(&rows).Error; err != nil {
			return claim{}, nil, err
		}
		if len(rows) == 0 {
			continue // released or expired meanwhile: claim it again
		}
		old := rows[0]
		if !now.Before(old.CreatedAt.Add(TTL)) {
			// Expired (the cleanup has not come by yet): the key is free, the request runs afresh.
			if err := m.db.WithContext(ctx).Where("id = ? AND created_at = ?", old.ID, old.CreatedAt).Delete(&record{}).Error; err != nil {
				return claim{}, nil, err
			}
			continue
		}
		if !bytes.Equal(old.Fingerprint, fp) {
			return claim{}, nil, ErrReused
		}
		if old.Status != 0 {
			return claim{}, &old, nil
		}
		if now.Before(old.LeaseUntil) {
			return claim{}, nil, ErrInUse
		}
		// The request that claimed the key ended without completing or releasing it (its process
		// stopped before its transaction committed): this retry takes the claim over.
		token := ids.New()
		res = m.db.WithContext(ctx).Model(&record{}).Where("id = ? AND token = ? AND status = 0", old.ID, old.Token).
			Updates(map[string]any{"token": token, "lease_until": now.Add(Lease)})
		if res.Error != nil {
			return claim{}, nil, res.Error
		}
		if res.RowsAffected == 1 {
			return claim{id: old.ID, token: token}, nil, nil
		}
	}
	return claim{}, nil, ErrInUse
}

// response is what a replay repeats.
type response struct {
	Status   int
	Header   map[string]string
	Body     []byte
	Resource string
}

// complete stores resp with the claim, in tx: the request's own transaction when it wrote (so the
// record commits exactly when the write does), else the database. False when the claim was taken
// over meanwhile (the request outlived its lease): then nothing may commit.
func (m *Middleware) complete(ctx context.Context, tx *gorm.DB, cl claim, resp response) (bool, error) {
	header, err := json.Marshal(resp.Header)
	if err != nil {
		return false, err
	}
	res := tx.WithContext(ctx).Model(&record{}).Where("id = ? AND token = ? AND status = 0", cl.id, cl.token).
		Updates(map[string]any{"status": resp.Status, "header": string(header), "body": resp.Body, "resource": resp.Resource})
	return res.RowsAffected == 1, res.Error
}

// release frees the key of a request that ended without a 2xx answer: it wrote nothing, and a
// retry with the same key runs afresh. When this fails, the lease frees the key later.
func (m *Middleware) release(cl claim) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.db.WithContext(ctx).Where("id = ? AND token = ? AND status = 0", cl.id, cl.token).Delete(&record{}).Error; err != nil {
		m.log.Warn("could not release an idempotency key; it is freed when its lease ends", zap.Error(err))
	}
}

// Sweep deletes the records older than TTL, at most SweepBatch at a time and SweepBatches
// batches per call, and returns how many it deleted.
func (m *Middleware) Sweep(ctx context.Context) (int64, error) {
	cutoff := m.clock.Now().Add(-TTL)
	var total int64
	for range SweepBatches {
		old := m.db.Model(&record{}).Select("id").Where("created_at <= ?", cutoff).Limit(SweepBatch)
		res := m.db.WithContext(ctx).Where("id IN (?)", old).Delete(&record{})
		if res.Error != nil {
			return total, res.Error
		}
		total += res.RowsAffected
		if res.RowsAffected < SweepBatch {
			break
		}
	}
	return total, nil
}
