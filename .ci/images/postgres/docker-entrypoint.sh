#!/usr/bin/env bash
# Entrypoint of folio-test/postgres:15, a locally built stand-in for the
# official postgres:15 image (Debian's postgresql-15 on a minimal bookworm).
#
# It follows the official image's documented contract, so testcontainers-go's
# postgres module (and a plain `docker run`) behave the same with either image:
#   * POSTGRES_PASSWORD (required unless POSTGRES_HOST_AUTH_METHOD=trust),
#     POSTGRES_USER (default postgres), POSTGRES_DB (default $POSTGRES_USER),
#     POSTGRES_INITDB_ARGS, POSTGRES_INITDB_WALDIR, POSTGRES_HOST_AUTH_METHOD
#     (default scram-sha-256), and the *_FILE variants of the first three;
#   * PGDATA (default /var/lib/postgresql/data; an empty tmpfs mounted there
#     works);
#   * on first start: initdb, then a temporary server on the unix socket only
#     (it logs "database system is ready to accept connections" once), creates
#     POSTGRES_DB, runs /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz|
#     *.sql.xz|*.sql.zst in name order, stops, and then the real server starts
#     (which logs the line a second time) listening on all addresses;
#   * local (socket) and loopback connections are trusted, all other hosts
#     must authenticate with a password;
#   * a first argument starting with "-" is taken as options to `postgres`.
# Differences, on purpose: initdb runs with --no-sync, and the image's
# postgresql.conf template turns fsync, synchronous_commit and
# full_page_writes off (test data only: a crash may lose it); JIT is not
# installed. Running the container with --user other than root/postgres is
# not supported (the official image's nss_wrapper trick is not reproduced).
# This is an independent implementation, not a copy of the official script.
set -Eeo pipefail

log() { printf '%s [entrypoint] %s\n' "$(date '+%Y-%m-%d %H:%M:%S.%3N %Z')" "$*"; }
err() { printf '%s [entrypoint] ERROR: %s\n' "$(date '+%Y-%m-%d %H:%M:%S.%3N %Z')" "$*" >&2; }

# file_env VAR [default]: VAR or the content of the file named by VAR_FILE.
file_env() {
  local var=$1 fvar="${1}_FILE" def=${2:-} val
  if [ -n "${!var:-}" ] && [ -n "${!fvar:-}" ]; then
    err "both $var and $fvar are set (they are exclusive)"; exit 1
  fi
  val=$def
  if [ -n "${!var:-}" ]; then val=${!var}
  elif [ -n "${!fvar:-}" ]; then val=$(<"${!fvar}")
  fi
  export "$var=$val"
  unset "$fvar"
}

# True when the arguments ask postgres for help/version instead of a server.
wants_help() {
  local a
  for a; do
    case "$a" in
      -'?'|--help|--describe-config|-V|--version) return 0 ;;
    esac
  done
  return 1
}

setup_env() {
  file_env POSTGRES_PASSWORD
  file_env POSTGRES_USER postgres
  file_env POSTGRES_DB "$POSTGRES_USER"
  file_env POSTGRES_INITDB_ARGS
  : "${POSTGRES_HOST_AUTH_METHOD:=}"
  export PGDATA=${PGDATA:-/var/lib/postgresql/data}
  DB_EXISTS=
  [ -s "$PGDATA/PG_VERSION" ] && DB_EXISTS=1
  return 0
}

make_dirs() {
  mkdir -p "$PGDATA"
  chmod 00700 "$PGDATA" 2>/dev/null || true
  mkdir -p /var/run/postgresql
  chmod 03775 /var/run/postgresql 2>/dev/null || true
  if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
    mkdir -p "$POSTGRES_INITDB_WALDIR"
    chmod 700 "$POSTGRES_INITDB_WALDIR" 2>/dev/null || true
  fi
  if [ "$(id -u)" = 0 ]; then
    # Only what is not ours yet: a large existing PGDATA stays untouched.
    find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
    chown postgres:postgres /var/run/postgresql
    [ -z "${POSTGRES_INITDB_WALDIR:-}" ] || \
      find "$POSTGRES_INITDB_WALDIR" \! -user postgres -exec chown postgres:postgres '{}' +
  fi
}

