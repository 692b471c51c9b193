package notes

import "folio/modules/content"

// NewTarget returns the notes' content target: the suggestions module reads and replaces a note's
// content through it, as a PATCH of the content would.
func NewTarget(svc *Service) content.Target { return svc.items.Target() }
