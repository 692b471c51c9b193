package app

import (
	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/notebooks"
	"folio/modules/workspaces"
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
	),
)
