#!/bin/sh
# Entrypoint of folio-test/redis:7, a locally built stand-in for the official
# redis:7 image (Debian's redis-server 7.0 on a minimal bookworm).
#
# Same calling convention as the official image, so testcontainers-go's redis
# module works unchanged:
#   * a first argument starting with "-" or ending in ".conf" is given to
#     redis-server (e.g. `--loglevel verbose`, `/usr/local/redis.conf --x y`);
#   * redis-server runs as the redis user in /data, logs to stdout
#     ("* Ready to accept connections ..." when it is up) and listens on
#     6379 on all addresses.
# Test-image defaults, put before the caller's arguments (so the caller's win)
# and only for keys a given config file does not set itself:
#   --protected-mode no (as the official image's build default),
#   --save "" and --appendonly no (no persistence at all).
set -e

if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi

if [ "$1" = redis-server ]; then
  shift
  conf=""
  if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    conf=$1; shift   # redis-server [configfile] [options]
  fi
  conf_sets() { [ -n "$conf" ] && [ -r "$conf" ] && grep -Eqi "^[[:space:]]*$1([[:space:]]|\$)" "$conf"; }
  conf_sets protected-mode || set -- --protected-mode no "$@"
  conf_sets appendonly || set -- --appendonly no "$@"
  conf_sets save || set -- --save "" "$@"
  if [ -n "$conf" ]; then
    set -- redis-server "$conf" "$@"
  else
    set -- redis-server "$@"
  fi

  if [ "$(id -u)" = 0 ]; then
    # The working directory (/data) belongs to redis; then drop privileges.
    if [ "$(pwd)" = /data ]; then
      find . \! -user redis -exec chown redis:redis '{}' + 2>/dev/null || true
    fi
    umask 0077
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
  umask 0077
fi

exec "$@"
