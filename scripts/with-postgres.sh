#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests (and the bench), started by the project itself.
#
#   scripts/with-postgres.sh [--durable] -- COMMAND [ARGS...]
#       starts a server, runs COMMAND with DATABASE_URL exported, stops the server and deletes its folder
#       on every exit (COMMAND's exit status is returned; TERM/INT/HUP are forwarded to COMMAND).
#   scripts/with-postgres.sh [--durable] --serve
#       starts a server, prints one line `DATABASE_URL=postgres://...` on stdout, then keeps the server until
#       its standard input closes or it gets TERM/INT/HUP (the vitest global setup uses this: when vitest
#       exits, even by SIGKILL, the pipe closes and the server goes).
#
# When DATABASE_URL is already set, that server is used: COMMAND runs as is (--serve prints it back).
# Tests only: the cluster runs with fsync=off, synchronous_commit=off, full_page_writes=off, unless --durable
# (fsync=on, synchronous_commit=on, full_page_writes=on: what the bench measures).
#
# The binaries come from /usr/lib/postgresql/*/bin (the newest), or from PG_BIN when set; when none is
# installed and we are root, `apt-get install -y postgresql` installs them (only then: an unconditional install
# would upgrade packages). initdb refuses root, so as root the server runs as the `postgres` user (or `nobody`).
# A watchdog stops the server if this script itself is killed with SIGKILL.
set -euo pipefail

mode=run
durable=0
while [ $# -gt 0 ]; do
  case "$1" in
    --serve) mode=serve; shift ;;
    --durable) durable=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [ "$mode" = run ] && [ $# -eq 0 ]; then
  echo "with-postgres: no command given (usage: $0 [--durable] -- COMMAND [ARGS...] | --serve)" >&2
  exit 2
fi

log() { echo "with-postgres: $*" >&2; }

# An existing server wins.
if [ -n "${DATABASE_URL:-}" ]; then
  if [ "$mode" = serve ]; then
    echo "DATABASE_URL=$DATABASE_URL"
    cat >/dev/null || true # hold until stdin closes, like a started server would
    exit 0
  fi
  exec "$@"
fi

find_bin() {
  if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/initdb" ]; then echo "$PG_BIN"; return 0; fi
  local d best="" best_major=-1 major
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] || continue
    major="${d#/usr/lib/postgresql/}"; major="${major%%/*}"; major="${major%%.*}"
    case "$major" in ''|*[!0-9]*) continue ;; esac
    if [ "$major" -gt "$best_major" ]; then best="$d"; best_major="$major"; fi
  done
  [ -n "$best" ] || return 1
  echo "$best"
}

if ! BIN="$(find_bin)"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "no PostgreSQL under /usr/lib/postgresql; installing it with apt-get (only because it is missing)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q postgresql >&2 || { apt-get update -q >&2 && apt-get install -y -q postgresql >&2; }
    BIN="$(find_bin)" || { log "apt-get installed postgresql but no /usr/lib/postgresql/*/bin/initdb was found"; exit 1; }
  else
    log "no PostgreSQL found (/usr/lib/postgresql/*/bin or PG_BIN). Install it (apt-get install postgresql) or set DATABASE_URL to a server"
    exit 1
  fi
fi

# Who runs the server: initdb and postgres refuse root.
as_user=()
if [ "$(id -u)" = 0 ]; then
  if id postgres >/dev/null 2>&1; then user=postgres; else user=nobody; fi
  as_user=(runuser -u "$user" --)
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/navkernel-pg.XXXXXX")"
chmod 755 "$tmp"
[ ${#as_user[@]} -gt 0 ] && chown "$user" "$tmp"

child=""
watchdog=""
stopped=0
stop_server() {
  [ "$stopped" = 1 ] && return 0
  stopped=1
  if [ -f "$tmp/data/postmaster.pid" ]; then
    "${as_user[@]}" "$BIN/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
  stop_server
  if [ -n "$watchdog" ]; then kill "$watchdog" 2>/dev/null || true; fi
  exit "$status"
}
trap cleanup EXIT

"${as_user[@]}" "$BIN/initdb" -D "$tmp/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync --no-instructions >"$tmp/initdb.log" 2>&1 || {
  cat "$tmp/initdb.log" >&2; log "initdb failed"; exit 1;
}

if [ "$durable" = 1 ]; then
  settings="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
else
  settings="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

port=""
for attempt in 1 2 3 4 5; do
  p="$(free_port)"
  if "${as_user[@]}" "$BIN/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 start \
      -o "-p $p -k $tmp -c listen_addresses=127.0.0.1 -c max_connections=200 $settings" >/dev/null 2>&1; then
    port="$p"
    break
  fi
  log "server did not start on port $p (attempt $attempt); retrying"
  tail -n 5 "$tmp/server.log" >&2 2>/dev/null || true
done
[ -n "$port" ] || { log "could not start PostgreSQL (log above)"; exit 1; }

"$BIN/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c 'CREATE DATABASE navkernel_test' >/dev/null

# The watchdog: if this script dies without running its EXIT trap (SIGKILL), stop the server and delete the
# folder. Detached from our stdio so it never holds a pipe open.
parent=$$
(
  trap '' INT TERM HUP
  while kill -0 "$parent" 2>/dev/null; do sleep 1; done
  if [ -f "$tmp/data/postmaster.pid" ]; then "${as_user[@]}" "$BIN/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
) </dev/null >/dev/null 2>&1 &
watchdog=$!

export DATABASE_URL="postgres://postgres@127.0.0.1:$port/navkernel_test"
export NAVKERNEL_PG_SETTINGS="$settings"

if [ "$mode" = serve ]; then
  trap 'exit 143' TERM
  trap 'exit 130' INT
  trap 'exit 129' HUP
  echo "DATABASE_URL=$DATABASE_URL"
  # For tests that crash and restart the server: `${PG_AS[@]} $PG_BIN/pg_ctl -D $PGDATA -m immediate restart`.
  echo "PGDATA=$tmp/data"
  echo "PG_BIN=$BIN"
  echo "PG_AS=${as_user[*]:-}"
  # Wait for stdin to close. `read` returns on EOF, and on a trapped signal (bash runs the trap at once).
  while IFS= read -r _; do :; done || true
  exit 0
fi

# Run the command in the background and wait: bash defers a trap while a foreground child runs, and wait
# returns as soon as a trapped signal arrives. A background child of a non-interactive shell ignores SIGINT,
# so INT is forwarded as TERM.
forward() { if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; fi; }
trap 'forward' INT TERM HUP
"$@" &
child=$!
status=0
while :; do
  wait "$child" && status=0 || status=$?
  # wait returns >128 when interrupted by a trapped signal; loop until the child is really gone.
  kill -0 "$child" 2>/dev/null || break
done
child=""
exit "$status"
