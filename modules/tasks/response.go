package tasks

import "folio/modules/document"

// Response is a task as the API writes it. The module's other front end, the MCP server, answers
// with the same.
type Response = taskResponse

// ToResponse is the API's conversion of a task.
func ToResponse(v View) (Response, error) { return toTaskResponse(v) }

// ToExportResponse is ToResponse rendering without the render cache (document.RenderOnce): the
// export reads each item once.
func ToExportResponse(v View) (Response, error) { return renderTask(v, document.RenderOnce) }
