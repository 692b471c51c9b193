#!/usr/bin/env bash
# shellcheck disable=SC2016  # the chroot scripts are single-quoted on purpose
# .ci/build-test-images.sh — build the Docker images the tests start through
# testcontainers-go, without any image registry:
#
#   folio-test/postgres:15   Debian bookworm + postgresql-15, same contract as
#                            the official postgres:15 image (see
#                            .ci/images/postgres/docker-entrypoint.sh)
#   folio-test/redis:7       Debian bookworm + redis-server 7.0, same calling
#                            convention as the official redis:7 image
#   folio-test/nginx:1.22    Debian bookworm + nginx 1.22, laid out like the
#                            official nginx image (conf.d/*.conf included,
#                            logs to stdout/stderr, STOPSIGNAL SIGQUIT); only
#                            the compose stack test uses it (.ci/compose-test.sh)
#   folio-test/chromium      Debian bookworm + chromium, headless, DevTools on
#                            --remote-debugging-port=$DEVTOOLS_PORT (default
#                            9222; see .ci/images/chromium/docker-entrypoint.sh);
#                            the web tests start it when the machine has no
#                            Chromium of its own (tests/testenv/chromium.go)
#
# Each image is a debootstrapped minimal bookworm (variant minbase) with the
# server installed from Debian's packages, turned into an image with
# `docker import --change ...`. The bare rootfs is cached as a tarball, and
# downloaded .deb files are kept, under the cache directory, so a rebuild
# does not download again.
#
# An image is built only when it is missing or was built from other inputs
# (this script or its entrypoint changed: the image's label
# folio.test-image.inputs holds their hash). Run as root, after
# .ci/docker-up.sh.
#
# Usage: .ci/build-test-images.sh [--force] [--force-base] [postgres] [redis] [nginx] [chromium]
#   --force        rebuild the images even when up to date (keeps the cache)
#   --force-base   also re-debootstrap the cached base rootfs
#   postgres|redis|nginx|chromium  build only these (default: postgres and redis)
# Environment:
#   FOLIO_TEST_IMAGES_CACHE  cache directory (default /var/cache/folio-test-images)
#   DEBIAN_MIRROR            (default http://deb.debian.org/debian)
#   DEBIAN_SECURITY_MIRROR   (default http://deb.debian.org/debian-security)
#   FOLIO_BUILD_TRACE=1      trace the chroot steps, with times, into the
#                            build logs ($FOLIO_TEST_IMAGES_CACHE/<image>.log)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${FOLIO_TEST_IMAGES_CACHE:-/var/cache/folio-test-images}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SEC_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SUITE=bookworm
BASE_TAR=$CACHE/$SUITE-minbase.tar
DEBS=$CACHE/debs
PG_IMAGE=folio-test/postgres:15
REDIS_IMAGE=folio-test/redis:7
NGINX_IMAGE=folio-test/nginx:1.22
CHROMIUM_IMAGE=folio-test/chromium

say() { printf '[build-test-images] %s\n' "$*"; }
die() { printf '[build-test-images] ERROR: %s\n' "$*" >&2; exit 1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
secs_since() { local d=$(( $(now_ms) - $1 )); printf '%d.%01ds' $((d / 1000)) $(( (d % 1000) / 100 )); }

force=0 force_base=0 want=()
for a in "$@"; do
  case "$a" in
    --force) force=1 ;;
    --force-base) force=1; force_base=1 ;;
    postgres|redis|nginx|chromium) want+=("$a") ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $a (see --help)" ;;
  esac
