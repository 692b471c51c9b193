#!/bin/sh
# Entrypoint of folio-test/chromium, the browser the web tests drive when the
# machine has no Chromium of its own (Debian bookworm's chromium package on a
# minimal bookworm; see tests/testenv/chromium.go).
#
# Runs headless Chromium with its DevTools endpoint on
# --remote-debugging-port=$DEVTOOLS_PORT (default 9222), on all addresses. The
# tests start it with the host's network (so the browser reaches a test
# server on 127.0.0.1) and give each run a free port in DEVTOOLS_PORT.
# Arguments are added to Chromium's command line.
# No sandbox: the container is the boundary, and it runs as root.
set -e
port=${DEVTOOLS_PORT:-9222}
profile=$(mktemp -d /tmp/chromium-profile.XXXXXX)
exec chromium \
  --headless \
  --remote-debugging-address=0.0.0.0 \
  --remote-debugging-port="$port" \
  --no-sandbox \
  --disable-gpu \
  --disable-dev-shm-usage \
  --no-first-run \
  --no-default-browser-check \
  --disable-background-networking \
  --disable-component-update \
  --disable-sync \
  --hide-scrollbars \
  --window-size=1280,900 \
  --user-data-dir="$profile" \
  "$@" \
  about:blank
