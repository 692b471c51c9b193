#!/usr/bin/env bash
# The generated-client check (README, "API"): builds folio, starts it on a throwaway SQLite
# database with a user and a key made by the CLI, fetches the served OpenAPI document, lints it
# (Redocly, every finding an error), generates TypeScript types from it (openapi-typescript),
# type-checks client.ts against them (tsc) and runs it (tsx, openapi-fetch) against the server.
# Needs Go, Node.js 20+ and npm; the npm packages are pinned in package-lock.json.
set -euo pipefail
cd "$(dirname "$0")"
t0=$(date +%s)
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# No telemetry or update check from Redocly: CI reaches only the package registries.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
npm ci --no-audit --no-fund --loglevel=error
(cd ../.. && go build -o "$tmp/folio" ./cmd/folio)

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
export FOLIO_SQLITE_PATH="$tmp/folio.db" FOLIO_HTTP_ADDR="127.0.0.1:$port" FOLIO_LOG_LEVEL=warn
unset FOLIO_DATABASE_URL FOLIO_REDIS_URL
"$tmp/folio" user create --email client-check@example.com --name "Client Check" >/dev/null
key=$("$tmp/folio" key create --email client-check@example.com --name client-check --scope 3)
"$tmp/folio" serve 2>"$tmp/server.log" &
pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 100); do
  curl -fsS "$url/readyz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/server.log"; exit 1; }
  sleep 0.1
done

curl -fsS "$url/api/v1/openapi.json" -o "$tmp/openapi.json"
npx redocly lint --config redocly.yaml "$tmp/openapi.json" 2>&1 | grep -v '║\|╔\|╚' || { echo "lint failed"; exit 1; }
npx openapi-typescript "$tmp/openapi.json" --output generated/schema.d.ts
npx tsc -p tsconfig.json
FOLIO_URL="$url" FOLIO_KEY="$key" npx tsx client.ts
echo "client check done in $(( $(date +%s) - t0 ))s"
