package events

import (
	"folio/platform/httpx"
	"folio/platform/markdown"
)

// appendPage writes GET /events' answer, {"data": [...], "nextCursor": "..."}, exactly as
// encoding/json would write feedPage (with HTML escaping off, as httpx.JSON), without its cost:
// encoding/json re-validates and re-compacts every json.RawMessage it writes, and each event's
// data (the resource's JSON, up to 100 KB of Markdown) is already compact, valid JSON, written by
// json.Marshal at emission (Emit) or the literal null. That re-scan was a third of a page's Go
// CPU; the access rule's per-page check (CONTRACT.md section 20) is paid for with it.
// TestAppendPageMatchesEncodingJSON holds it to encoding/json's bytes.
func appendPage(b []byte, rows []Event, next string) []byte {
	b = append(b, `{"data":[`...)
	for i, e := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEvent(b, e)
	}
	b = append(b, `],"nextCursor":`...)
	b = appendString(b, next)
	return append(b, '}')
}

func appendEvent(b []byte, e Event) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, FormatID(*e.Seq))
	b = append(b, `,"type":`...)
	b = appendString(b, e.Type)
	b = append(b, `,"createdAt":`...)
	b = appendString(b, httpx.Time(e.CreatedAt))
	b = append(b, `,"resourceType":`...)
	b = appendString(b, e.ResourceType)
	b = append(b, `,"resourceId":`...)
	b = appendString(b, e.ResourceID)
	b = append(b, `,"notebookId":`...)
	b = appendNullable(b, e.NotebookID)
	b = append(b, `,"workspaceId":`...)
	b = appendNullable(b, e.WorkspaceID)
	if e.ActorUserID == "" {
		// A reminder: nobody acted (CONTRACT.md section 21).
		b = append(b, `,"actor":null,"data":`...)
	} else {
		b = append(b, `,"actor":{"userId":`...)
		b = appendString(b, e.ActorUserID)
		b = append(b, `,"apiKeyName":`...)
		b = appendNullable(b, e.APIKeyName)
		b = append(b, `,"apiKeyPrefix":`...)
		b = appendNullable(b, e.APIKeyPrefix)
		b = append(b, `},"data":`...)
	}
	b = append(b, e.Data...)
	return append(b, '}')
}

func appendNullable(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendString writes s as a JSON string as httpx.JSON does (encoding/json, HTML escaping off).
func appendString(b []byte, s string) []byte { return markdown.AppendJSONString(b, s, false) }
