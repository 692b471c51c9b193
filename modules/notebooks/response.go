package notebooks

// Response is a notebook as the API writes it (ListPage). The MCP server and the export read the
// same.
type Response = notebookResponse
