package imports

// importResponse is POST /import's answer (CONTRACT.md section 24).
type importResponse struct {
	Created createdCounts `json:"created"`
	Changed []changedFile `json:"changed"`
	Skipped []skippedFile `json:"skipped"`
}

type createdCounts struct {
	Notebooks int `json:"notebooks"`
	Notes     int `json:"notes"`
	Tasks     int `json:"tasks"`
}

type changedFile struct {
	File string `json:"file"`
	What string `json:"what"`
}

type skippedFile struct {
	File string `json:"file"`
	Why  string `json:"why"`
}

// toImportResponse is a Result as the API answers it: the lists are arrays, never null.
func toImportResponse(r Result) importResponse {
	out := importResponse{Created: createdCounts{r.Notebooks, r.Notes, r.Tasks}, Changed: []changedFile{}, Skipped: []skippedFile{}}
	for _, c := range r.Changed {
		out.Changed = append(out.Changed, changedFile{c.File, c.Note})
	}
	for _, s := range r.Skipped {
		out.Skipped = append(out.Skipped, skippedFile{s.File, s.Note})
	}
	return out
}

// Answer is the Result as POST /import answers it, for another front end to print (folio import).
func (r Result) Answer() any { return toImportResponse(r) }
