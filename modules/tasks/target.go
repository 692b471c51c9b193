package tasks

import "folio/modules/content"

// NewTarget returns the tasks' content target: the suggestions module reads and replaces a task's
// notes through it, as a PATCH of the notes would.
func NewTarget(svc *Service) content.Target { return svc.items.Target() }
