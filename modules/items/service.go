package items

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/modules/document"
	"folio/modules/journal"
	"folio/modules/search"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/etag"
	"folio/platform/ids"
	"folio/platform/markdown"
)

// Create stores row, whose document is doc, in a notebook the principal may write, within the
// notebook's item limit. Create sets the id, notebook, document, creator and version, and the
// timestamps that row leaves zero (an import keeps an item's own createdAt and updatedAt); the
// module fills the rest of row from the request. doc's Markdown is the text of the search index,
// the event and the answer (View.Response).
func (s *Service[Row]) Create(ctx context.Context, p *auth.Principal, notebookID string, doc document.Parsed, row Row) (View[Row], error) {
	stored, err := document.Encode(doc)
	if err != nil {
		return View[Row]{}, err
	}
	now := s.clock.Now()
	c := s.shape.Columns(&row)
	c.ID, c.NotebookID, c.CreatedByID, c.Version = ids.New(), notebookID, p.UserID, 1
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = now
	}
	s.setDocument(&row, stored, doc)
	s.arm(nil, &row, now)
	return s.viewAfter(ctx, func(tx *gorm.DB) (View[Row], error) {
		nb, err := s.notebooks.ItemNotebook(ctx, tx, p, notebookID)
		if err != nil {
			return View[Row]{}, err
		}
		if err := s.create(ctx, tx, &row); err != nil {
			return View[Row]{}, err
		}
		if err := s.index(ctx, tx, &row, doc.Markdown); err != nil {
			return View[Row]{}, err
		}
		if err := s.tags.Replace(ctx, tx, nb.TagSpace, s.shape.Name, c.ID, c.CreatedAt, doc.Doc.Tags()); err != nil {
			return View[Row]{}, err
		}
		v, err := s.record(ctx, tx, p, "create", &row, nb, doc.Markdown)
		if err != nil {
			return View[Row]{}, err
		}
		// The item slot is taken last: its UPDATE locks the notebook's row until the transaction
		// ends, and every create into the notebook waits for that lock, so it is held for the
		// commit only, not for the inserts, the tags, the audit entry and the read of the view.
		// The limit stays exact (the count is checked and raised in one statement under the
		// lock); a create over the limit undoes everything it wrote, as before.
		if err := s.notebooks.Reserve(ctx, tx, nb.ID, 1); err != nil {
			return View[Row]{}, err
		}
		return v, nil
	})
}

// viewAfter runs write in a transaction and answers with the view write returns: the row and its
// tags, read at the end of the same transaction by record (an idempotent request commits after
// its response is rendered, db.Unit, so another connection would not see them yet).
func (s *Service[Row]) viewAfter(ctx context.Context, write func(tx *gorm.DB) (View[Row], error)) (View[Row], error) {
	var v View[Row]
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		var err error
		v, err = write(tx)
		return err
	})
	return v, err
}

// setDocument writes a new document onto row: its tree, its text (the Markdown the write has in
// hand, rendered once) and what the module derives from it.
func (s *Service[Row]) setDocument(row *Row, tree []byte, doc document.Parsed) {
	*s.shape.Document(row) = tree
	*s.shape.Text(row) = doc.Written()
	if s.shape.Derive != nil {
		s.shape.Derive(row, doc.Doc)
	}
}

// text is the Markdown of row's document as responses carry it: its stored text (document.Read).
func (s *Service[Row]) text(row *Row) (string, error) {
	return document.Read(*s.shape.Document(row), *s.shape.Text(row))
}

// snapshot saves row's document, as stored, as a version of the item.
func (s *Service[Row]) snapshot(ctx context.Context, tx *gorm.DB, p *auth.Principal, row *Row, reason string) error {
	return s.versions.Save(ctx, tx, s.shape.Name, s.shape.Columns(row).ID, *s.shape.Document(row), *s.shape.Text(row), reason, p)
}

// record writes the audit entry of the item flow verb (create, update, delete, restore) on row,
// which is written, with its event (note.created, ...) whose data is the item as the API returns
// it now, text being its document's Markdown: the view it returns, with the tags read in tx and
// that answer (View.Response). A delete's data is the id only, and its view is empty.
func (s *Service[Row]) record(ctx context.Context, tx *gorm.DB, p *auth.Principal, verb string, row *Row, nb Notebook, text string) (View[Row], error) {
	past, ok := journal.PastTense(verb)
	if !ok {
		return View[Row]{}, fmt.Errorf("items: no event for the verb %q", verb)
	}
	return s.recordAs(ctx, tx, p, s.shape.Name+"."+verb, s.shape.Name+"."+past, row, nb, text)
}

