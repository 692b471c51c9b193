package suggestions

import "folio/modules/content"

// ToResponse is the API's conversion of a suggestion, as a suggest answers it. The MCP server's
// propose tools answer with the same.
func ToResponse(sg Suggestion) (content.Suggestion, error) { return toSuggestionResponse(sg) }

// InboxItem is a suggestion as GET /suggestions lists it; ToInboxItem converts an InboxEntry to
// it. The MCP server's list_suggestions tool answers with the same.
type InboxItem = inboxItem

// ToInboxItem is the API's conversion of an inbox entry.
func ToInboxItem(e InboxEntry) (InboxItem, error) { return toInboxItem(e) }

// ParseInboxStatus checks a status filter as GET /suggestions does.
func ParseInboxStatus(v string) (string, error) { return parseStatus(v) }
