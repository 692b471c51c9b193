package app

import (
	"context"
	"slices"

	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/imports"
	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/modules/workspaces"
	"folio/platform/auth"
)

// Ports binds the interfaces a domain module declares for what another domain module answers.
// A module never imports another domain module (TestFloors): it declares the narrow interface it
// needs, and this list says who provides it. Each line is a design decision: say why beside it.
var Ports = fx.Options(
	fx.Provide(
		// Notebooks ask the workspaces module who belongs to which workspace.
		func(m *workspaces.Members) notebooks.Memberships { return m },
		// Workspaces find users by name through the accounts module's directory.
		func(d *accounts.Directory) workspaces.UserDirectory { return d },
		// The import writes through the notebooks, notes and tasks use cases, so that what it
		// creates is created as the API creates it (access, limits, tags, audit, events).
		func(a *notebooks.Access) imports.CheckNotebook {
			return func(ctx context.Context, p *auth.Principal, id string) error {
				_, err := a.Notebook(ctx, nil, p, id)
				return err
			}
		},
		func(s *notebooks.Service) imports.CreateNotebook {
			return func(ctx context.Context, p *auth.Principal, name, color string) (string, string, error) {
				if !slices.Contains(notebooks.Colors, color) {
					color = "" // the default
				}
				n, err := s.Create(ctx, p, notebooks.NewNotebook{Name: name, Color: color})
				return n.ID, n.Color, err
			}
		},
		func(s *notes.Service) imports.CreateNote {
			return func(ctx context.Context, p *auth.Principal, n imports.Note) error {
				_, err := s.Create(ctx, p, notes.NewNote{NotebookID: n.NotebookID, Content: n.Content, TargetAt: n.TargetAt, FollowUpAt: n.FollowUpAt,
					Archived: n.Archived, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt})
				return err
			}
		},
		func(s *tasks.Service) imports.CreateTask {
			return func(ctx context.Context, p *auth.Principal, t imports.Task) error {
				_, err := s.Create(ctx, p, tasks.NewTask{NotebookID: t.NotebookID, Title: t.Title, Status: t.Status, Priority: t.Priority, Notes: t.Notes,
					DueAt: t.DueAt, TargetAt: t.TargetAt, FollowUpAt: t.FollowUpAt, Archived: t.Archived, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt})
				return err
			}
		},
	),
)