// recordAs writes the audit entry action on row with the event evType (and also, after it). The
// answer is built once, here: it is the event's data and the view's Response.
func (s *Service[Row]) recordAs(ctx context.Context, tx *gorm.DB, p *auth.Principal, action, evType string, row *Row, nb Notebook, text string, also ...journal.Event) (View[Row], error) {
	id := s.shape.Columns(row).ID
	var v View[Row]
	data := journal.Deleted(id)
	if s.shape.Columns(row).DeletedAt == nil {
		var err error
		if v, err = s.view(ctx, tx, *row); err != nil {
			return View[Row]{}, err
		}
		v.Response = s.shape.Response(v, text)
		data = v.Response
	}
	ev := journal.Event{Type: evType, ResourceType: s.shape.Name, ResourceID: id, NotebookID: &nb.ID, WorkspaceID: nb.WorkspaceID, Data: data}
	entry := journal.Entry{Action: action, ResourceType: s.shape.Name, ResourceID: id, WorkspaceID: nb.WorkspaceID, NotebookID: &nb.ID,
		Events: append([]journal.Event{ev}, also...)}
	return v, s.audit.Record(ctx, tx, p, entry)
}

// view adds the item's tags, read in tx (nil: outside a transaction).
func (s *Service[Row]) view(ctx context.Context, tx *gorm.DB, row Row) (View[Row], error) {
	views, err := s.withTags(ctx, tx, []Row{row})
	if err != nil {
		return View[Row]{}, err
	}
	return views[0], nil
}

// withTags adds their tags to rows, read in one query in tx (nil: outside a transaction).
func (s *Service[Row]) withTags(ctx context.Context, tx *gorm.DB, rows []Row) ([]View[Row], error) {
	itemIDs := make([]string, len(rows))
	for i := range rows {
		itemIDs[i] = s.shape.Columns(&rows[i]).ID
	}
	byItem, err := s.tags.ForItems(ctx, tx, s.shape.Name, itemIDs)
	if err != nil {
		return nil, err
	}
	views := make([]View[Row], len(rows))
	for i, row := range rows {
		views[i] = View[Row]{Item: row, Tags: byItem[itemIDs[i]]}
	}
	return views, nil
}

// Get returns one item the principal may see.
func (s *Service[Row]) Get(ctx context.Context, p *auth.Principal, id string) (View[Row], error) {
	if !ids.Valid(id) {
		return View[Row]{}, s.shape.NotFound
	}
	row, err := s.get(ctx, nil, id, s.notebooks.VisibleIDs(p), false)
	if err != nil {
		return View[Row]{}, err
	}
	return s.view(ctx, nil, row)
}

// Read is the answer to a PATCH that changes nothing: the item as Get returns it, provided that
// ifMatch matches it (no write follows, so there is nothing to race with).
func (s *Service[Row]) Read(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) (View[Row], error) {
	v, err := s.Get(ctx, p, id)
	if err != nil {
		return View[Row]{}, err
	}
	if err := ifMatch.Check(s.shape.Columns(&v.Item).ETag()); err != nil {
		return View[Row]{}, err
	}
	return v, nil
}

