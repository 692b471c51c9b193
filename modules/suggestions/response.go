package suggestions

import "folio/platform/content"

// ToResponse is the API's conversion of a suggestion, as a suggest answers it. The MCP server's
// propose tools answer with the same.
func ToResponse(sg Suggestion) (content.Suggestion, error) { return toSuggestionResponse(sg) }
