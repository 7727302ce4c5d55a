"""A glTF re-export, as a test pipeline meets it: RiggedSimple.glb, then the
same file with its translation keys moved by 0.25 (same rig, same clip
name, another clip). The second upload is 409 name_conflict at
clips[0].name; with ?replace=1 it is 201 and "replaced" names the clip
moved; the name then answers the new clip and the old id the old one,
also after a restart (the data dir keeps the move); ?prefix=prev/ keeps the
first export beside it; and `animd eval prev=FILE new=FILE` loads both
files with their names qualified."""
import json
import os
import struct
import subprocess
import tempfile

from animd_e2e import BIN, Daemon, check, shared_assets

SHIFT = 0.25


def shifted_glb(data):
    """The GLB with SHIFT added to the x of every key of the first
    animation's translation outputs (same length, same layout)."""
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    check(magic == b"glTF" and version == 2, "not a GLB 2")
    jlen, jtype = struct.unpack_from("<I4s", data, 12)
    doc = json.loads(data[20:20 + jlen])
    bin_start = 20 + jlen + 8
    out = bytearray(data)
    anim = doc["animations"][0]
    shifted = 0
    for ch in anim["channels"]:
        if ch["target"]["path"] != "translation":
            continue
        acc = doc["accessors"][anim["samplers"][ch["sampler"]]["output"]]
        view = doc["bufferViews"][acc["bufferView"]]
        check(acc["componentType"] == 5126 and acc["type"] == "VEC3",
              "float VEC3 translations")
        stride = view.get("byteStride", 12)
        at = bin_start + view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        for k in range(acc["count"]):
            (x,) = struct.unpack_from("<f", out, at + k * stride)
            struct.pack_into("<f", out, at + k * stride, x + SHIFT)
        shifted += 1
    check(shifted > 0, "no translation channel to shift")
    return bytes(out)


def upload(d, query, body):
    s, _, data = d.request("POST", "/v1/assets" + query, body,
                           {"Content-Type": "model/gltf-binary"})
    return s, json.loads(data)


first = open(os.path.join(shared_assets(), "gltf", "khronos",
                          "RiggedSimple.glb"), "rb").read()
second = shifted_glb(first)
d = Daemon()
try:
    s, v1 = upload(d, "", first)
    check(s == 201, "first export: %d %s" % (s, v1))
    sk, clip1 = v1["skeletons"][0], v1["clips"][0]
    name = clip1["name"]
    s, err = upload(d, "", second)
    check(s == 409 and err["error"]["code"] == "name_conflict" and
          err["error"]["at"] == "clips[0].name", "conflict: %d %s" % (s, err))
    s, err = upload(d, "?clip=Walk", second)
    check(s == 400 and err["error"]["at"] == "clip" and
          "?replace=1" in err["error"]["message"], "?clip=: %s" % err)

    s, v2 = upload(d, "?replace=1", second)
    clip2 = v2["clips"][0]["id"]
    check(s == 201 and v2["skeletons"][0]["id"] == sk["id"] and
          clip2 != clip1["id"], "replace: %d %s" % (s, v2))
    check(v2["replaced"] == [{"kind": "clip", "name": name,
                              "old": clip1["id"], "new": clip2}],
          "replaced: %s" % v2["replaced"])

    def pose(clip):
        return d.json("GET", "/v1/pose?skeleton=%s&clip=%s&t=1&space=local"
                      % (sk["id"], clip))

    by_name, old = pose(name), pose(clip1["id"])
    check(by_name["clip"] == clip2 and old["clip"] == clip1["id"],
          "by name %s, by old id %s" % (by_name["clip"], old["clip"]))
    new_t, old_t = by_name["translation"], old["translation"]
    moved = [abs(new_t[3 * j] - old_t[3 * j] - SHIFT) < 1e-5
             for j in range(by_name["joints"])]
    check(any(moved), "no joint moved by %g at t=1: %s %s"
          % (SHIFT, new_t, old_t))

    d.stop()
    d.start()
    check(pose(name)["clip"] == clip2, "after a restart the name moved")
    check(pose(clip1["id"])["clip"] == clip1["id"], "old id after restart")

    s, prev = upload(d, "?prefix=prev/", first)
    check(s == 201 and prev["clips"][0]["name"] == "prev/" + name and
          prev["skeletons"][0]["name"] == "prev/" + sk["name"],
          "prefix: %d %s" % (s, prev))

    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for fname, data in (("prev.glb", first), ("new.glb", second)):
            paths.append(os.path.join(tmp, fname))
            open(paths[-1], "wb").write(data)
        out = subprocess.run(
            [BIN, "eval", "prev=" + paths[0], "new=" + paths[1], "--clip",
             "new/" + name, "--t", "1", "--space", "local"],
            capture_output=True, timeout=60)
        check(out.returncode == 0, "eval: %s" % out.stderr)
        cli = json.loads(out.stdout)
        check(cli["clip_name"] == "new/" + name and
              cli["translation"] == by_name["translation"],
              "eval new/%s: %s" % (name, out.stdout[:300]))
        out = subprocess.run([BIN, "eval", paths[0], paths[1], "list"],
                             capture_output=True, timeout=60)
        check(out.returncode == 1 and
              b"(name_conflict at clips[0].name)" in out.stderr,
              "eval without aliases: %s" % out.stderr)
    print("ok: a glTF re-export: 409 at clips[0].name, replace, restart, "
          "prefix, ALIAS=FILE")
finally:
    d.cleanup()
