#!/usr/bin/env bash
# Vendors Redoc's standalone bundle into web/static (see README.md "API"): the exact npm release
# REDOC_VERSION, with one change, and records its SHA-256 in redoc_pin_test.go's expectation.
#
# The change: Redoc 2's menu footer shows Redocly's logo from https://cdn.redoc.ly; the page must
# load nothing from another origin (its CSP refuses it, and a console error would follow), so
# that URL becomes an empty inline SVG. Nothing else in the bundle is touched.
#
# Run from anywhere: bash platform/apiref/vendor-redoc.sh, then update redocSHA256 in
# redoc_pin_test.go and the style hashes in apiref.go if TestBrowserDocs reports new ones.
set -euo pipefail
REDOC_VERSION=2.5.4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "redoc@$REDOC_VERSION" >/dev/null && tar xzf "redoc-$REDOC_VERSION.tgz")
logo='https://cdn.redoc.ly/redoc/logo-mini.svg'
empty="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1 1'/%3E"
grep -qF "$logo" "$tmp/package/bundles/redoc.standalone.js"
sed "s|$logo|$empty|g" "$tmp/package/bundles/redoc.standalone.js" > "$here/web/static/redoc.standalone.js"
if grep -q 'cdn\.redoc\.ly' "$here/web/static/redoc.standalone.js"; then
	echo "the bundle still names cdn.redoc.ly" >&2
	exit 1
fi
{ cat "$tmp/package/LICENSE"; echo; cat "$tmp/package/bundles/redoc.standalone.js.LICENSE.txt"; } > "$here/web/static/redoc.LICENSE.txt"
sha256sum "$here/web/static/redoc.standalone.js"
