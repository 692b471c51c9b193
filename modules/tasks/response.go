package tasks

// Response is a task as the API writes it. The module's other front end, the MCP server, answers
// with the same.
type Response = taskResponse

// ToResponse is the API's conversion of a task.
func ToResponse(v View) (Response, error) { return toTaskResponse(v) }
