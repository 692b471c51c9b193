package observability

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/db"
)

// TestGORMSpans: a GORM statement run with a request's context is a client span below the
// request's span, with the parameterised SQL and never a bound value; not finding a row is no
// error, a failed statement is one; the next statement on the same session is not a child of
// the previous one.
func TestGORMSpans(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	tracing := &Tracing{provider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))}
	gdb, err := db.Open(db.Options{SQLitePath: filepath.Join(t.TempDir(), "folio.db"), MaxOpenConns: 1, MaxIdleConns: 1}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := tracing.InstrumentDB(gdb); err != nil {
		t.Fatal(err)
	}
	type item struct {
		ID   int
		Name string
	}
	if err := gdb.AutoMigrate(&item{}); err != nil {
		t.Fatal(err)
	}

	ctx, request := tracing.provider.Tracer("test").Start(context.Background(), "GET /items")
	session := gdb.WithContext(ctx)
	const secret = "a-bound-value"
	if err := session.Create(&item{ID: 1, Name: secret}).Error; err != nil {
		t.Fatal(err)
	}
	if err := session.Where("name = ?", "nobody").First(&item{}).Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Fatalf("First of no row: %v", err)
	}
	if err := session.Exec("INSERT INTO no_such_table VALUES (1)").Error; err == nil {
		t.Fatal("an insert into a missing table succeeded")
	}
	request.End()

	var dbSpans []sdktrace.ReadOnlySpan
	for _, s := range recorder.Ended() {
		if s.SpanKind() == trace.SpanKindClient && s.SpanContext().TraceID() == request.SpanContext().TraceID() {
			dbSpans = append(dbSpans, s)
		}
	}
	if len(dbSpans) != 3 {
		t.Fatalf("%d client spans in the request's trace, want 3 (create, first, exec)", len(dbSpans))
	}
	for _, s := range dbSpans {
		if s.Parent().SpanID() != request.SpanContext().SpanID() {
			t.Errorf("span %q is not a child of the request's span", s.Name())
		}
		attrs := attribute.NewSet(s.Attributes()...)
		if v, _ := attrs.Value("db.system.name"); v.AsString() != "sqlite" {
			t.Errorf("span %q: db.system.name %q, want sqlite", s.Name(), v.AsString())
		}
		query, _ := attrs.Value("db.query.text")
		if query.AsString() == "" {
			t.Errorf("span %q has no db.query.text", s.Name())
		}
		for _, v := range []string{secret, "nobody"} {
			if strings.Contains(query.AsString(), v) {
				t.Errorf("span %q's SQL holds a bound value: %s", s.Name(), query.AsString())
			}
		}
	}
	if got := dbSpans[0].Name(); got != "insert items" {
		t.Errorf("the create's span is named %q, want \"insert items\"", got)
	}
	if s := dbSpans[1]; s.Status().Code == codes.Error {
		t.Errorf("a First that found no row is an error on its span: %v", s.Status())
	}
	if s := dbSpans[2]; s.Status().Code != codes.Error || len(s.Events()) == 0 {
		t.Errorf("the failed statement's span has status %v and %d events, want the error", s.Status(), len(s.Events()))
	}
}
