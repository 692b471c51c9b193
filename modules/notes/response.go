package notes

// Response is a note as the API writes it (GET /notes/:id without pendingSuggestion). The
// module's other front end, the MCP server, answers with the same.
type Response = noteResponse

// ToResponse is the API's conversion of a note.
func ToResponse(v View) (Response, error) { return toNoteResponse(v) }
