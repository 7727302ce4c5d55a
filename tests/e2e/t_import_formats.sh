#!/usr/bin/env bash
# Imports through POST /v1/assets: every shared glTF, BVH and MD5 file is
# accepted with the counts of assets/README.md (the md5anim onto Bob's
# skeleton via ?skeleton=ID), and broken uploads (assimp's four invalid
# md5meshes, a cut .glb, an external URI, a BVH with a bad number) get 400
# with the precise "at" and leave the asset list unchanged.
source "$(dirname "$0")/lib.sh"
need_assets
animd_start

upload() { # upload FILE CONTENT-TYPE [QUERY]
  http POST "/v1/assets${3:-}" -H "Content-Type: $2" --data-binary "@$1"
}

# file, content type, skeletons, joints of the first, clips, meshes, vertices
while read -r f ct s j c m v; do
  upload "$A/$f" "$ct"
  [ "$HTTP_STATUS" = 201 ] || [ "$HTTP_STATUS" = 200 ] ||
    die "$f: status $HTTP_STATUS: $(head -c 300 "$HTTP_BODY")"
  got=$(jq_py 'len(j["skeletons"]), j["skeletons"][0]["joints"], len(j["clips"]), len(j["meshes"]), sum(x["vertices"] for x in j["meshes"])' "$HTTP_BODY")
  [ "$got" = "$s $j $c $m $v" ] || die "$f: got $got, expected $s $j $c $m $v"
done <<'LIST'
gltf/khronos/SimpleSkin.gltf model/gltf+json 1 2 1 1 10
gltf/khronos/RiggedSimple.glb model/gltf-binary 1 2 1 1 160
gltf/khronos/RiggedFigure.glb model/gltf-binary 1 19 1 1 370
gltf/khronos/CesiumMan.glb model/gltf-binary 1 19 1 1 3273
gltf/khronos/Fox.glb model/gltf-binary 1 24 3 1 1728
gltf/khronos/InterpolationTest.glb model/gltf-binary 1 12 9 0 0
gltf/khronos/RecursiveSkeletons.glb model/gltf-binary 84 10 84 84 3360
gltf/khronos/BoxAnimated.glb model/gltf-binary 1 4 1 0 0
gltf/khronos/AnimatedTriangle.gltf model/gltf+json 1 1 1 0 0
gltf/extra/robot_quaternius.glb model/gltf-binary 1 43 14 19 7218
gltf/extra/girl.glb model/gltf-binary 1 23 2 2 496
gltf/extra/RiggedSimple_blender_reexport.glb model/gltf-binary 1 4 1 1 960
bvh/cmu/01_01.bvh application/x-bvh 1 31 1 0 0
bvh/cmu/131_01.bvh application/x-bvh 1 31 1 0 0
bvh/cmu/131_03.bvh application/x-bvh 1 31 1 0 0
bvh/makehuman/walk1.bvh application/x-bvh 1 75 1 0 0
bvh/bandai-namco/dataset-1_run_normal_001.bvh application/x-bvh 1 22 1 0 0
bvh/bandai-namco/dataset-1_walk-back_normal_001.bvh application/x-bvh 1 22 1 0 0
md5/bob/Bob.md5mesh application/x-md5mesh 1 33 0 6 875
LIST
bob=$(jq_py 'j["skeletons"][0]["id"]' "$HTTP_BODY")

upload "$A/md5/bob/Bob.md5anim" application/x-md5anim "?skeleton=$bob"
[ "$HTTP_STATUS" = 201 ] || die "md5anim: $HTTP_STATUS $(head -c 300 "$HTTP_BODY")"
[ "$(jq_py 'j["clips"][0]["skeleton"]' "$HTTP_BODY")" = "$bob" ] || die "md5anim skeleton"
dur=$(jq_py 'round(j["clips"][0]["duration"], 4)' "$HTTP_BODY")
[ "$dur" = 5.7917 ] || die "md5anim duration $dur (139 / 24 = 5.7917)"

http GET /v1/assets
expect_status 200
cp "$HTTP_BODY" "$E2E_TMP/before.json"

# Broken uploads: status, code and "at"; nothing stored.
upload "$A/md5/invalid/InvalidBoneIndex.md5mesh" application/x-md5mesh
expect_error 400 bad_value "line 23"
upload "$A/md5/invalid/OverflowingTriangleIndex.md5mesh" application/x-md5mesh
expect_error 400 index_range "line 18"
upload "$A/md5/invalid/OverflowingVertexIndex.md5mesh" application/x-md5mesh
expect_error 400 index_range "line 15"
upload "$A/md5/invalid/OverflowingWeightIndex.md5mesh" application/x-md5mesh
expect_error 400 index_range "line 21"

head -c 80000 "$A/gltf/khronos/Fox.glb" > "$E2E_TMP/cut.glb"
upload "$E2E_TMP/cut.glb" model/gltf-binary
expect_error 400 length_mismatch glb.length

sed 's|"uri" *: *"data:[^"]*"|"uri":"/etc/passwd"|' \
  "$A/gltf/khronos/SimpleSkin.gltf" > "$E2E_TMP/external.gltf"
upload "$E2E_TMP/external.gltf" model/gltf+json
expect_error 400 external_uri "buffers[0].uri"

sed '4s/OFFSET.*/OFFSET 0.0 1x.0 0.0/' "$A/bvh/makehuman/walk1.bvh" > "$E2E_TMP/bad.bvh"
head -n 4 "$E2E_TMP/bad.bvh" | grep -q '1x.0' || die "bad.bvh not edited"
upload "$E2E_TMP/bad.bvh" application/x-bvh
expect_error 400 bad_number "line 4"

upload "$A/md5/bob/Bob.md5anim" application/x-md5anim \
  "?skeleton=$(jq_py 'next(s["id"] for s in j["skeletons"] if s["joints"] == 2)' "$E2E_TMP/before.json")"
[ "$HTTP_STATUS" = 400 ] || [ "$HTTP_STATUS" = 404 ] ||
  die "md5anim on a foreign skeleton: $HTTP_STATUS"

http GET /v1/assets
expect_status 200
cmp -s "$HTTP_BODY" "$E2E_TMP/before.json" || die "the asset list changed"
animd_stop
