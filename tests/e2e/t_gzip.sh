#!/usr/bin/env bash
# gzip-coded answers read by curl --compressed and by gunzip: a JSON skin
# answer, a JSON pose range and a 2 s JSON skin range of CesiumMan (when
# the shared assets are there) inflate to exactly the identity answer;
# binary answers and clients that do not ask stay uncompressed; a client
# that hangs up half-way through a compressed range leaves the daemon
# serving.
source "$(dirname "$0")/lib.sh"
animd_start --demo

SHARED=${ANIMD_SHARED:-$(dirname "$0")/../../../shared}
U=$ANIMD_URL

# same TARGET: identity, curl --compressed and gunzip agree byte for byte.
same() {
  local target=$1
  curl -sS -o "$E2E_TMP/plain" "$U$target"
  curl -sS --compressed -D "$E2E_TMP/zh" -o "$E2E_TMP/inflated" "$U$target"
  grep -qi '^Content-Encoding: gzip' "$E2E_TMP/zh" ||
    die "$target: not gzip-coded"
  cmp -s "$E2E_TMP/plain" "$E2E_TMP/inflated" ||
    die "$target: curl --compressed differs from the identity answer"
  curl -sS -H 'Accept-Encoding: gzip' -o "$E2E_TMP/z.gz" "$U$target"
  gunzip -c "$E2E_TMP/z.gz" >"$E2E_TMP/gunzipped" || die "$target: gunzip"
  cmp -s "$E2E_TMP/plain" "$E2E_TMP/gunzipped" ||
    die "$target: gunzip differs from the identity answer"
  echo "$target: $(stat -c %s "$E2E_TMP/plain") bytes," \
    "gzip $(stat -c %s "$E2E_TMP/z.gz")"
}

same '/v1/skin?mesh=body&clip=wave&t=0.5&normals=1'
same '/v1/pose?clip=wave&from=0&to=2&fps=60&space=local'
same '/v1/skin?mesh=body&clip=wave&from=0&to=2&fps=30&normals=1'

if [ -f "$SHARED/assets/gltf/khronos/CesiumMan.glb" ]; then
  http POST /v1/assets -H 'Content-Type: model/gltf-binary' \
    --data-binary @"$SHARED/assets/gltf/khronos/CesiumMan.glb"
  mesh=$(jq_py 'j["meshes"][0]["id"]' "$HTTP_BODY")
  clip=$(jq_py 'j["clips"][0]["id"]' "$HTTP_BODY")
  same "/v1/skin?mesh=$mesh&clip=$clip&from=0&to=2&fps=60&normals=1"
else
  echo "SKIPPED CesiumMan: the shared assets are not there ($SHARED)"
fi

# Binary, and not asked for: identity.
for target in '/v1/skin?mesh=body&clip=wave&t=0.5&format=bin' \
  '/v1/skin?mesh=body&clip=wave&t=0.5&format=bin&encoding=q16'; do
  curl -sS -H 'Accept-Encoding: gzip' -D "$E2E_TMP/h" -o /dev/null "$U$target"
  ! grep -qi '^Content-Encoding' "$E2E_TMP/h" || die "$target was compressed"
done
curl -sS -D "$E2E_TMP/h" -o /dev/null "$U/v1/skin?mesh=body&clip=wave&t=0.5"
! grep -qi '^Content-Encoding' "$E2E_TMP/h" || die "compressed unasked"

# Half-way: read 20 KB of a long compressed range and hang up.
curl -sS -H 'Accept-Encoding: gzip' \
  "$U/v1/skin?mesh=body&clip=wave&from=0&to=30&fps=60&normals=1" 2>/dev/null |
  head -c 20000 >/dev/null || true
http GET /healthz
expect_status 200
animd_stop || die "animd did not exit cleanly"
echo ok
