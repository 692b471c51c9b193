#!/usr/bin/env bash
# .ci/compose-test.sh — the compose stack of compose.yaml, tested on this machine (docs/operations.md, "Deploy").
#
# With the registry-free images (folio from deploy/build-image.sh; PostgreSQL, Redis and nginx from
# .ci/build-test-images.sh) it brings up PostgreSQL, Redis, three folio instances and nginx, and
# checks through nginx that:
#   1. all three instances started together on the empty database and are healthy (their
#      migrations serialised by the advisory lock; HEALTHCHECK = `folio healthcheck`);
#   2. a user and a key made with `docker compose exec folio1 /folio …` work through nginx;
#   3. of 150 requests of one user (sent 4 at a time, spread over the three instances by nginx)
#      exactly FOLIO_RATE_LIMIT = 100 are accepted and 50 get 429: the limit is shared in Redis;
#   4. folio sees the client's address (X-Forwarded-For from a trusted proxy), not nginx's;
#   5. the TLS sample configuration (deploy/nginx/folio-tls.conf.example) serves HTTPS and
#      redirects HTTP;
#   6. while another user's requests run, one instance is stopped, and every request still succeeds.
# The stack is removed at the end, whatever happened (trap), its logs printed first on failure.
#
# Run as root (it may install docker-compose and start dockerd). Exit status: 0 all checks passed,
# 1 a check failed, 2 Docker could not be started (with a loud warning: nothing was tested).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
T0=$(date +%s)
say() { printf '[compose-test] %s\n' "$*"; }
passed=0
pass() { passed=$((passed + 1)); say "PASS: $*"; }
fail() { say "FAIL: $*"; exit 1; }

if ! env=$(bash .ci/docker-up.sh --print-env); then
  echo "################################################################################"
  echo "## WARNING: Docker could not be started: the compose stack test did NOT run."
  echo "################################################################################"
  exit 2
fi
eval "$env"

# docker compose (the v2 plugin) when the engine's client has it, else docker-compose (Debian
# bookworm packages only the v1 one, docker-compose 1.29); installed from Debian when missing.
if docker compose version >/dev/null 2>&1; then
  compose_cmd=(docker compose)
else
  if ! command -v docker-compose >/dev/null 2>&1; then
    say "installing a compose client with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 -qq update >/dev/null 2>&1 || true
    if [ -n "$(apt-cache policy docker-compose-plugin 2>/dev/null | awk '/Candidate:/ && $2 != "(none)"')" ]; then
      apt-get -o DPkg::Lock::Timeout=300 -qq install -y docker-compose-plugin >/dev/null
    else
      apt-get -o DPkg::Lock::Timeout=300 -qq install -y --no-install-recommends docker-compose >/dev/null
    fi
  fi
  if docker compose version >/dev/null 2>&1; then compose_cmd=(docker compose); else compose_cmd=(docker-compose); fi
fi
say "compose client: $("${compose_cmd[@]}" version --short 2>/dev/null || "${compose_cmd[@]}" version | head -n1)"

t=$(date +%s)
bash .ci/build-test-images.sh postgres redis nginx | sed 's/^/  /'
bash deploy/build-image.sh folio-test/folio:compose 2>&1 | sed 's/^/  /'
say "images ready in $(( $(date +%s) - t ))s"

export COMPOSE_PROJECT_NAME=folio-compose-test
export FOLIO_IMAGE=folio-test/folio:compose
export POSTGRES_IMAGE=folio-test/postgres:15
export REDIS_IMAGE=folio-test/redis:7
export NGINX_IMAGE=folio-test/nginx:1.22
export POSTGRES_PASSWORD="ci-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export FOLIO_PUBLISH=127.0.0.1:   # a free port on the loopback address
export FOLIO_RATE_LIMIT=100
unset FOLIO_TRUSTED_PROXIES FOLIO_KEY_PEPPER FOLIO_LOG_LEVEL
compose() { "${compose_cmd[@]}" -f compose.yaml "$@"; }