// List returns a page of the items the principal may see, with their tags; page is the module's
// own list query, given the visible notebooks and the filter completed with the principal's tag
// spaces, to send with the context it is given. A notebook named by the filter is checked first,
// so that it gets the access codes (KEY_NOTEBOOK_MISMATCH, 404, ...) rather than an empty page.
// The page and its tags are read on one pooled connection (db.Shared).
func (s *Service[Row]) List(ctx context.Context, p *auth.Principal, f ListFilter, page func(ctx context.Context, visible clause.Expr, f ListFilter) ([]Row, *string, error)) ([]View[Row], *string, error) {
	var (
		views []View[Row]
		next  *string
	)
	err := db.Shared(ctx, s.db, func(ctx context.Context) error {
		rows, n, err := s.listRows(ctx, p, f, func(visible clause.Expr, f ListFilter) ([]Row, *string, error) {
			return page(ctx, visible, f)
		})
		if err != nil {
			return err
		}
		next = n
		views, err = s.withTags(ctx, nil, rows)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return views, next, nil
}

// listRows is List without the tags: every list of items (the API's, a calendar feed's) reads
// its rows here, after the same checks and within the same visible notebooks.
func (s *Service[Row]) listRows(ctx context.Context, p *auth.Principal, f ListFilter, page func(visible clause.Expr, f ListFilter) ([]Row, *string, error)) ([]Row, *string, error) {
	if f.NotebookID != nil {
		if _, err := s.notebooks.ItemNotebook(ctx, nil, p, *f.NotebookID); err != nil {
			return nil, nil, err
		}
	}
	spaces := s.notebooks.VisibleSpaces(p)
	f.TagSpaces = &spaces
	return page(s.notebooks.VisibleIDs(p), f)
}

// Change is what a PATCH asks of the columns every item has: nil fields are absent.
type Change struct {
	NotebookID *string          // move the item to this notebook
	Document   *document.Parsed // replace the document
	Archived   *bool
	TargetAt   **time.Time // set to a nil *time.Time to clear
	FollowUpAt **time.Time
	// IfMatch is the request's If-Match: checked against the item's ETag under the row's lock,
	// before anything changes (412 PRECONDITION_FAILED when stale).
	IfMatch etag.IfMatch
}

// Update applies a PATCH to the item id in one transaction. The write path, in order:
//
//  1. lock the item's row (getInNotebook with lock) and check the principal may use its notebook,
//     then If-Match against the locked row's ETag (a check before the lock would race);
//  2. a move: check the target notebook, take a slot there, give one back in the old notebook;
//  3. a new document that differs from the stored one: snapshot the stored one (versions), then
//     set the new one and what the module derives from it (Shape.Derive);
//  4. the other shared columns, then the module's own (apply), then updatedAt from the clock;
//  5. save the row, index its text (the new document's Markdown, or the stored one's read as a GET
//     reads it); re-tag it when its document or its tag space changed;
//  6. the audit entry with the answer, in the same transaction (record).
//
// The caller answers an empty PATCH without calling Update (no write, no snapshot, no audit entry,
// updatedAt unchanged).
func (s *Service[Row]) Update(ctx context.Context, p *auth.Principal, id string, change Change, apply func(row *Row)) (View[Row], error) {
	if !ids.Valid(id) {
		return View[Row]{}, s.shape.NotFound
	}
	return s.viewAfter(ctx, func(tx *gorm.DB) (View[Row], error) {
		row, nb, err := s.getInNotebook(ctx, tx, p, id, s.notebooks.VisibleIDs(p), true)
		if err != nil {
			return View[Row]{}, err
		}
		c := s.shape.Columns(&row)
		if err := change.IfMatch.Check(c.ETag()); err != nil {
			return View[Row]{}, err
		}
		before := s.reminderTimes(&row)
		spaceChanged := false
		if change.NotebookID != nil && *change.NotebookID != c.NotebookID {
			target, err := s.notebooks.ItemNotebook(ctx, tx, p, *change.NotebookID)
			if err != nil {
				return View[Row]{}, err
			}
			if err := s.notebooks.Reserve(ctx, tx, target.ID, 1); err != nil {
				return View[Row]{}, err
			}
			if err := s.notebooks.Release(ctx, tx, nb.ID, 1); err != nil {
				return View[Row]{}, err
			}
			spaceChanged = target.TagSpace != nb.TagSpace
			c.NotebookID, nb = target.ID, target
		}
		var newDoc *markdown.Doc // the document written, when it changed
		var text *string         // the document's Markdown, when the request carries it
		if change.Document != nil {
			encoded, err := document.Encode(*change.Document)
			if err != nil {
				return View[Row]{}, err
			}
			if stored := s.shape.Document(&row); !bytes.Equal(encoded, *stored) {
				if err := s.snapshot(ctx, tx, p, &row, ReasonUpdate); err != nil {
					return View[Row]{}, err
				}
				s.setDocument(&row, encoded, *change.Document)
				newDoc = &change.Document.Doc
			}
			// The same bytes as the stored document's when it did not change: the same Markdown.
			text = &change.Document.Markdown
		} else {
			// The document stays: its Markdown is its stored text, written again if an older
			// codec wrote it (the row is saved whole anyway).
			stored, err := s.text(&row)
			if err != nil {
				return View[Row]{}, err
			}
			text = &stored
		}
		*s.shape.Text(&row) = document.Current(*text)
		if change.Archived != nil {
			c.Archived = *change.Archived
		}
		if change.TargetAt != nil {
			c.TargetAt = *change.TargetAt
		}
		if change.FollowUpAt != nil {
			c.FollowUpAt = *change.FollowUpAt
		}
		if apply != nil {
			apply(&row)
		}
		c.UpdatedAt = s.clock.Now()
		s.arm(before, &row, c.UpdatedAt)
		if err := s.save(ctx, tx, &row); err != nil {
			return View[Row]{}, err
		}
		if err := s.index(ctx, tx, &row, *text); err != nil {
			return View[Row]{}, err
		}
		if newDoc == nil && spaceChanged {
			// A move without a new document: the stored one is the only copy of its tags.
			doc, err := markdown.Decode(*s.shape.Document(&row))
			if err != nil {
				return View[Row]{}, err
			}
			newDoc = &doc
		}
		if newDoc != nil {
			if err := s.tags.Replace(ctx, tx, nb.TagSpace, s.shape.Name, c.ID, c.CreatedAt, newDoc.Tags()); err != nil {
				return View[Row]{}, err
			}
		}
		return s.record(ctx, tx, p, "update", &row, nb, *text)
	})
}

// Delete removes an item from every read at once; its row stays (soft delete) so that cursors and
// the audit entries naming it stay valid. Its notebook slot is given back. ifMatch is checked
// against the locked row's ETag.
func (s *Service[Row]) Delete(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) error {
	if !ids.Valid(id) {
		return s.shape.NotFound
	}
	return db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		row, nb, err := s.getInNotebook(ctx, tx, p, id, s.notebooks.VisibleIDs(p), true)
		if err != nil {
			return err
		}
		c := s.shape.Columns(&row)
		if err := ifMatch.Check(c.ETag()); err != nil {
			return err
		}
		now := s.clock.Now()
		c.DeletedAt, c.UpdatedAt = &now, now
		s.arm(s.reminderTimes(&row), &row, now)
		if err := s.save(ctx, tx, &row); err != nil {
			return err
		}
		if err := s.notebooks.Release(ctx, tx, nb.ID, 1); err != nil {
			return err
		}
		_, err = s.record(ctx, tx, p, "delete", &row, nb, "")
		return err
	})
}