check_env() {
  if [ -z "$POSTGRES_PASSWORD" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
    cat >&2 <<'EOM'
Error: Database is uninitialized and superuser password is not specified.
       You must specify POSTGRES_PASSWORD to a non-empty value for the
       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".

       You may also use "POSTGRES_HOST_AUTH_METHOD=trust" to allow all
       connections without a password. This is *not* recommended.
EOM
    exit 1
  fi
  if [ "$POSTGRES_HOST_AUTH_METHOD" = trust ]; then
    log "WARNING: POSTGRES_HOST_AUTH_METHOD=trust: every host may connect without a password"
  fi
}

run_initdb() {
  local -a args=(--username="$POSTGRES_USER" --no-sync)
  [ -z "${POSTGRES_INITDB_WALDIR:-}" ] || args+=(--waldir="$POSTGRES_INITDB_WALDIR")
  local pwfile
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  # POSTGRES_INITDB_ARGS is word-split on purpose, like the official image.
  # shellcheck disable=SC2086
  initdb "${args[@]}" --pwfile="$pwfile" $POSTGRES_INITDB_ARGS
  rm -f "$pwfile"
}

setup_hba() {
  local method=$POSTGRES_HOST_AUTH_METHOD
  if [ -z "$method" ]; then
    if grep -Eq "^[[:space:]]*password_encryption[[:space:]]*=[[:space:]]*'?md5" "$PGDATA/postgresql.conf"; then
      method=md5
    else
      method=scram-sha-256
    fi
  fi
  {
    printf '\n# added by docker-entrypoint.sh: password auth for every other host\n'
    printf 'host all all all %s\n' "$method"
  } >>"$PGDATA/pg_hba.conf"
}

# psql as the superuser over the unix socket (trusted).
process_sql() {
  local -a q=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  [ -z "$POSTGRES_DB" ] || q+=(--dbname "$POSTGRES_DB")
  PGHOST='' PGHOSTADDR='' "${q[@]}" "$@"
}

temp_server_start() {
  [ "$1" = postgres ] && shift
  local opts='' a
  for a in "$@" -c listen_addresses= -p "${PGPORT:-5432}"; do
    opts+="$(printf '%q' "$a") "
  done
  PGUSER="${PGUSER:-$POSTGRES_USER}" pg_ctl -D "$PGDATA" -o "$opts" -w start
}

temp_server_stop() {
  PGUSER="${PGUSER:-postgres}" pg_ctl -D "$PGDATA" -m fast -w stop
}

setup_db() {
  local exists
  # psql -c does not interpolate :'var', so both statements go via stdin.
  # POSTGRES_DB='' for the call only: connect to "postgres", while
  # db="$POSTGRES_DB" is expanded before, with the real name.
  # shellcheck disable=SC2097,SC2098
  exists=$(POSTGRES_DB='' process_sql --dbname postgres --set db="$POSTGRES_DB" --tuples-only <<'EOSQL'
SELECT 1 FROM pg_database WHERE datname = :'db' ;
EOSQL
)
  if [ -z "${exists//[[:space:]]/}" ]; then
    # shellcheck disable=SC2097,SC2098
    POSTGRES_DB='' process_sql --dbname postgres --set db="$POSTGRES_DB" <<'EOSQL'
CREATE DATABASE :"db" ;
EOSQL
    echo
  fi
}

process_init_files() {
  local f
  echo
  for f; do
    case "$f" in
      *.sh)
        if [ -x "$f" ]; then log "running $f"; "$f"
        else log "sourcing $f"; # shellcheck disable=SC1090
          . "$f"
        fi ;;
      *.sql)     log "running $f"; process_sql -f "$f"; echo ;;
      *.sql.gz)  log "running $f"; gunzip -c "$f" | process_sql; echo ;;
      *.sql.xz)  log "running $f"; xzcat "$f" | process_sql; echo ;;
      *.sql.zst) log "running $f"; zstd -dc "$f" | process_sql; echo ;;
      *)         log "ignoring $f" ;;
    esac
    echo
  done
}

main() {
  if [ "${1:0:1}" = '-' ]; then
    set -- postgres "$@"
  fi

  if [ "$1" = postgres ] && ! wants_help "$@"; then
    setup_env
    make_dirs
    if [ "$(id -u)" = 0 ]; then
      # Drop to the postgres user and run this script again.
      exec env HOME=/var/lib/postgresql \
        setpriv --reuid=postgres --regid=postgres --init-groups \
        "${BASH_SOURCE[0]}" "$@"
    fi

    if [ -z "$DB_EXISTS" ]; then
      check_env
      # Fail early when the init directory is unreadable.
      ls /docker-entrypoint-initdb.d/ >/dev/null
      run_initdb
      setup_hba
      export PGPASSWORD="${PGPASSWORD:-$POSTGRES_PASSWORD}"
      temp_server_start "$@"
      setup_db
      shopt -s nullglob
      process_init_files /docker-entrypoint-initdb.d/*
      shopt -u nullglob
      temp_server_stop
      unset PGPASSWORD
      echo
      log 'PostgreSQL init process complete; ready for start up.'
      echo
    else
      echo
      log 'PostgreSQL Database directory appears to contain a database; Skipping initialization'
      echo
    fi
  fi

  exec "$@"
}

# Sourcing this file (as the official image allows) only defines functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
