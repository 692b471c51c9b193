package items

import (
	"context"
	"fmt"
	"reflect"

	"gorm.io/gorm"

	"folio/modules/content"
	"folio/modules/document"
	"folio/modules/journal"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/ids"
	"folio/platform/markdown"
)

// Target returns the kind's content.Target: the suggestions module reads and replaces an item's
// document through it, with the same snapshot, tags and audit entry as a PATCH.
func (s *Service[Row]) Target() content.Target { return target[Row]{s} }

type target[Row any] struct{ s *Service[Row] }

func (t target[Row]) Kind() string    { return t.s.shape.Name }
func (t target[Row]) NotFound() error { return t.s.shape.NotFound }

func (t target[Row]) Get(ctx context.Context, p *auth.Principal, id string) (content.Item, error) {
	return t.load(ctx, nil, p, id, false)
}

func (t target[Row]) Lock(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string) (content.Item, error) {
	return t.load(ctx, tx, p, id, true)
}

func (t target[Row]) load(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string, lock bool) (content.Item, error) {
	s := t.s
	if !ids.Valid(id) {
		return content.Item{}, s.shape.NotFound
	}
	row, nb, err := s.getInNotebook(ctx, tx, p, id, s.notebooks.VisibleIDs(p), lock)
	if err != nil {
		return content.Item{}, err
	}
	c := s.shape.Columns(&row)
	doc, err := markdown.Decode(*s.shape.Document(&row))
	if err != nil {
		return content.Item{}, err
	}
	text, err := s.text(&row)
	if err != nil {
		return content.Item{}, err
	}
	return content.Item{Kind: s.shape.Name, ID: c.ID, NotebookID: nb.ID, WorkspaceID: nb.WorkspaceID, Content: doc, Text: text, ETag: c.ETag(), Version: c.Version, Label: s.label(&row, doc)}, nil
}

// label is Shape.Label, or the first non-blank line of the document's text, at most 120 characters.
func (s *Service[Row]) label(row *Row, doc markdown.Doc) string {
	if s.shape.Label != nil {
		return s.shape.Label(row)
	}
	return doc.FirstLine(LabelRunes)
}

// LabelRunes is the longest label of an item named by its content (markdown.Doc.FirstLine).
const LabelRunes = 120

// Touch bumps the item's version when a read of it shows its pending suggestion (Shape.ShowsPending).
func (t target[Row]) Touch(ctx context.Context, tx *gorm.DB, item content.Item) error {
	if !t.s.shape.ShowsPending {
		return nil
	}
	return t.s.touch(ctx, tx, item.ID)
}

// Replace snapshots the stored document whatever doc is; only a PATCH skips an unchanged one.
func (t target[Row]) Replace(ctx context.Context, tx *gorm.DB, p *auth.Principal, item content.Item, doc document.Parsed, reason, action string, also ...journal.Event) error {
	s := t.s
	row, nb, err := s.getInNotebook(ctx, tx, p, item.ID, s.notebooks.VisibleIDs(p), false)
	if err != nil {
		return err
	}
	c := s.shape.Columns(&row)
	encoded, err := document.Encode(doc)
	if err != nil {
		return err
	}
	if err := s.snapshot(ctx, tx, p, &row, reason); err != nil {
		return err
	}
	s.setDocument(&row, encoded, doc)
	c.UpdatedAt = s.clock.Now()
	if err := s.save(ctx, tx, &row); err != nil {
		return err
	}
	if err := s.index(ctx, tx, &row, doc.Markdown); err != nil {
		return err
	}
	if err := s.tags.Replace(ctx, tx, nb.TagSpace, s.shape.Name, c.ID, c.CreatedAt, doc.Doc.Tags()); err != nil {
		return err
	}
	_, err = s.recordAs(ctx, tx, p, action, s.shape.Name+".updated", &row, nb, doc.Markdown, also...)
	return err
}

var _ content.Target = target[struct{}]{}

// Readable implements content.Target: the live items of the kind in the notebooks the principal
// may see, as the columns id, notebook_id, content (the stored document) and its stored text
// (content_markdown, content_codec).
func (t target[Row]) Readable(db *gorm.DB, p *auth.Principal) *gorm.DB {
	s := t.s
	column, err := s.documentColumn(db)
	if err != nil {
		_ = db.AddError(err)
		return db
	}
	var row Row
	return db.Model(&row).Select("id, notebook_id, "+column+" AS content, "+column+"_markdown AS content_markdown, "+column+"_codec AS content_codec").
		Where("deleted_at IS NULL AND notebook_id IN (?)", s.notebooks.VisibleIDs(p))
}

// documentColumn is the database column behind Shape.Document, found once from the model's
// schema: the field whose address Document returns.
func (s *Service[Row]) documentColumn(db *gorm.DB) (string, error) {
	s.docColumnOnce.Do(func() {
		var row Row
		stmt := &gorm.Statement{DB: db}
		if err := stmt.Parse(&row); err != nil {
			s.docColumnErr = err
			return
		}
		want := reflect.ValueOf(s.shape.Document(&row)).Pointer()
		rv := reflect.ValueOf(&row).Elem()
		for _, f := range stmt.Schema.Fields {
			if f.DBName != "" && f.ReflectValueOf(context.Background(), rv).Addr().Pointer() == want {
				s.docColumn = f.DBName
				return
			}
		}
		s.docColumnErr = fmt.Errorf("items: %s: no column holds the document", s.shape.Name)
	})
	return s.docColumn, s.docColumnErr
}

// Restore implements content.Target: Service.Restore, answered as the API renders the item (the
// answer the restore built for its event).
func (t target[Row]) Restore(ctx context.Context, p *auth.Principal, id string, doc markdown.Doc, ifMatch etag.IfMatch) (any, string, error) {
	v, err := t.s.Restore(ctx, p, id, doc, ifMatch)
	if err != nil {
		return nil, "", err
	}
	return v.Response, t.s.shape.Columns(&v.Item).ETag(), nil
}
