package comments

import (
	"context"
	"errors"
	"unicode/utf8"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/journal"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/ids"
)

// ResourceType is the audit log's and the access rule's name for a comment.
const ResourceType = "comment"

// EventCreated is the module's event type.
const EventCreated = "comment.created"

// Service creates and reads comments.
type Service struct {
	db    *gorm.DB
	clock clock.Clock
	rule  *auth.Rule
	audit journal.Recorder
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	DB    *gorm.DB
	Clock clock.Clock
	Rule  *auth.Rule
	Audit journal.Recorder
}

// NewService returns the service.
func NewService(p ServiceParams) *Service {
	return &Service{db: p.DB, clock: p.Clock, rule: p.Rule, audit: p.Audit}
}

// Create adds a comment to a notebook the principal can read, with its audit entry and event in
// the same transaction.
func (s *Service) Create(ctx context.Context, p *auth.Principal, notebookID, body string) (Comment, error) {
	if n := utf8.RuneCountInString(body); n < 1 || n > 500 {
		return Comment{}, ErrBody
	}
	nb := auth.Resource{Type: "notebook", ID: notebookID}
	readable, err := s.rule.Readable(ctx, p, []auth.Resource{nb})
	if err != nil {
		return Comment{}, err
	}
	if !readable[nb] {
		return Comment{}, ErrNotebookNotFound
	}
	c := Comment{ID: ids.New(), NotebookID: notebookID, UserID: p.UserID, Body: body, CreatedAt: s.clock.Now()}
	err = db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		if err := tx.WithContext(ctx).Create(&c).Error; err != nil {
			return err
		}
		ev := journal.Event{Type: EventCreated, ResourceType: ResourceType, ResourceID: c.ID, NotebookID: &c.NotebookID, Data: toResponse(c)}
		return s.audit.Record(ctx, tx, p, journal.Entry{Action: ResourceType + ".create", ResourceType: ResourceType, ResourceID: c.ID, NotebookID: &c.NotebookID, Events: []journal.Event{ev}})
	})
	return c, err
}

// Get returns a comment the principal can read.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (Comment, error) {
	r := auth.Resource{Type: ResourceType, ID: id}
	readable, err := s.rule.Readable(ctx, p, []auth.Resource{r})
	if err != nil {
		return Comment{}, err
	}
	if !readable[r] {
		return Comment{}, ErrNotFound
	}
	var c Comment
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&c).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return Comment{}, ErrNotFound
		}
		return Comment{}, err
	}
	return c, nil
}

// reader answers the access rule for comments: a comment is readable when its notebook is.
type reader struct{ db *gorm.DB }

func newReader(gdb *gorm.DB) *reader { return &reader{db: gdb} }

func (r *reader) ResourceType() string { return ResourceType }

func (r *reader) Readable(ctx context.Context, rule *auth.Rule, p *auth.Principal, idList []string) (map[string]bool, error) {
	var rows []Comment
	if err := r.db.WithContext(ctx).Where("id IN ?", idList).Find(&rows).Error; err != nil {
		return nil, err
	}
	refs := make([]auth.Resource, len(rows))
	for i, c := range rows {
		refs[i] = auth.Resource{Type: "notebook", ID: c.NotebookID}
	}
	readable, err := rule.Readable(ctx, p, refs)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for i, c := range rows {
		out[c.ID] = readable[refs[i]]
	}
	return out, nil
}
