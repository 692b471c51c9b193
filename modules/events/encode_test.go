package events

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestAppendPageMatchesEncodingJSON: the hand-written page is byte for byte what encoding/json
// writes for feedPage with HTML escaping off (httpx.JSON), for strings that need every kind of
// escape and for null and non-null optional fields.
func TestAppendPageMatchesEncodingJSON(t *testing.T) {
	seq1, seq2 := int64(1), int64(1234567)
	nb, ws := "nb1", "ws<&>1"
	odd := "key \"name\" \\ \n\r\t\b\f \x01\x1f é 日本 \u2028\u2029 <script>& \xff end"
	prefix := "svc_live_ABCDEFGH"
	rows := []Event{
		{Seq: &seq1, Type: "note.created", ResourceType: "note", ResourceID: "r1", NotebookID: &nb, WorkspaceID: &ws, ActorUserID: "u1",
			APIKeyName: &odd, APIKeyPrefix: &prefix, Data: `{"id":"r1","content":"a \u003c b","n":[1,2,{"x":null}]}`, CreatedAt: time.Date(2026, 11, 26, 10, 31, 7, 123e6, time.UTC)},
		{Seq: &seq2, Type: "note.deleted", ResourceType: "note", ResourceID: "r2", ActorUserID: odd, Data: nullData, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	}
	for _, page := range [][]Event{rows, nil} {
		want := feedPage{Data: make([]eventResponse, len(page)), NextCursor: "evt_0000000000001234567"}
		for i, e := range page {
			want.Data[i] = toEventResponse(e)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(want); err != nil {
			t.Fatal(err)
		}
		got := appendPage(nil, page, want.NextCursor)
		if !bytes.Equal(got, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))) {
			t.Fatalf("appendPage differs from encoding/json:\n got  %s\n want %s", got, buf.Bytes())
		}
	}
}
