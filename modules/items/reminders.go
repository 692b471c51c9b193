package items

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-gormigrate/gormigrate/v2"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/modules/journal"
	"folio/platform"
	"folio/platform/auth"
	"folio/platform/background"
	"folio/platform/clock"
	"folio/platform/db"
)

// Reminder is one of an item kind's reminder times (CONTRACT.md section 21): when At passes, the
// reminder loop emits Event once, with the item as the API returns it as data and no actor. Fired
// is the column that remembers it: the time the reminder fired for, or was disarmed at; NULL while
// it is armed. So a reminder is armed exactly when its time is set, its fired column is NULL and
// the item may be reminded of (Shape.Remindable), and firing is one conditional UPDATE of that
// column in the event's transaction: exactly once, whichever instance gets there first.
type Reminder[Row any] struct {
	Event       string // "note.follow_up_due"
	AtColumn    string // "follow_up_at"
	FiredColumn string // "follow_up_fired_at"
	At          func(row *Row) *time.Time
	Fired       func(row *Row) **time.Time
}

// FollowUp is the follow-up reminder every item has: Columns.FollowUpAt, kind+".follow_up_due".
func FollowUp[Row any](kind string, columns func(row *Row) *Columns) Reminder[Row] {
	return Reminder[Row]{Event: kind + ".follow_up_due", AtColumn: "follow_up_at", FiredColumn: "follow_up_fired_at",
		At:    func(row *Row) *time.Time { return columns(row).FollowUpAt },
		Fired: func(row *Row) **time.Time { return &columns(row).FollowUpFiredAt }}
}

// arm sets the fired column of each of the row's reminders as a write leaves them, the rule of
// CONTRACT.md section 21 ("exactly once per item and time: changing the time re-arms it,
// clearing it or deleting the item disarms it"):
//   - no time: nothing to fire (NULL);
//   - an item that may not be reminded of (deleted, archived, a DONE task): disarmed (the time);
//   - a time to come: armed (NULL), whether it is new, changed or back after a disarm;
//   - a time already past that this write set (before is nil on a create, or held another time):
//     disarmed, since a reminder is of a time that passes, not of one set in the past;
//   - a past time the write left as it was: unchanged, so a reminder due but not yet fired still
//     fires, and one that fired does not fire again.
//
// before holds the reminders' times as the row was read under its lock (nil on a create).
func (s *Service[Row]) arm(before []*time.Time, row *Row, now time.Time) {
	c := s.shape.Columns(row)
	remindable := c.DeletedAt == nil && !c.Archived && (s.shape.Remindable == nil || s.shape.Remindable(row))
	for i, r := range s.shape.Reminders {
		at, fired := r.At(row), r.Fired(row)
		set := before == nil || !sameTime(before[i], at)
		switch {
		case at == nil:
			*fired = nil
		case !remindable:
			t := *at
			*fired = &t
		case at.After(now):
			*fired = nil
		case set:
			t := *at
			*fired = &t
		}
	}
}

// reminderTimes are the row's reminder times, for arm's before.
func (s *Service[Row]) reminderTimes(row *Row) []*time.Time {
	out := make([]*time.Time, len(s.shape.Reminders))
	for i, r := range s.shape.Reminders {
		if at := r.At(row); at != nil {
			t := *at
			out[i] = &t
		}
	}
	return out
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// fireBatch is how many due reminders of one kind a round of FireReminders takes; the next round
// (a tick later, or at once when the batch was full) takes the rest.
const fireBatch = 100

// FireReminders emits the event of every armed reminder whose time has passed by now, each in a
// transaction of its own that first disarms it with a conditional UPDATE (fired column NULL and
// the time still the one read): the instance whose UPDATE changes the row emits the event, any
// other finds nothing to change. Reminders have no actor. It returns how many fired.
//
// A reminder that fails (its transaction rolled back, so it stays armed) does not hold up the
// others: the round goes on with the next ones and reports the failures together; the failed one
// is tried again next round.
func (s *Service[Row]) FireReminders(ctx context.Context, emit journal.Emitter, now time.Time) (int, error) {
	fired := 0
	var errs []error
	for _, r := range s.shape.Reminders {
		after := dueReminder{}
		for {
			due, err := s.dueReminders(ctx, r, now, after)
			if err != nil {
				return fired, errors.Join(append(errs, err)...)
			}
			for _, d := range due {
				ok, err := s.fire(ctx, emit, r, d.ID, d.At)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s %s: %w", r.Event, d.ID, err))
				}
				if ok {
					fired++
				}
			}
			if len(due) < fireBatch || ctx.Err() != nil {
				break
			}
			after = due[len(due)-1]
		}
	}
	return fired, errors.Join(errs...)
}

type dueReminder struct {
	ID string
	At time.Time
}

// dueReminders reads a batch of armed reminders whose time has passed, oldest first, from the
// partial index of armed reminders (Reminder.FiredColumn IS NULL).
//
// after (zero: from the start) is the last of the previous batch: a batch reads past it, in (at,
// id) order, so that reminders that failed in it are not read again this round.
func (s *Service[Row]) dueReminders(ctx context.Context, r Reminder[Row], now time.Time, after dueReminder) ([]dueReminder, error) {
	var row Row
	q := s.db.WithContext(ctx).Model(&row).Select("id, "+r.AtColumn+" AS at").
		Where(r.AtColumn+" IS NOT NULL AND "+r.FiredColumn+" IS NULL AND "+r.AtColumn+" <= ?", now).
		Where("deleted_at IS NULL AND archived = ?", false)
	if after.ID != "" {
		q = q.Where("("+r.AtColumn+" > ? OR ("+r.AtColumn+" = ? AND id > ?))", after.At, after.At, after.ID)
	}
	if s.shape.RemindableSQL != "" {
		q = q.Where(s.shape.RemindableSQL)
	}
	var due []dueReminder
	err := q.Order(r.AtColumn + ", id").Limit(fireBatch).Scan(&due).Error
	return due, err
}

