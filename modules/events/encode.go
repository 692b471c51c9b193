package events

import (
	"unicode/utf8"

	"folio/platform/httpx"
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
	b = append(b, `,"actor":{"userId":`...)
	b = appendString(b, e.ActorUserID)
	b = append(b, `,"apiKeyName":`...)
	b = appendNullable(b, e.APIKeyName)
	b = append(b, `,"apiKeyPrefix":`...)
	b = appendNullable(b, e.APIKeyPrefix)
	b = append(b, `},"data":`...)
	b = append(b, e.Data...)
	return append(b, '}')
}

func appendNullable(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json does with HTML escaping off:
// quote, backslash and control characters escaped (\b \f \n \r \t by name), U+2028 and U+2029
// escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
