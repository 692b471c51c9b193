#!/usr/bin/env bash
# .ci/docker-up.sh — make sure a Docker engine answers on this machine.
#
# Idempotent. Must run as root (it installs packages and starts dockerd).
#   1. installs Debian's docker.io (and debootstrap, used by
#      build-test-images.sh) with apt-get when they are missing;
#   2. when no engine answers, starts dockerd in the background (log:
#      /var/log/folio-dockerd.log), trying the overlay2 storage driver first
#      and falling back to vfs, each first with iptables, then with
#      --iptables=false (published ports then go through docker-proxy);
#   3. waits (bounded) until `docker info` answers;
#   4. checks that a published port is reachable from the host (what
#      testcontainers needs), using a tiny throwaway image built from
#      busybox-static; a candidate dockerd that fails it is stopped and the
#      next one tried.
# Measured on this kind of machine: ~11 s from nothing (apt-get install
# included), ~1.5 s to restart dockerd, ~0.7 s when it already runs.
#
# Usage:
#   .ci/docker-up.sh                 progress on stderr, nothing on stdout
#   .ci/docker-up.sh --print-env     also prints, on stdout, the `export`
#                                    lines a testcontainers-go test needs:
#     env=$(bash .ci/docker-up.sh --print-env) || exit 1; eval "$env"
#   The variables it prints:
#     DOCKER_HOST=unix:///var/run/docker.sock
#     TESTCONTAINERS_RYUK_DISABLED=true   (the reaper image cannot be pulled)
#     TESTCONTAINERS_HOST_OVERRIDE=localhost
#       needed because this machine has a /.dockerenv file: testcontainers
#       then believes it runs inside a container and dials the default
#       gateway instead of localhost for mapped ports, which times out.
#
# Environment knobs (all optional):
#   DOCKER_UP_TIMEOUT      seconds to wait for each dockerd attempt (default 60)
#   DOCKER_UP_LOG          dockerd log file (default /var/log/folio-dockerd.log)
#   DOCKER_UP_STORAGE      force a storage driver (overlay2|vfs)
#   DOCKER_UP_SKIP_PORT_CHECK=1   skip the port-mapping check
#
# Exit status: 0 when the engine answers (and the port check passed),
# non-zero with a message on stderr otherwise.
set -euo pipefail

START_NS=$(date +%s%N)
print_env=0
for a in "$@"; do
  case "$a" in
    --print-env) print_env=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) printf '[docker-up] ERROR: unknown argument %s\n' "$a" >&2; exit 2 ;;
  esac
done
LOG=${DOCKER_UP_LOG:-/var/log/folio-dockerd.log}
TIMEOUT=${DOCKER_UP_TIMEOUT:-60}
SOCK=/var/run/docker.sock
PROBE_IMAGE=folio-test/portprobe:latest

say() { printf '[docker-up] %s\n' "$*" >&2; }
die() { printf '[docker-up] ERROR: %s\n' "$*" >&2; exit 1; }
elapsed() { echo $(( ($(date +%s%N) - START_NS) / 1000000 ))ms; }

[ "$(id -u)" = 0 ] || die "must run as root (installs packages, starts dockerd)"

# The engine this script starts listens on the default unix socket; a
# DOCKER_HOST pointing elsewhere would make the checks below lie.
if [ -n "${DOCKER_HOST:-}" ] && [ "${DOCKER_HOST}" != "unix://$SOCK" ]; then
  say "note: ignoring DOCKER_HOST=$DOCKER_HOST; using unix://$SOCK"
fi
export DOCKER_HOST=unix://$SOCK

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

# ---------------------------------------------------------------- packages
need_pkgs=()
command -v dockerd >/dev/null 2>&1 || need_pkgs+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need_pkgs+=(debootstrap)
# busybox-static: a static httpd for the port-mapping check below.
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' \
  || need_pkgs+=(busybox-static)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  say "installing ${need_pkgs[*]} with apt-get"
  t0=$(date +%s)
  export DEBIAN_FRONTEND=noninteractive
  # apt-get may be busy (another session installing); wait for its lock.
  apt_get() { apt-get -o DPkg::Lock::Timeout=300 -qq "$@"; }
  apt_get update >/dev/null 2>&1 || die "apt-get update failed"
  # The machine's /usr/local/bin/docker (a newer client) stays first in PATH;
  # docker.io brings dockerd, containerd, runc and docker-proxy.
  apt_get install -y --no-install-recommends "${need_pkgs[@]}" >/dev/null 2>&1 \
    || die "apt-get install ${need_pkgs[*]} failed"
  say "packages installed in $(( $(date +%s) - t0 ))s"
fi
command -v dockerd >/dev/null 2>&1 || die "dockerd not found after installing docker.io"
command -v docker >/dev/null 2>&1 || die "docker client not found"

