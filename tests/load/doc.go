// Package load is folio's load harness: Go benchmarks that start the real application (the whole
// fx graph and HTTP server, on a fresh PostgreSQL database seeded with SQL) and drive it over
// HTTP from a fixed number of client goroutines on keep-alive connections, reporting requests per
// second and the 50th and 99th latency percentiles. It runs only when asked:
//
//	FOLIO_TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' \
//	  go test ./tests/load -run '^$' -bench . -benchtime 10s
//
// See README.md, section Performance, for the scenario and the figures.
package load
