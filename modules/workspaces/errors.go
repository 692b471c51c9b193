package workspaces

import "folio/platform/apierr"

// The workspaces module's errors.
var (
	ErrNotFound      = apierr.NotFound("WORKSPACE_NOT_FOUND", "workspace not found")
	ErrName          = apierr.Validation("field \"name\" must be 1 to 80 characters and not blank")
	ErrNoAccount     = apierr.Validation("field \"email\" names no account; the person must sign up first")
	ErrLastOwner     = apierr.Validation("a workspace keeps at least one OWNER; make someone else an owner first")
	ErrNotMemberUser = apierr.ErrNotMember.WithMessage("this user is not a member of the workspace")
	ErrOwnerOnly     = apierr.ErrInsufficient.WithMessage("only an OWNER of the workspace can do this")
	ErrKeyCannotDo   = apierr.ErrInsufficient.WithMessage("this kind of key cannot manage workspaces")
	ErrRemoveOthers  = apierr.ErrInsufficient.WithMessage("a MEMBER can only remove themselves")
	ErrCreateByKey   = apierr.ErrInsufficient.WithMessage("a workspace-scoped or notebook-scoped key cannot create workspaces")
)