done
[ ${#want[@]} -gt 0 ] || want=(postgres redis)

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and chroot need it)"
command -v docker >/dev/null || die "docker client not found; run .ci/docker-up.sh first"
timeout 10 docker info >/dev/null 2>&1 || die "no Docker engine answers; run .ci/docker-up.sh first"
command -v debootstrap >/dev/null || die "debootstrap not found; run .ci/docker-up.sh first (it installs it)"

mkdir -p "$CACHE" "$DEBS"
# One build at a time on this machine.
exec 9>"$CACHE/.lock"
flock -w 1800 9 || die "another build holds $CACHE/.lock"
# Downloaded packages superseded long ago are not worth keeping.
find "$DEBS" -maxdepth 1 -name '*.deb' -mtime +60 -delete 2>/dev/null || true

# ------------------------------------------------------------ chroot helpers
WORK=""
cleanup() {
  local rc=$?
  set +e
  if [ -n "$WORK" ] && [ -d "$WORK" ]; then
    # Unmount anything left under the work tree before deleting it.
    { grep -o " $WORK/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do
      umount -l "$m" 2>/dev/null || true
    done
    if grep -q " $WORK/" /proc/mounts; then
      say "leaving $WORK: something is still mounted under it"
    else
      rm -rf "$WORK"
    fi
  fi
  exit $rc
}
trap cleanup EXIT

# in_root ROOT SCRIPT: run a bash script inside the chroot, with /proc and
# the host's name resolution (for apt), and the .deb cache hard-linked in.
in_root() {
  local root=$1 script=$2 trace=""
  # FOLIO_BUILD_TRACE=1: timestamped trace of the chroot steps in the log.
  [ "${FOLIO_BUILD_TRACE:-0}" = 1 ] && trace='PS4="+ \$(date +%T.%3N) "; set -x;'
  mkdir -p "$root/proc" "$root/var/cache/apt/archives/partial"
  mount -t proc proc "$root/proc" || return 1
  cp /etc/hosts "$root/etc/hosts"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || : >"$root/etc/resolv.conf"
  # Hard links when on one filesystem, copies otherwise.
  find "$DEBS" -maxdepth 1 -name '*.deb' -exec cp -lf -t "$root/var/cache/apt/archives/" '{}' + 2>/dev/null \
    || find "$DEBS" -maxdepth 1 -name '*.deb' -exec cp -f -t "$root/var/cache/apt/archives/" '{}' +
  # Build-time only: dpkg skips fsync (throwaway rootfs, much faster).
  echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/00-folio-build-unsafe-io"
  local rc=0
  chroot "$root" /usr/bin/env -i \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    /bin/bash -euo pipefail -c "$trace$script" || rc=$?
  umount "$root/proc" || umount -l "$root/proc"
  rm -f "$root/etc/dpkg/dpkg.cfg.d/00-folio-build-unsafe-io"
  # Keep what apt downloaded, then empty the image's apt cache.
  find "$root/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -lf -t "$DEBS/" '{}' + 2>/dev/null \
    || find "$root/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -f -t "$DEBS/" '{}' + || true
  rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/cache/apt/archives/partial"/* \
    "$root/var/cache/apt"/*.bin
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
  : >"$root/etc/resolv.conf"
  return $rc
}

# Common slimming, run at the end of every image's chroot script.
# (The .deb files are not deleted here: in_root keeps them in the cache.)
SLIM='
rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/lib/dpkg/*-old \
  /var/log/apt/* /var/log/dpkg.log /var/log/alternatives.log /var/log/bootstrap.log \
  /tmp/* /var/tmp/* /root/.cache
find /usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
find /usr/share/doc -mindepth 1 -type d -empty -delete 2>/dev/null || true
rm -rf /usr/share/man/* /usr/share/info/* /usr/share/lintian /usr/share/linda
find /usr/share/locale -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} + 2>/dev/null || true
'

# ------------------------------------------------------------ base rootfs
build_base() {
  local t0; t0=$(now_ms)
  say "debootstrap $SUITE (minbase) from $MIRROR -> $BASE_TAR"
  local root=$WORK/base
  mkdir -p "$root"
  if ! debootstrap --variant=minbase --components=main "$SUITE" "$root" "$MIRROR" \
      >"$WORK/debootstrap.log" 2>&1; then
    tail -n 20 "$WORK/debootstrap.log" >&2
    die "debootstrap failed (full log: $WORK/debootstrap.log)"
  fi
  cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SEC_MIRROR $SUITE-security main
EOF
  # No docs, man pages or translations in anything installed later.
  cat >"$root/etc/dpkg/dpkg.cfg.d/01-folio-nodoc" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
  cat >"$root/etc/apt/apt.conf.d/01-folio" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
Acquire::Retries "3";
EOF
  # Never start services while installing packages in the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  in_root "$root" "
apt-get update -qq
apt-get -y -qq -o Dpkg::Options::=--force-confold upgrade
$SLIM" >"$WORK/base.log" 2>&1 || {
    tail -n 30 "$WORK/base.log" >&2
    die "updating the base rootfs failed"
  }
  rm -f "$root/etc/hostname"
  tar -C "$root" --numeric-owner -cf "$BASE_TAR.tmp" . && mv "$BASE_TAR.tmp" "$BASE_TAR"
  rm -rf "$root"
  say "base rootfs built in $(secs_since "$t0") ($(du -h "$BASE_TAR" | cut -f1))"
}

# ------------------------------------------------------------ images
inputs_hash() { # $1 image kind (an image without files of its own has no images/<kind>/)
  cat "$HERE/build-test-images.sh" $(ls "$HERE/images/$1"/* 2>/dev/null) | sha256sum | cut -c1-16
}

image_of() { # $1 image kind
  case "$1" in postgres) echo "$PG_IMAGE" ;; redis) echo "$REDIS_IMAGE" ;; nginx) echo "$NGINX_IMAGE" ;; chromium) echo "$CHROMIUM_IMAGE" ;; esac
}

image_current() { # $1 image, $2 hash
  local h
  h=$(docker image inspect --format '{{ index .Config.Labels "folio.test-image.inputs" }}' "$1" 2>/dev/null) || return 1
  [ "$h" = "$2" ]
}

PG_SCRIPT='
# Same uid/gid as the official image (999).
groupadd -r -g 999 postgres
useradd -r -g postgres -u 999 -d /var/lib/postgresql -s /bin/bash postgres
install -d -o postgres -g postgres -m 755 /var/lib/postgresql
apt-get update -qq
apt-get install -y -qq postgresql-common locales xz-utils zstd >/dev/null
# No cluster from the package: the entrypoint runs initdb itself.
sed -ri "s/^#?\s*create_main_cluster\s*=.*/create_main_cluster = false/" /etc/postgresql-common/createcluster.conf
apt-get install -y -qq postgresql-15 >/dev/null
localedef -i en_US -c -f UTF-8 -A /usr/share/locale/locale.alias en_US.UTF-8
# locale sources are only needed to generate locales
rm -rf /usr/share/i18n/locales /usr/share/i18n/charmaps
# JIT (libllvm14, ~100 MB with libz3) is not wanted in a test image.
dpkg --purge --force-depends libllvm14 libz3-4 >/dev/null 2>&1 || true
rm -rf /usr/lib/postgresql/15/lib/llvmjit* /usr/lib/postgresql/15/lib/bitcode
# Template for every initdb: listen everywhere; speed over durability.
sample=/usr/share/postgresql/15/postgresql.conf.sample
sed -ri "s/^#?listen_addresses\s*=\s*\S+/listen_addresses = '"'"'*'"'"'/" "$sample"
grep -q "^listen_addresses = '"'"'\*'"'"'" "$sample"
cat >>"$sample" <<EOF

# folio-test image: throwaway test data, so durability is traded for speed.
fsync = off
synchronous_commit = off
full_page_writes = off
jit = off
EOF
install -d -o postgres -g postgres -m 3777 /var/run/postgresql
install -d -o postgres -g postgres -m 1777 /var/lib/postgresql/data
install -d -m 755 /docker-entrypoint-initdb.d
# Nothing of the package default cluster setup may remain.
rm -rf /var/lib/postgresql/15 /etc/postgresql/15
'"$SLIM"

REDIS_SCRIPT='
groupadd -r -g 999 redis
useradd -r -g redis -u 999 -d /data -s /usr/sbin/nologin redis
apt-get update -qq
apt-get install -y -qq redis-server >/dev/null
install -d -o redis -g redis -m 755 /data
rm -rf /var/lib/redis/* /var/log/redis/*
'"$SLIM"

# Debian's nginx, arranged like the official image: the server blocks come from
# /etc/nginx/conf.d/*.conf (Debian's nginx.conf includes them; its sites-enabled
# default server is removed), and the logs go to the container's stdout/stderr.
NGINX_SCRIPT='
apt-get update -qq
apt-get install -y -qq nginx >/dev/null
rm -f /etc/nginx/sites-enabled/default
ln -sf /dev/stdout /var/log/nginx/access.log
ln -sf /dev/stderr /var/log/nginx/error.log
'"$SLIM"

# Debian's chromium (the same package .ci/run installs on the host), with the
# fonts the host's pages are drawn with, so screenshots and axe's colour checks
# see text as on a machine with Chromium installed.
CHROMIUM_SCRIPT='
apt-get update -qq
apt-get install -y -qq chromium fonts-dejavu-core fonts-liberation >/dev/null
'"$SLIM"

build_image() { # $1 kind (postgres|redis|nginx|chromium)
  local kind=$1 image script hash t0 root
  image=$(image_of "$kind")
  case "$kind" in
    postgres) script=$PG_SCRIPT ;;
    redis) script=$REDIS_SCRIPT ;;
    nginx) script=$NGINX_SCRIPT ;;
    chromium) script=$CHROMIUM_SCRIPT ;;
  esac
  hash=$(inputs_hash "$kind")
  if [ "$force" = 0 ] && image_current "$image" "$hash"; then
    say "$image is up to date (inputs $hash); --force rebuilds it"
    return 0
  fi
  t0=$(now_ms)
  say "building $image"
  local old_id
  old_id=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  root=$WORK/$kind
  mkdir -p "$root"
  tar -C "$root" --numeric-owner -xpf "$BASE_TAR"
  if [ -f "$HERE/images/$kind/docker-entrypoint.sh" ]; then
    install -m 755 "$HERE/images/$kind/docker-entrypoint.sh" "$root/usr/local/bin/docker-entrypoint.sh"
  fi
  in_root "$root" "$script" >"$CACHE/$kind.log" 2>&1 || {
    tail -n 30 "$CACHE/$kind.log" >&2
    die "installing $kind in the rootfs failed (log: $CACHE/$kind.log)"
  }
  local -a changes
  local stopsignal=""
  case "$kind" in
    postgres)
      ln -sf usr/local/bin/docker-entrypoint.sh "$root/docker-entrypoint.sh"
      changes=(
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/lib/postgresql/15/bin'
        'ENV PG_MAJOR=15'
        'ENV LANG=en_US.utf8'
        'ENV PGDATA=/var/lib/postgresql/data'
        'ENTRYPOINT ["docker-entrypoint.sh"]'
        'CMD ["postgres"]'
        'EXPOSE 5432/tcp'
      )
      # Like the official image: SIGINT = fast shutdown, so a stop does not
      # wait for clients to disconnect (testcontainers' Terminate would
      # otherwise wait its 10 s stop timeout when a pool is still open).
      # `docker import --change` cannot set it (not a valid change command
      # on this engine), so a one-line `docker build` adds it below.
      stopsignal=SIGINT ;;
    redis)
      changes=(
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
        'WORKDIR /data'
        'ENTRYPOINT ["docker-entrypoint.sh"]'
        'CMD ["redis-server"]'
        'EXPOSE 6379/tcp'
      ) ;;
    nginx)
      changes=(
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
        'CMD ["nginx", "-g", "daemon off;"]'
        'EXPOSE 80/tcp'
      )
      # As the official image: SIGQUIT = graceful stop (finish the open requests).
      stopsignal=SIGQUIT ;;
    chromium)
      changes=(
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
        'ENV LANG=C.UTF-8'
        'ENTRYPOINT ["docker-entrypoint.sh"]'
        'EXPOSE 9222/tcp'
      ) ;;
  esac
  changes+=("LABEL folio.test-image.inputs=$hash")
  local -a cargs=()
  local c
  for c in "${changes[@]}"; do cargs+=(--change "$c"); done
  local target=$image
  [ -z "$stopsignal" ] || target=$image-rootfs
  tar -C "$root" --numeric-owner -c . | docker import "${cargs[@]}" \
    --message "folio test image ($kind, debootstrap $SUITE)" - "$target" >/dev/null \
    || die "docker import of $target failed"
  rm -rf "$root"
  if [ -n "$stopsignal" ]; then
    # Legacy builder, Dockerfile on stdin, no context: works offline.
    printf 'FROM %s\nSTOPSIGNAL %s\n' "$target" "$stopsignal" \
      | DOCKER_BUILDKIT=0 docker build -q -t "$image" - >/dev/null 2>"$WORK/$kind.build.log" \
      || { cat "$WORK/$kind.build.log" >&2; die "docker build (STOPSIGNAL) of $image failed"; }
    docker rmi "$target" >/dev/null   # only the tag: the layer is $image's parent
  fi
  # Drop the image this one replaces, unless a container still uses it.
  if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect --format '{{.Id}}' "$image")" ]; then
    docker rmi "$old_id" >/dev/null 2>&1 || true
  fi
  say "built $image in $(secs_since "$t0") ($(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'))"
}

T0=$(now_ms)
need_build=0
for k in "${want[@]}"; do
  img=$(image_of "$k")
  if [ "$force" = 1 ] || ! image_current "$img" "$(inputs_hash "$k")"; then need_build=1; fi
done
if [ "$need_build" = 1 ]; then
  WORK=$(mktemp -d "$CACHE/work.XXXXXX")
  if [ "$force_base" = 1 ] || [ ! -s "$BASE_TAR" ]; then
    build_base
  else
    say "using cached base rootfs $BASE_TAR ($(date -r "$BASE_TAR" '+%F %T'))"
  fi
fi
for k in "${want[@]}"; do build_image "$k"; done
say "done in $(secs_since "$T0"): $(for k in "${want[@]}"; do printf '%s ' "$(image_of "$k")"; done)"