# ---------------------------------------------------------------- dockerd
# pid of a live dockerd (zombies, e.g. of a killed session, do not count).
dockerd_pid() {
  local p
  for p in $(pgrep -x dockerd || true); do
    [ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" = Z ] && continue
    echo "$p"; return 0
  done
}

start_dockerd() { # $1 storage driver, rest: extra flags
  local driver=$1; shift
  say "starting dockerd (storage-driver=$driver $*), log: $LOG"
  mkdir -p "$(dirname "$LOG")"
  {
    echo "==== $(date -Is) dockerd --storage-driver=$driver $*"
  } >>"$LOG"
  # setsid: not in this shell's process group, so it survives the caller.
  setsid nohup dockerd --host="unix://$SOCK" --storage-driver="$driver" \
    --log-level=warn "$@" >>"$LOG" 2>&1 </dev/null &
  local pid=$! waited=0
  while [ $waited -lt $((TIMEOUT * 2)) ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "dockerd ($driver $*) exited; last log lines:"
      tail -n 5 "$LOG" | sed 's/^/    /' >&2
      return 1
    fi
    if engine_answers; then
      say "dockerd answered after $((waited / 2)).$((waited % 2 * 5))s (pid $pid)"
      return 0
    fi
    sleep 0.5; waited=$((waited + 1))
  done
  say "dockerd ($driver $*) did not answer within ${TIMEOUT}s; stopping it"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  return 1
}

stop_our_dockerd() {
  local pid; pid=$(dockerd_pid)
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
}

# ------------------------------------------------------ port-mapping check
# testcontainers connects from the host to the container's published port, so
# an engine that answers but cannot publish a port is of no use.
port_check() {
  [ "${DOCKER_UP_SKIP_PORT_CHECK:-0}" != 1 ] || return 0
  if ! docker image inspect "$PROBE_IMAGE" >/dev/null 2>&1; then
    local tmp; tmp=$(mktemp -d)
    mkdir -p "$tmp/bin" "$tmp/www"
    cp /bin/busybox "$tmp/bin/busybox"
    echo folio-port-probe-ok >"$tmp/www/index.html"
    if ! tar -C "$tmp" -c . | docker import \
      --change 'ENTRYPOINT ["/bin/busybox"]' \
      --change 'CMD ["httpd","-f","-p","8080","-h","/www"]' \
      --change 'EXPOSE 8080/tcp' - "$PROBE_IMAGE" >/dev/null; then
      rm -rf "$tmp"; say "docker import of the port-probe image failed"; return 1
    fi
    rm -rf "$tmp"
  fi
  local cid hostport ok="" resp
  cid=$(docker run -d -p 127.0.0.1::8080 "$PROBE_IMAGE") || { say "docker run failed"; return 1; }
  hostport=$(docker port "$cid" 8080/tcp | head -n1 | sed 's/.*://')
  for _ in $(seq 1 40); do
    # busybox httpd answers a bare GET on the published port.
    if resp=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$hostport && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3" 2>/dev/null) \
       && grep -q folio-port-probe-ok <<<"$resp"; then
      ok=1; break
    fi
    sleep 0.25
  done
  docker rm -f "$cid" >/dev/null 2>&1 || true
  if [ -z "$ok" ]; then
    say "a published port (127.0.0.1:$hostport -> container:8080) is not reachable from the host"
    return 1
  fi
  say "port mapping works (127.0.0.1:$hostport -> container:8080)"
}

if engine_answers; then
  say "Docker engine already answers"
  port_check || die "the running engine cannot publish ports; testcontainers would fail (stop that dockerd and rerun; log: $LOG)"
else
  pid=$(dockerd_pid)
  if [ -n "$pid" ]; then
    # A dockerd exists but does not answer yet (e.g. another caller just
    # started it): give it the bounded wait before deciding it is broken.
    say "dockerd (pid $pid) is running but not answering yet; waiting up to ${TIMEOUT}s"
    for _ in $(seq 1 $((TIMEOUT * 2))); do engine_answers && break; sleep 0.5; done
    engine_answers || die "dockerd (pid $pid) runs but 'docker info' does not answer; see $LOG"
    port_check || die "the running engine cannot publish ports; testcontainers would fail (log: $LOG)"
  else
    rm -f /var/run/docker.pid
    drivers=(overlay2 vfs)
    [ -n "${DOCKER_UP_STORAGE:-}" ] && drivers=("$DOCKER_UP_STORAGE")
    started=""
    # Each candidate must answer AND publish a port. Without iptables,
    # published ports still work through docker-proxy (the userland proxy).
    for d in "${drivers[@]}"; do
      for extra in "" "--iptables=false --ip-masq=false"; do
        # shellcheck disable=SC2086
        if start_dockerd "$d" $extra && port_check; then
          started="$d${extra:+ ($extra)}"; break 2
        fi
        stop_our_dockerd
      done
    done
    [ -n "$started" ] || die "could not start a usable dockerd with any of: ${drivers[*]}, with or without iptables (see $LOG)"
    say "started dockerd: storage driver $started"
  fi
fi

driver=$(docker info --format '{{.Driver}}' 2>/dev/null || echo '?')
server=$(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?')
say "engine: Docker $server, storage driver: $driver"
say "Docker ready in $(elapsed) (DOCKER_HOST=$DOCKER_HOST)"
if [ "$print_env" = 1 ]; then
  printf 'export DOCKER_HOST=%s\n' "$DOCKER_HOST"
  printf 'export TESTCONTAINERS_RYUK_DISABLED=true\n'
  printf 'export TESTCONTAINERS_HOST_OVERRIDE=localhost\n'
fi