// fire disarms one reminder and emits its event, in one transaction; false when another instance
// (or a write that changed or cleared the time) got there first.
func (s *Service[Row]) fire(ctx context.Context, emit journal.Emitter, r Reminder[Row], id string, at time.Time) (bool, error) {
	fired := false
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		var row Row
		res := tx.WithContext(ctx).Model(&row).
			Where("id = ? AND "+r.FiredColumn+" IS NULL AND "+r.AtColumn+" = ?", id, at).
			UpdateColumn(r.FiredColumn, at)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		if err := tx.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
			return err
		}
		c := s.shape.Columns(&row)
		nb, err := s.notebooks.NotebookOf(ctx, tx, c.NotebookID)
		if err != nil {
			return err
		}
		v, err := s.view(ctx, tx, row)
		if err != nil {
			return err
		}
		text, err := s.text(&row)
		if err != nil {
			return err
		}
		ev := journal.Event{Type: r.Event, ResourceType: s.shape.Name, ResourceID: id, NotebookID: &nb.ID, WorkspaceID: nb.WorkspaceID,
			Data: s.shape.Response(v, text)}
		if err := emit.Emit(ctx, tx, &auth.Principal{}, ev); err != nil {
			return err
		}
		fired = true
		return nil
	})
	return fired, err
}

// ReminderSource is an item kind whose reminders the loop fires (its Service).
type ReminderSource interface {
	FireReminders(ctx context.Context, emit journal.Emitter, now time.Time) (int, error)
}

// AsReminderSource joins the "reminderSources" value group the reminder loop reads:
// fx.Provide(items.AsReminderSource(func(s *Service) items.ReminderSource { return s.items })).
func AsReminderSource(f any) any {
	return fx.Annotate(f, fx.ResultTags(`group:"reminderSources"`))
}

// ReminderTick is how often each instance looks for reminders that are due: every instance
// looks, the conditional UPDATE lets one of them fire each. A reminder fires within a tick of its
// time (CONTRACT.md section 21: within 60 s), and a time that passed while every instance was
// down fires at the first tick after a start.
const ReminderTick = 5 * time.Second

// RemindersParams are what the reminder loop needs.
type RemindersParams struct {
	fx.In
	Loops   *background.Loops
	Sources []ReminderSource `group:"reminderSources"`
	Emitter journal.Emitter
	Clock   clock.Clock
	Logger  *zap.Logger
	// Migrated: the loop starts after the migrations have added the fired columns.
	Migrated platform.Migrated `optional:"true"`
}

// Reminders is the reminder loop: a background goroutine of every instance that fires the due
// reminders of every source each ReminderTick, the first time right after the start.
type Reminders struct {
	p   RemindersParams
	log *zap.Logger
}

// NewReminders starts the loop; the fx stop hook ends it and waits for it.
func NewReminders(p RemindersParams) *Reminders {
	r := &Reminders{p: p, log: p.Logger.Named("reminders")}
	p.Loops.Go(r.loop)
	return r
}

func (r *Reminders) loop(ctx context.Context) {
	t := time.NewTicker(ReminderTick)
	defer t.Stop()
	for {
		if _, err := r.Fire(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("could not fire reminders", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Fire fires every due reminder of every source now, and says how many fired.
func (r *Reminders) Fire(ctx context.Context) (int, error) {
	now := r.p.Clock.Now()
	total := 0
	var errs []error
	for _, src := range r.p.Sources {
		n, err := src.FireReminders(ctx, r.p.Emitter, now)
		total += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return total, fmt.Errorf("reminders: %w", err)
	}
	return total, nil
}

// Module is the item kernel's part of the graph: the reminder loop.
var Module = fx.Module("items", fx.Provide(NewReminders), fx.Invoke(func(*Reminders) {}))

// AddReminders is the migration step that gives an item kind its reminders: each fired column
// (unless the table has it: a table created after the column joined the model), every reminder
// of a time already past, or of an item that may not be reminded of, disarmed (so that an upgrade
// fires nothing of the past), and a partial index of the armed reminders by time, which the loop
// reads: it holds only what is still to fire, however many items there are.
func AddReminders[Row any](id, table string, shape Shape[Row]) *gormigrate.Migration {
	return &gormigrate.Migration{
		ID: id,
		Migrate: func(tx *gorm.DB) error {
			var model Row
			now := time.Now().UTC()
			for _, r := range shape.Reminders {
				if !tx.Migrator().HasColumn(&model, r.FiredColumn) {
					if err := tx.Migrator().AddColumn(&model, r.FiredColumn); err != nil {
						return err
					}
				}
				off := "deleted_at IS NOT NULL OR archived OR " + r.AtColumn + " <= ?"
				if shape.RemindableSQL != "" {
					off += " OR NOT (" + shape.RemindableSQL + ")"
				}
				if err := tx.Exec(fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s IS NOT NULL AND (%s)", table, r.FiredColumn, r.AtColumn, r.AtColumn, off), now).Error; err != nil {
					return err
				}
				if err := tx.Exec(fmt.Sprintf("CREATE INDEX idx_%s_%s_armed ON %s (%s) WHERE %s IS NULL AND %s IS NOT NULL",
					table, r.FiredColumn, table, r.AtColumn, r.FiredColumn, r.AtColumn)).Error; err != nil {
					return err
				}
			}
			return nil
		},
	}
}
