#!/usr/bin/env bash
# deploy/build-image.sh — build folio's image without an image registry (README.md, "Deploy").
#
# The Dockerfile's first stage needs the official Go image; where nothing can be pulled, this
# script compiles the binary with the host's Go toolchain instead and runs the Dockerfile's final
# stage (`FROM scratch` …, which pulls nothing) on a context prepared the same way as that stage's
# /rootfs: the static binary, the host's CA bundle, a passwd/group for the non-root user (65532)
# and the empty data directory. The image is the same as `docker build .` gives.
#
# Usage: deploy/build-image.sh [TAG]      (default: $FOLIO_IMAGE, else folio:local)
# Needs: go, docker (any engine; the legacy builder is used, so no buildx), /etc/ssl/certs/ca-certificates.crt
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
tag=${1:-${FOLIO_IMAGE:-folio:local}}
certs=${FOLIO_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
[ -r "$certs" ] || { echo "build-image: no CA bundle at $certs (install ca-certificates or set FOLIO_CA_BUNDLE)" >&2; exit 1; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/rootfs/etc/ssl/certs" "$ctx/data"

t0=$(date +%s)
# Same flags as the Dockerfile, the revision and its time from the host's checkout (folio version;
# Go's own VCS stamping is off wherever GOFLAGS has -buildvcs=false, and says nothing of a dirty
# tree in that case, so the revision is marked "+dirty" here when the tree has changes).
rev=$(git rev-parse HEAD 2>/dev/null || true)
[ -n "$rev" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && rev="$rev+dirty"
at=$(git log -1 --format=%cI 2>/dev/null || true)
CGO_ENABLED=0 go build -trimpath -buildvcs=false -tags timetzdata \
  -ldflags "-s -w -X folio/platform/buildinfo.revision=$rev -X folio/platform/buildinfo.commitTime=$at" \
  -o "$ctx/rootfs/folio" ./cmd/folio
cp "$certs" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
echo 'folio:x:65532:65532:folio:/data:/sbin/nologin' >"$ctx/rootfs/etc/passwd"
echo 'folio:x:65532:' >"$ctx/rootfs/etc/group"
# Stable times, so that an unchanged binary reuses the builder's cached layers.
find "$ctx" -exec touch -h -d @0 {} +

# The Dockerfile's last stage, its `COPY --from=build /x` reading /x of this context instead.
awk '/^FROM /{stage=$0; body=""; next} {body=body $0 "\n"} END{printf "%s\n%s", stage, body}' Dockerfile \
  | sed 's/^COPY --from=build /COPY /' >"$ctx/Dockerfile"
grep -q '^FROM scratch' "$ctx/Dockerfile" || { echo "build-image: Dockerfile's last stage is not FROM scratch" >&2; exit 1; }

# The legacy builder: it needs no buildx plugin and pulls nothing for FROM scratch.
# (Its deprecation notice is shown only when the build fails.)
if ! DOCKER_BUILDKIT=0 docker build -q -t "$tag" "$ctx" >/dev/null 2>"$ctx.log"; then
  cat "$ctx.log" >&2; rm -f "$ctx.log"; exit 1
fi
rm -f "$ctx.log"
size=$(docker image inspect --format '{{.Size}}' "$tag")
echo "build-image: $tag built in $(( $(date +%s) - t0 ))s, $(awk -v s="$size" 'BEGIN{printf "%.1f MB", s/1e6}')" >&2