teardown() {
  local rc=$?
  set +e
  if [ "$rc" != 0 ]; then
    say "stack logs (last 40 lines per service):"
    compose logs --no-color --tail=40 2>&1 | sed 's/^/  /'
  fi
  compose down -v --remove-orphans -t 5 >/dev/null 2>&1
  say "stack removed; $passed checks passed; total $(( $(date +%s) - T0 ))s"
  # The plain closing line CI reads.
  echo "compose: $passed passed, $([ "$rc" = 0 ] && echo 0 || echo 1) failed"
  exit "$rc"
}
trap teardown EXIT
# A stack left by an interrupted run goes first.
compose down -v --remove-orphans -t 1 >/dev/null 2>&1 || true

t=$(date +%s)
# `up` starts nginx only once the three instances report healthy (depends_on, service_healthy).
compose up -d --no-build 2>&1 | sed 's/^/  /' || fail "docker compose up failed"
say "stack up in $(( $(date +%s) - t ))s"
for s in folio1 folio2 folio3; do
  cid=$(compose ps -q "$s")
  h=$(docker inspect --format '{{.State.Health.Status}}' "$cid")
  [ "$h" = healthy ] || fail "$s is $h"
done
pass "three instances started at once on an empty database, all healthy (folio healthcheck)"

port=$(compose port nginx 80 | sed 's/.*://')
base="http://127.0.0.1:$port"
ready=""
for _ in $(seq 1 40); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ]; then ready=1; break; fi
  sleep 0.25
done
[ -n "$ready" ] || fail "GET $base/readyz through nginx never answered 200"

# -T: no terminal (CI has none). stdout of the CLI is its result alone.
cli() { compose exec -T folio1 /folio "$@"; }
cli user create --email ann@example.com --name Ann >/dev/null || fail "folio user create"
key1=$(cli key create --email ann@example.com --name compose-test --scope 3) || fail "folio key create"
cli user create --email bob@example.com --name Bob >/dev/null || fail "folio user create (bob)"
key2=$(cli key create --email bob@example.com --name compose-test --scope 3) || fail "folio key create (bob)"
[[ "$key1" == svc_live_* && "$key2" == svc_live_* ]] || fail "key create printed no key"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/api/v1/notebooks" -H "Authorization: Bearer $key2" \
  -H 'Content-Type: application/json' -d '{"name":"compose","color":"blue"}')
[ "$code" = 201 ] || fail "POST /api/v1/notebooks through nginx: $code, want 201"
pass "user and keys made with docker compose exec; a key works through nginx"

# 3. 150 requests of one user, 4 at a time; the first request above was Bob's, not Ann's.
codes=$(seq 1 150 | xargs -P 4 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
  -H "Authorization: Bearer $key1" "$base/api/v1/notebooks")
ok=$(grep -c '^200$' <<<"$codes" || true)
limited=$(grep -c '^429$' <<<"$codes" || true)
say "150 requests: $ok × 200, $limited × 429, others: $(grep -vE '^(200|429)$' <<<"$codes" | sort | uniq -c | tr '\n' ' ')"
per=""
for s in folio1 folio2 folio3; do
  n=$(compose logs --no-color "$s" 2>/dev/null | grep -c '"path":"/api/v1/notebooks","status":' || true)
  [ "$n" -gt 0 ] || fail "$s served none of the requests: nginx did not balance"
  per="$per $s=$n"
done
say "requests per instance:$per"
[ "$ok" = 100 ] && [ "$limited" = 50 ] || fail "want exactly 100 accepted and 50 × 429"
pass "exactly 100 of 150 accepted across three instances: the rate limit is shared through Redis"

