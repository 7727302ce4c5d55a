#!/usr/bin/env bash
# Operations: --help and the config file, SIGTERM drain (new connections
# refused, an in-flight streamed range still completes, exit 0), SIGHUP
# reopening the access log, `animd eval` printing exactly what GET /v1/pose
# answers, the systemd unit passing systemd-analyze verify, make install
# into a DESTDIR.
source "$(dirname "$0")/lib.sh"

# ---- --help and config ---------------------------------------------------------
"$ANIMD_BIN" --help >"$E2E_TMP/help"
for flag in --listen --data-dir --max-body-size --max-header-size \
  --max-connections --header-timeout --idle-timeout --max-frames \
  --memory-limit --workers --config --demo; do
  grep -q -- "$flag" "$E2E_TMP/help" || die "--help lacks $flag"
done
# Every key of config/animd.conf is documented and accepted.
conf=$(dirname "$0")/../../config/animd.conf
keys=$(grep -E '^[a-z_]+ *=' "$conf" | cut -d= -f1 | tr -d ' ')
for k in $keys; do
  grep -B1 -E "^$k *=" "$conf" | head -1 | grep -q '^#' ||
    die "config key $k has no comment"
done
if "$ANIMD_BIN" --bogus-flag 2>"$E2E_TMP/err"; then die "bad flag accepted"; fi
grep -q "bogus-flag" "$E2E_TMP/err" || die "bad flag message"
printf 'max_frames = 7\nlisten = 127.0.0.1:1\nmax_connections = 33\n' >"$E2E_TMP/test.conf"

# ---- the daemon with a config file (flags override it) ---------------------------
animd_start --config "$E2E_TMP/test.conf" --access-log "$E2E_TMP/access.log" \
  --drain-timeout 20s --max-frames 5000
http GET /v1/info
[ "$(jq_py 'j["limits"]["max_connections"]' "$HTTP_BODY")" = 33 ] ||
  die "config file max_connections"
[ "$(jq_py 'j["limits"]["max_frames"]' "$HTTP_BODY")" = 5000 ] ||
  die "flag does not override the file"

# Upload the e2e rig, also kept as a file for eval.
$PY -c "
import json,sys; sys.path.insert(0, '$(dirname "$0")')
from animd_e2e import demo_asset; json.dump(demo_asset(), open('$E2E_TMP/rig.json','w'))"
http POST /v1/assets -H 'Content-Type: application/json' --data-binary @"$E2E_TMP/rig.json"
expect_status 201

# ---- animd eval = GET /v1/pose, byte for byte --------------------------------------
for args in "space=local&format=json" "space=model&format=bin" "space=skin&format=json&wrap=loop"; do
  space=$(echo "$args" | sed 's/.*space=\([a-z]*\).*/\1/')
  format=$(echo "$args" | sed 's/.*format=\([a-z]*\).*/\1/')
  wrap=clamp
  case $args in *wrap=loop*) wrap=loop ;; esac
  "$ANIMD_BIN" eval "$E2E_TMP/rig.json" --clip sway --t 2.7 --space "$space" \
    --format "$format" --wrap "$wrap" >"$E2E_TMP/eval.out" || die "eval failed"
  curl -s -o "$E2E_TMP/http.out" "$ANIMD_URL/v1/pose?clip=sway&t=2.7&$args&wrap=$wrap"
  cmp "$E2E_TMP/eval.out" "$E2E_TMP/http.out" || die "eval differs from GET ($args)"
done
if "$ANIMD_BIN" eval "$E2E_TMP/rig.json" --clip nope --t 0 2>/dev/null; then
  die "eval of an unknown clip succeeded"
fi

# ---- SIGHUP reopens the access log ---------------------------------------------------
http GET /healthz
mv "$E2E_TMP/access.log" "$E2E_TMP/access.log.1"
kill -HUP "$ANIMD_PID"
for _ in $(seq 1 100); do [ -f "$E2E_TMP/access.log" ] && break; sleep 0.02; done
curl -s -o /dev/null "$ANIMD_URL/healthz?after-hup"
for _ in $(seq 1 100); do
  grep -q 'after-hup' "$E2E_TMP/access.log" 2>/dev/null && break
  sleep 0.02
done
grep -q 'after-hup' "$E2E_TMP/access.log" || die "no line in the reopened log"
grep -q '"GET /healthz HTTP/1.1" 200' "$E2E_TMP/access.log.1" || die "old log"

# ---- SIGTERM drains: an in-flight range completes, new connections fail -------------
frames=3000
curl -s --limit-rate 200k -o "$E2E_TMP/range.bin" \
  "$ANIMD_URL/v1/pose?clip=sway&from=0&to=$(($frames - 1))&fps=1&format=bin" &
curl_pid=$!
sleep 0.5
kill -TERM "$ANIMD_PID"
sleep 0.2
if curl -s -o /dev/null --max-time 2 "$ANIMD_URL/healthz"; then
  die "a new connection was served while draining"
fi
wait "$curl_pid" || die "the in-flight range failed"
size=$(stat -c %s "$E2E_TMP/range.bin")
[ "$size" = $(($frames * (16 + 64 * 4))) ] || die "range cut short: $size bytes"
rc=0
wait "$ANIMD_PID" || rc=$?
ANIMD_PID=""
[ $rc = 0 ] || die "exit status $rc after drain"

# ---- systemd unit -----------------------------------------------------------------------
unit=$(dirname "$0")/../../systemd/animd.service
grep -q '^DynamicUser=yes' "$unit" && grep -q '^StateDirectory=animd' "$unit" &&
  grep -q '^ProtectSystem=strict' "$unit" && grep -q '^NoNewPrivileges=yes' "$unit" &&
  grep -q '^Restart=on-failure' "$unit" || die "unit hardening"
if command -v systemd-analyze >/dev/null; then
  sed "s|/usr/local/bin/animd|$ANIMD_BIN|" "$unit" >"$E2E_TMP/animd.service"
  systemd-analyze verify "$E2E_TMP/animd.service" 2>"$E2E_TMP/verify" ||
    { cat "$E2E_TMP/verify"; die "systemd-analyze verify"; }
  [ ! -s "$E2E_TMP/verify" ] || { cat "$E2E_TMP/verify"; die "verify warnings"; }
fi
echo ok
