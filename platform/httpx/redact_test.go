package httpx

import "testing"

func TestRedactKeys(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/notes/abc": "/api/v1/notes/abc",
		"/api/v1/notes/svc_live_ABCDefgh_0123456789abcdefghijKLMN": "/api/v1/notes/svc_live_ABCDefgh_[REDACTED]",
		"/x/svc_live_ABCDefgh_0123456789abcdefghijKLMN/y":          "/x/svc_live_ABCDefgh_[REDACTED]/y",
		"/x/SVC_LIVE_ABCDEFGH_0123456789":                          "/x/svc_live_ABCDEFGH_[REDACTED]",
		"/x/svc_live_short":                                        "/x/svc_live_[REDACTED]",
		"/x/svc_live_":                                             "/x/svc_live_[REDACTED]",
		"a=svc_live_ABCDefgh_01234-5&b=svc_live_Zz&c=1":            "a=svc_live_ABCDefgh_[REDACTED]&b=svc_live_[REDACTED]&c=1",
		"/api/v1/calendar/abcdefghijklmnopqrstuvwxyz.ics":          "/api/v1/calendar/[REDACTED]",
		"/api/v1/CALENDAR/x.ics?y=1":                               "/api/v1/CALENDAR/[REDACTED]?y=1",
	} {
		if got := RedactKeys(in); got != want {
			t.Errorf("RedactKeys(%q) = %q, want %q", in, got, want)
		}
	}
}
