#!/usr/bin/env bash
# Vendors axe-core (the accessibility engine the web app's browser test runs on every page, see
# docs/web.md) for the tests only: the exact npm release AXE_VERSION, unchanged, with its licence
# (MPL-2.0). The browser test injects axe.min.js into each page through the DevTools protocol; it
# is never served by folio. Run from anywhere: bash tests/web/testdata/axe/vendor-axe.sh, then
# update axeSHA256 in tests/web/app_browser_test.go.
set -euo pipefail
AXE_VERSION=4.14.1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "axe-core@$AXE_VERSION" >/dev/null && tar xzf "axe-core-$AXE_VERSION.tgz")
cp "$tmp/package/axe.min.js" "$here/axe.min.js"
{ cat "$tmp/package/LICENSE"; echo; cat "$tmp/package/LICENSE-3RD-PARTY.txt"; } > "$here/axe.LICENSE.txt"
sha256sum "$here/axe.min.js"