# 4. The client's address, not nginx's, in folio's access log.
nginx_ip=$(docker inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$(compose ps -q nginx)" | awk '{print $1}')
ips=$(compose logs --no-color folio1 folio2 folio3 2>/dev/null | grep -o '"path":"/api/v1/notebooks".*"clientIp":"[^"]*"' \
  | sed 's/.*"clientIp":"//; s/"$//' | sort -u | tr '\n' ' ')
say "nginx is $nginx_ip; client addresses folio logged: $ips"
[ -n "$ips" ] || fail "no clientIp in the access log"
grep -qw -- "$nginx_ip" <<<"$ips" && fail "folio logged nginx's address as the client's: X-Forwarded-For not believed"
compose logs --no-color folio1 folio2 folio3 2>/dev/null | grep -q 'not a trusted proxy' \
  && fail "folio warned about an untrusted proxy"
pass "folio sees the client's address through nginx (FOLIO_TRUSTED_PROXIES)"

# 5. TLS termination: deploy/nginx/folio-tls.conf.example in a second nginx on the stack's network,
# with a throwaway self-signed certificate. (Before an instance stops: nginx needs every upstream
# name to resolve when it starts.)
tls=$(mktemp -d)
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -keyout "$tls/privkey.pem" -out "$tls/fullchain.pem" >/dev/null 2>&1 || fail "openssl could not make a certificate"
chmod 644 "$tls"/*.pem
net=$(docker inspect --format '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$(compose ps -q nginx)" | awk '{print $1}')
tls_cid=$(docker run -d --network "$net" -p 127.0.0.1::443 -p 127.0.0.1::80 \
  -v "$PWD/deploy/nginx/folio-tls.conf.example:/etc/nginx/conf.d/default.conf:ro" \
  -v "$tls/fullchain.pem:/etc/nginx/tls/fullchain.pem:ro" -v "$tls/privkey.pem:/etc/nginx/tls/privkey.pem:ro" \
  "$NGINX_IMAGE") || fail "the TLS nginx did not start"
tls_port=$(docker port "$tls_cid" 443/tcp | head -n1 | sed 's/.*://')
plain_port=$(docker port "$tls_cid" 80/tcp | head -n1 | sed 's/.*://')
code=""
for _ in $(seq 1 40); do
  code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key2" "https://127.0.0.1:$tls_port/api/v1/notebooks" || true)
  [ "$code" = 200 ] && break
  sleep 0.25
done
redirect=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$plain_port/readyz" || true)
docker logs "$tls_cid" 2>&1 | tail -n 5 | sed 's/^/  tls nginx: /'
docker rm -f "$tls_cid" >/dev/null; rm -rf "$tls"
[ "$code" = 200 ] || fail "GET over TLS through folio-tls.conf.example: $code, want 200"
[[ "$redirect" == "308 https://"* ]] || fail "plain HTTP on the TLS configuration: $redirect, want a 308 to https"
pass "TLS terminated by nginx with deploy/nginx/folio-tls.conf.example (HTTPS 200, HTTP 308 to https)"

# 6. Stop one instance while Bob's requests run; every request must still succeed.
out=$(mktemp)
(
  for _ in $(seq 1 60); do
    curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $key2" "$base/api/v1/notebooks"
    sleep 0.05
  done
) >"$out" &
loop=$!
sleep 0.5
compose stop -t 10 folio2 2>&1 | sed 's/^/  /'
wait "$loop"
n=$(wc -l <"$out")
bad=$(grep -vc '^200$' "$out" || true)
say "$n requests while folio2 stopped: $(sort "$out" | uniq -c | tr '\n' ' ')"
rm -f "$out"
[ "$(docker inspect --format '{{.State.Running}}' "$(compose ps -q folio2)")" = false ] || fail "folio2 still runs"
[ "$n" = 60 ] && [ "$bad" = 0 ] || fail "requests failed while an instance stopped"
for _ in $(seq 1 10); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key2" "$base/api/v1/notebooks")
  [ "$code" = 200 ] || fail "after folio2 stopped: $code"
done
pass "an instance stopped under load: all 70 requests succeeded (proxy_next_upstream)"
