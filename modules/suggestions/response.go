package suggestions

// ToResponse is the API's conversion of a suggestion, as a suggest answers it. The MCP server's
// propose tools answer with the same.
func ToResponse(sg Suggestion) (Proposed, error) { return toProposed(sg) }

// InboxItem is a suggestion as GET /suggestions lists it (SearchInbox). The MCP server's
// list_suggestions tool answers with the same.
type InboxItem = inboxItem
