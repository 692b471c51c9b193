package e2e

import (
	"net/http"
	"testing"

	"folio/platform/auth"
	"folio/tests/apitest"
)

// TestEmptyQueryValues: a present but empty value of an enum or boolean query parameter is 400
// VALIDATION_ERROR naming the parameter, on every list (an empty value is not one of the enum's
// values, and reading it as "no filter" would hand back everything); limit likewise. An empty id
// filter or cursor is no filter, no cursor (a documented convenience for clients that fill a URL
// template with an absent value).
func TestEmptyQueryValues(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Quinn Query"), auth.ScopeReadWrite)
		for _, tc := range []struct{ path, param string }{
			{"/audit-log?resourceType=", "resourceType"},
			{"/audit-log?resourceType=&apiKeyId=", "resourceType"},
			{"/tasks?status=", "status"},
			{"/tasks?archived=", "archived"},
			{"/notes?archived=", "archived"},
			{"/notes?limit=", "limit"},
			{"/tasks?limit=", "limit"},
			{"/audit-log?limit=", "limit"},
		} {
			wantErr(t, s.Get(t, key, tc.path), http.StatusBadRequest, "VALIDATION_ERROR", `"`+tc.param+`"`)
		}
		for _, path := range []string{
			"/audit-log?apiKeyId=", "/audit-log?cursor=", "/notes?notebookId=", "/notes?cursor=",
			"/tasks?notebookId=", "/tasks?cursor=", "/audit-log?resourceType=note", "/tasks?status=TODO",
		} {
			apitest.Must(t, s.Get(t, key, path), http.StatusOK)
		}
	})
}
