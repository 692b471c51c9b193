package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Environment variables read by the PostgreSQL helpers.
const (
	// PostgresURLEnv names an existing PostgreSQL server to test against; the tests create and
	// drop their own databases on it, so the role needs CREATEDB.
	PostgresURLEnv = "FOLIO_TEST_DATABASE_URL"
	// PostgresImageEnv overrides the image started when PostgresURLEnv is unset.
	PostgresImageEnv = "FOLIO_TEST_POSTGRES_IMAGE"
	// DefaultPostgresImage is the image started by default.
	DefaultPostgresImage = "postgres:16-alpine"
	// SkipPostgresEnv, set to 1, skips the PostgreSQL suites (loudly) for a quick local loop.
	// CI never sets it.
	SkipPostgresEnv = "FOLIO_TEST_SKIP_POSTGRES"
)

var pgEnv struct {
	once      sync.Once
	adminURL  string
	err       error
	container *tcpostgres.PostgresContainer

	templateOnce sync.Once
	template     string
	templateErr  error
}

// PostgresAdminURL returns the URL of a PostgreSQL server on which tests may create databases:
// FOLIO_TEST_DATABASE_URL when set, otherwise a container of FOLIO_TEST_POSTGRES_IMAGE (default
// postgres:16-alpine) started once per test binary through testcontainers. Without either, the
// test fails: the PostgreSQL suite is never skipped silently.
func PostgresAdminURL(t testing.TB) string {
	t.Helper()
	if os.Getenv(SkipPostgresEnv) == "1" {
		t.Skipf("PostgreSQL suite SKIPPED because %s=1", SkipPostgresEnv)
	}
	pgEnv.once.Do(startPostgres)
	if pgEnv.err != nil {
		t.Fatalf("testenv: no PostgreSQL for this test: %v\n"+
			"Set %s to a server the tests may create databases on (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), "+
			"or make Docker reachable so that testcontainers can start %s.", pgEnv.err, PostgresURLEnv, postgresImage())
	}
	return pgEnv.adminURL
}

func postgresImage() string {
	if img := os.Getenv(PostgresImageEnv); img != "" {
		return img
	}
	return DefaultPostgresImage
}

func startPostgres() {
	if u := os.Getenv(PostgresURLEnv); u != "" {
		pgEnv.adminURL = u
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := tcpostgres.Run(ctx, postgresImage(),
		tcpostgres.WithDatabase("folio"), tcpostgres.WithUsername("folio"), tcpostgres.WithPassword("folio"),
		tcpostgres.BasicWaitStrategies(),
		testcontainers.WithCmdArgs("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"),
	)
	if err != nil {
		pgEnv.err = fmt.Errorf("start %s: %w", postgresImage(), err)
		if c != nil {
			_ = c.Terminate(context.Background())
		}
		return
	}
	pgEnv.container = c
	pgEnv.adminURL, pgEnv.err = c.ConnectionString(ctx, "sslmode=disable")
}

// StopPostgres terminates the container PostgresAdminURL started, if any. Call it from TestMain.
func StopPostgres() error {
	if pgEnv.container == nil {
		return nil
	}
	return pgEnv.container.Terminate(context.Background())
}

// PostgresDB returns the URL of a fresh database for one test: a copy of a template database that
// migrate prepared once per test binary (CREATE DATABASE ... TEMPLATE is a file copy, far quicker
// than migrating each time). The database is dropped when the test ends.
func PostgresDB(t testing.TB, migrate func(url string) error) string {
	t.Helper()
	admin := PostgresAdminURL(t)
	pgEnv.templateOnce.Do(func() {
		name := "folio_tmpl_" + randomSuffix()
		if err := execAdmin(admin, "CREATE DATABASE "+name); err != nil {
			pgEnv.templateErr = err
			return
		}
		if err := migrate(withDatabase(admin, name)); err != nil {
			pgEnv.templateErr = fmt.Errorf("migrate template: %w", err)
			return
		}
		pgEnv.template = name
	})
	if pgEnv.templateErr != nil {
		t.Fatalf("testenv: %v", pgEnv.templateErr)
	}
	name := "folio_test_" + randomSuffix()
	if err := execAdmin(admin, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, pgEnv.template)); err != nil {
		t.Fatalf("testenv: create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := execAdmin(admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("testenv: drop %s: %v", name, err)
		}
	})
	return withDatabase(admin, name)
}

// EmptyPostgresDB returns the URL of a new, empty database (no schema, no migrations) for one
// test, dropped when the test ends.
func EmptyPostgresDB(t testing.TB) string {
	t.Helper()
	admin := PostgresAdminURL(t)
	name := "folio_empty_" + randomSuffix()
	if err := execAdmin(admin, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("testenv: create empty database: %v", err)
	}
	t.Cleanup(func() {
		if err := execAdmin(admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("testenv: drop %s: %v", name, err)
		}
	})
	return withDatabase(admin, name)
}

// DropTemplate removes the template database (call it from TestMain).
func DropTemplate() {
	if pgEnv.template != "" {
		_ = execAdmin(pgEnv.adminURL, "DROP DATABASE IF EXISTS "+pgEnv.template+" WITH (FORCE)")
	}
}

func execAdmin(adminURL, stmt string) error {
	gdb, err := gorm.Open(postgres.Open(adminURL), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	sqlDB, _ := gdb.DB()
	defer sqlDB.Close()
	return gdb.Exec(stmt).Error
}

func withDatabase(rawURL, name string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	u.Path = "/" + name
	return u.String()
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
