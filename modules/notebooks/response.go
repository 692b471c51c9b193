package notebooks

// Response is a notebook as the API writes it. The module's other front end, the MCP server,
// answers with the same.
type Response = notebookResponse

// ToResponse is the API's conversion of a notebook.
func ToResponse(n Notebook) Response { return toNotebookResponse(n) }