// Restore makes doc, the document of one of the item's versions, its content again: a change like
// a PATCH of the document, in one transaction under the row's lock (ifMatch checked against it):
// a snapshot of the stored document (reason restore, even when it equals doc: the restore is
// recorded), what the module derives from the document, the tags, the version bump, and the
// audit entry <kind>.restore with the event <kind>.restored. doc is rendered once, for the search
// index, the event and the answer.
func (s *Service[Row]) Restore(ctx context.Context, p *auth.Principal, id string, doc markdown.Doc, ifMatch etag.IfMatch) (View[Row], error) {
	if !ids.Valid(id) {
		return View[Row]{}, s.shape.NotFound
	}
	parsed := document.Of(doc)
	encoded, err := document.Encode(parsed)
	if err != nil {
		return View[Row]{}, err
	}
	return s.viewAfter(ctx, func(tx *gorm.DB) (View[Row], error) {
		row, nb, err := s.getInNotebook(ctx, tx, p, id, s.notebooks.VisibleIDs(p), true)
		if err != nil {
			return View[Row]{}, err
		}
		c := s.shape.Columns(&row)
		if err := ifMatch.Check(c.ETag()); err != nil {
			return View[Row]{}, err
		}
		if err := s.snapshot(ctx, tx, p, &row, ReasonRestore); err != nil {
			return View[Row]{}, err
		}
		s.setDocument(&row, encoded, parsed)
		c.UpdatedAt = s.clock.Now()
		if err := s.save(ctx, tx, &row); err != nil {
			return View[Row]{}, err
		}
		if err := s.index(ctx, tx, &row, parsed.Markdown); err != nil {
			return View[Row]{}, err
		}
		if err := s.tags.Replace(ctx, tx, nb.TagSpace, s.shape.Name, c.ID, c.CreatedAt, doc.Tags()); err != nil {
			return View[Row]{}, err
		}
		return s.record(ctx, tx, p, "restore", &row, nb, parsed.Markdown)
	})
}

// index writes the item's text (Shape.SearchText, by default the document's Markdown, text) to
// the search index, in the write's transaction: every write that can change the text calls it.
func (s *Service[Row]) index(ctx context.Context, tx *gorm.DB, row *Row, text string) error {
	if s.shape.SearchText != nil {
		text = s.shape.SearchText(row, text)
	}
	return search.Set(ctx, tx, s.shape.Name, s.shape.Columns(row).ID, text)
}
