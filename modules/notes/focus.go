package notes

import "folio/modules/items"

// focus is how notes show in the Focus view (GET /focus): by their targetAt and followUpAt.
func focus() items.Focus[Note] { return items.Focus[Note]{Table: "notes"} }

// NewFocusSource returns the notes' source for the Focus view: the focus module reads the notes'
// lists through it.
func NewFocusSource(svc *Service) items.FocusSource { return svc.items.FocusSource(focus()) }
