# folio's container image (README.md, "Deploy").
#
#   docker build -t folio .
#
# Two stages: the official Go image compiles a static binary (CGO_ENABLED=0: folio's SQLite is pure
# Go), and the image itself is `scratch` with nothing but that binary, the CA certificates, a
# passwd/group naming the non-root user and the data directory. The time zone database is inside
# the binary (-tags timetzdata), as scratch has no /usr/share/zoneinfo.
#
# Without a registry (no golang image to pull), deploy/build-image.sh builds the same image from a
# binary compiled on the host: it prepares the same /rootfs as the `build` stage below and runs
# the final stage of this file (everything after "FROM scratch") with the COPY lines pointed at
# it, so this file is the one definition of the image.

ARG GO_VERSION=1.26
FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# -trimpath: no build paths in the binary. VCS stamping needs the .git directory, which
# .dockerignore leaves out (a worktree's .git is a pointer outside the context): pass the revision
# and its time as build arguments instead (folio version prints them), e.g.
# --build-arg FOLIO_REVISION=$(git rev-parse HEAD) --build-arg FOLIO_COMMIT_TIME=$(git log -1 --format=%cI).
ARG FOLIO_REVISION=""
ARG FOLIO_COMMIT_TIME=""
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -tags timetzdata \
      -ldflags "-s -w -X folio/platform/buildinfo.revision=${FOLIO_REVISION} -X folio/platform/buildinfo.commitTime=${FOLIO_COMMIT_TIME}" -o /rootfs/folio ./cmd/folio \
 && mkdir -p /rootfs/etc/ssl/certs /data \
 && cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ \
 && echo 'folio:x:65532:65532:folio:/data:/sbin/nologin' >/rootfs/etc/passwd \
 && echo 'folio:x:65532:' >/rootfs/etc/group

FROM scratch
COPY --from=build /rootfs/ /
# The data directory belongs to the non-root user; a named volume mounted there starts as a copy
# of it (owner included), so the SQLite file can be created without root.
COPY --from=build --chown=65532:65532 /data /data
USER 65532:65532
ENV FOLIO_HTTP_ADDR=:8080 \
    FOLIO_SQLITE_PATH=/data/folio.db
VOLUME ["/data"]
WORKDIR /data
EXPOSE 8080
# No shell in the image: the binary checks itself (GET /readyz on FOLIO_HTTP_ADDR).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["/folio", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/folio"]
CMD ["serve"]
