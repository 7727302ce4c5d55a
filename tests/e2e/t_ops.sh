#!/usr/bin/env bash
# Operations: --help and the config file, SIGTERM drain (new connections
# refused, an in-flight streamed range still completes, exit 0), SIGHUP
# reopening the access log, `animd eval` printing exactly what the HTTP API
# answers (poses, ranges, joint subsets, skinned vertices, the asset list;
# files recognized by content), the systemd unit passing systemd-analyze verify, make install
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
# Ranges, skinned vertices and the asset list: the same bytes as HTTP.
same() { # same QUERY-PATH EVAL-ARGS...
  local target=$1
  shift
  "$ANIMD_BIN" eval "$E2E_TMP/rig.json" "$@" >"$E2E_TMP/eval.out" ||
    die "eval $* failed"
  curl -s -o "$E2E_TMP/http.out" "$ANIMD_URL$target"
  cmp "$E2E_TMP/eval.out" "$E2E_TMP/http.out" || die "eval $* differs from GET $target"
}
same "/v1/pose?clip=sway&from=0&to=2&fps=7&space=local" --clip sway --from 0 --to 2 --fps 7 --space local
same "/v1/pose?clip=sway&from=0.5&to=3&fps=30&format=bin&wrap=pingpong" \
  --clip sway --from 0.5 --to 3 --fps 30 --format bin --wrap pingpong
same "/v1/pose?clip=sway&t=1.3&joints=arm,root" --clip sway --t 1.3 --joints arm,root
same "/v1/skin?mesh=blob&clip=sway&t=0.7&normals=1" --mesh blob --clip sway --t 0.7 --normals 1
same "/v1/skin?mesh=blob&clip=sway&t=0.7&method=dqs&normals=invt&format=bin" \
  --mesh blob --clip sway --t 0.7 --method dqs --normals invt --format bin
same "/v1/skin?mesh=blob&clip=sway&from=0&to=2&fps=5&method=dqs" \
  --mesh blob --clip sway --from 0 --to 2 --fps 5 --method dqs
same "/v1/skin?mesh=blob&clip=sway&from=0&to=1&fps=4&format=bin&normals=1" \
  --mesh blob --clip sway --from 0 --to 1 --fps 4 --format bin --normals 1
same "/v1/skin?mesh=blob" --mesh blob
same "/v1/assets" list
# --help answers, typos do not pass, errors carry the API's codes.
"$ANIMD_BIN" eval --help >"$E2E_TMP/help" || die "eval --help failed"
for w in --mesh --from list --joints; do grep -q -- "$w" "$E2E_TMP/help" || die "eval --help lacks $w"; done
rc=0; "$ANIMD_BIN" eval "$E2E_TMP/rig.json" --clip sway --spcae local 2>"$E2E_TMP/err" || rc=$?
[ $rc = 2 ] && grep -q "spcae" "$E2E_TMP/err" || die "eval typo: rc $rc"
rc=0; "$ANIMD_BIN" eval "$E2E_TMP/rig.json" --clip sway --t 0 --joints tail 2>"$E2E_TMP/err" || rc=$?
[ $rc = 1 ] && grep -q "unknown_joint at joints\[0\]" "$E2E_TMP/err" || die "eval joints: rc $rc"
# Formats by content: a .glb and a BVH saved without their extensions.
A=${ANIMD_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}/assets
if [ -f "$A/gltf/khronos/CesiumMan.glb" ]; then
  cp "$A/gltf/khronos/CesiumMan.glb" "$E2E_TMP/cesium"
  cp "$A/bvh/cmu/01_01.bvh" "$E2E_TMP/take"
  for f in cesium take; do
    "$ANIMD_BIN" eval "$E2E_TMP/$f" list >"$E2E_TMP/list.out" || die "eval $f list"
    [ "$(jq_py 'len(j["skeletons"]), len(j["clips"])' "$E2E_TMP/list.out")" = "1 1" ] ||
      die "eval $f list: $(head -c 200 "$E2E_TMP/list.out")"
  done
  clip=$(jq_py 'j["clips"][0]["id"]' "$E2E_TMP/list.out")
  "$ANIMD_BIN" eval "$E2E_TMP/take" --clip "$clip" --from 0 --to 0.5 --fps 30 --format bin >"$E2E_TMP/eval.out" ||
    die "eval of a BVH range"
  http POST /v1/assets -H 'Content-Type: application/x-bvh' --data-binary @"$E2E_TMP/take"
  curl -s -o "$E2E_TMP/http.out" "$ANIMD_URL/v1/pose?clip=$clip&from=0&to=0.5&fps=30&format=bin"
  cmp "$E2E_TMP/eval.out" "$E2E_TMP/http.out" || die "eval of a BVH differs from GET"
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
