# Shared helpers for the end-to-end scripts (sourced by tests/e2e/t_*.sh).
#
# animd_start [FLAGS...]   start $ANIMD_BIN on 127.0.0.1 port 0 with a temp
#                          data dir and ready file; sets ANIMD_PID, ANIMD_ADDR,
#                          ANIMD_URL, ANIMD_DATA, ANIMD_LOG
# animd_stop               SIGTERM by PID, bounded wait, then SIGKILL; returns
#                          the daemon's exit status
# animd_kill9              SIGKILL by PID (crash test)
# http METHOD PATH [curl args...]
#                          sets HTTP_STATUS and HTTP_BODY (file $E2E_TMP/body)
# expect_status N          fails unless HTTP_STATUS is N
# expect_error N CODE AT   an error answer with that status, code and "at"
# jq_py EXPR FILE          evaluates a Python expression on the JSON in FILE
#                          (bound to j), prints the result
# die MSG                  prints and exits 1
#
# Every script gets a private temp dir ($E2E_TMP) removed on exit, and the
# daemon it started is stopped by PID on exit whatever happens.
set -euo pipefail

E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/animd-e2e.XXXXXX")
ANIMD_PID=""
PY=/usr/bin/python3

_e2e_cleanup() {
  local rc=$?
  if [ -n "$ANIMD_PID" ] && kill -0 "$ANIMD_PID" 2>/dev/null; then
    kill -KILL "$ANIMD_PID" 2>/dev/null || true
    wait "$ANIMD_PID" 2>/dev/null || true
  fi
  if [ $rc -ne 0 ] && [ -n "${ANIMD_LOG:-}" ] && [ -f "$ANIMD_LOG" ]; then
    echo "---- daemon log (tail) ----"
    tail -n 40 "$ANIMD_LOG" || true
  fi
  rm -rf "$E2E_TMP"
  exit $rc
}
trap _e2e_cleanup EXIT

# need_assets: exits 77 (reported as skipped by the driver) when the shared
# test assets are missing; $A is their folder afterwards.
need_assets() {
  A=${ANIMD_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}/assets
  if [ ! -f "$A/README.md" ]; then
    echo "needs the shared test assets ($A; set ANIMD_SHARED)"
    exit 77
  fi
}

die() {
  echo "FAIL: $*" >&2
  exit 1
}

# animd_start [flags...]: the data dir is kept across restarts of one script.
animd_start() {
  ANIMD_DATA=${ANIMD_DATA:-$E2E_TMP/data}
  mkdir -p "$ANIMD_DATA"
  ANIMD_LOG=$E2E_TMP/animd.log
  local ready=$E2E_TMP/ready
  rm -f "$ready"
  "$ANIMD_BIN" --listen 127.0.0.1:0 --ready-file "$ready" \
    --data-dir "$ANIMD_DATA" --workers 2 "$@" >>"$ANIMD_LOG" 2>&1 &
  ANIMD_PID=$!
  local i
  for i in $(seq 1 200); do
    if [ -s "$ready" ]; then break; fi
    if ! kill -0 "$ANIMD_PID" 2>/dev/null; then
      cat "$ANIMD_LOG" >&2
      die "animd exited at start"
    fi
    sleep 0.05
  done
  [ -s "$ready" ] || die "animd did not become ready in 10 s"
  ANIMD_ADDR=$(cat "$ready")
  ANIMD_PORT=${ANIMD_ADDR##*:}
  ANIMD_URL="http://$ANIMD_ADDR"
}

animd_stop() {
  [ -n "$ANIMD_PID" ] || return 0
  kill -TERM "$ANIMD_PID" 2>/dev/null || true
  local i rc=0
  for i in $(seq 1 200); do
    kill -0 "$ANIMD_PID" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$ANIMD_PID" 2>/dev/null; then
    kill -KILL "$ANIMD_PID" 2>/dev/null || true
    wait "$ANIMD_PID" 2>/dev/null || true
    ANIMD_PID=""
    die "animd did not stop within 10 s of SIGTERM"
  fi
  wait "$ANIMD_PID" || rc=$?
  ANIMD_PID=""
  return $rc
}

animd_kill9() {
  kill -KILL "$ANIMD_PID" 2>/dev/null || true
  wait "$ANIMD_PID" 2>/dev/null || true
  ANIMD_PID=""
}

HTTP_BODY=$E2E_TMP/body
HTTP_HEADERS=$E2E_TMP/headers
HTTP_STATUS=0

# http METHOD PATH [curl args...]
http() {
  local method=$1 path=$2
  shift 2
  HTTP_STATUS=$(curl -s -o "$HTTP_BODY" -D "$HTTP_HEADERS" -w '%{http_code}' \
    --max-time 20 -X "$method" "$@" "$ANIMD_URL$path") || true
}

# The value of a header of the last answer (case-insensitive), or "".
http_header() {
  grep -i "^$1:" "$HTTP_HEADERS" | head -n1 | cut -d: -f2- | tr -d '\r' |
    sed 's/^ *//'
}

expect_status() {
  [ "$HTTP_STATUS" = "$1" ] ||
    die "expected status $1, got $HTTP_STATUS: $(head -c 400 "$HTTP_BODY")"
}

# expect_error STATUS CODE AT  (AT "null" for a JSON null)
expect_error() {
  expect_status "$1"
  local got
  got=$($PY -c '
import json,sys
e=json.load(open(sys.argv[1]))["error"]
assert set(e)=={"code","message","at"}, e
print(e["code"], "null" if e["at"] is None else e["at"], sep="\t")
' "$HTTP_BODY") || die "not an error body: $(head -c 300 "$HTTP_BODY")"
  local code=${got%%$'\t'*} at=${got#*$'\t'}
  [ "$code" = "$2" ] || die "expected code $2, got $code ($got)"
  [ "$at" = "$3" ] || die "expected at '$3', got '$at'"
}

jq_py() {
  $PY -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$2"
}
