"""POST /v1/retarget on the real daemon, checked with NumPy.

1. A CMU BVH walk (131_01, centimetre-ish units) onto the girl glTF rig
   (CC0, metres) with "map": "auto" (its Root takes the hips): at
   least the 15 humanoid joints both rigs have are mapped, the clip is
   stored (201, then 200 for the same request), and the target's feet
   follow the source's stride: per frame, the horizontal displacement of
   each foot from the first frame, source times the answer's scale against
   target, from GET /v1/pose?space=model ranges of both clips. The error
   is printed (mean, 95th percentile, max, relative to the scaled stride).
2. The same walk onto a copy of its own skeleton with every offset scaled
   by 1.3 (a native JSON skeleton built here from GET /v1/skeletons/{id}):
   every joint's model position is 1.3 times the source's within 1e-4
   relative (to the skeleton's size).
3. Errors carry their spot: an unknown source joint at map.<name>.
`animd eval --retarget` prints the same bytes as the HTTP answer."""
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import BIN, Daemon, check, error_of, shared_assets  # noqa: E402,E501

import numpy as np  # noqa: E402

FPS = 30
HUMANOID = {"spine", "chest", "neck", "head", "shoulder", "upperarm",
            "forearm", "hand", "thigh", "shin", "foot", "hips"}


def upload(d, path, ctype, expect=201):
    with open(path, "rb") as f:
        st, _, body = d.request("POST", "/v1/assets", f.read(),
                                {"Content-Type": ctype})
    check(st == expect, "upload %s: %d %s" % (path, st, body[:300]))
    return json.loads(body)


def model_positions(d, clip, duration):
    """Model-space joint positions per frame (F, N, 3) at i / FPS."""
    q = ("/v1/pose?clip=%s&from=0&to=%r&fps=%d&space=model&format=bin"
         % (clip, duration, FPS))
    st, _, body = d.request("GET", q)
    check(st == 200, "GET %s: %d %s" % (q, st, body[:300]))
    frames, off = [], 0
    while off < len(body):
        _, count, _ = struct.unpack_from("<IId", body, off)
        off += 16
        m = np.frombuffer(body[off:off + 4 * count], dtype="<f4")
        frames.append(m.reshape(-1, 16)[:, 12:15].astype(np.float64))
        off += 4 * count
    return np.array(frames)


def joint_names(d, skeleton):
    sk = d.json("GET", "/v1/skeletons/%s" % skeleton)
    return [j["name"] for j in sk["joints"]], sk


def walk_onto_girl(d, assets, walk):
    girl = upload(d, os.path.join(assets, "gltf/extra/girl.glb"),
                  "model/gltf-binary")
    target = girl["skeletons"][0]["id"]
    # The girl has no joint named for the hips: "auto" gives the source's
    # Hips to Root, the common ancestor of her thighs.
    body = {"clip": walk["clips"][0]["id"], "to": target, "map": "auto",
            "name": "walk@girl", "fps": FPS}
    st, _, raw = d.request("POST", "/v1/retarget", body)
    check(st == 201, "retarget: %d %s" % (st, raw[:300]))
    ans = json.loads(raw)
    again = d.json("POST", "/v1/retarget", body, expect=200)
    # animd eval --retarget prints the same bytes offline.
    cli = subprocess.run(
        [BIN, "eval", os.path.join(assets, "bvh/cmu/131_01.bvh"),
         os.path.join(assets, "gltf/extra/girl.glb"), "--retarget",
         json.dumps(body)], capture_output=True, timeout=120)
    check(cli.returncode == 0, "animd eval --retarget: %s" % cli.stderr)
    check(cli.stdout == raw, "animd eval --retarget answers as HTTP does")
    check(again["clips"][0]["id"] == ans["clips"][0]["id"],
          "the same request stores the same clip")
    rt = ans["retarget"]
    mapped = dict((dst, src) for src, dst in rt["mapped"])
    print("mapped %d pairs: %s" % (len(mapped), rt["mapped"]))
    print("unmapped target: %s" % rt["unmapped_target"])
    check(len(mapped) >= 15, "at least 15 humanoid joints mapped")
    for dst, src in [("Root", "Hips"), ("LowerSpine", "lowerback"),
                     ("UpperSpine", "Chest"), ("Neck", "Neck"),
                     ("Head", "Head"), ("UpperLeg.L", "LeftHip"),
                     ("LowerLeg.L", "LeftKnee"), ("Foot.L", "LeftAnkle"),
                     ("UpperLeg.R", "RightHip"), ("LowerLeg.R", "RightKnee"),
                     ("Foot.R", "RightAnkle"), ("LowerArm.L", "LeftElbow"),
                     ("LowerArm.R", "RightElbow")]:
        check(mapped.get(dst) == src, "%s <- %s (got %s)"
              % (dst, src, mapped.get(dst)))
    k = rt["scale"]
    check(0.001 < k < 1, "scale %r: metres over the BVH's units" % k)

    duration = walk["clips"][0]["duration"]
    src = model_positions(d, walk["clips"][0]["id"], duration)
    dst = model_positions(d, ans["clips"][0]["id"], duration)
    check(src.shape[0] == dst.shape[0], "same frames")
    snames, _ = joint_names(d, walk["skeletons"][0]["id"])
    dnames, _ = joint_names(d, target)
    errs = []
    travel, travel_d = 0.0, 0.0
    for s_name, d_name in [("LeftAnkle", "Foot.L"), ("RightAnkle", "Foot.R")]:
        fs = src[:, snames.index(s_name)]
        fd = dst[:, dnames.index(d_name)]
        ds = k * (fs - fs[0])
        dd = fd - fd[0]
        # Horizontal (x, z): the stride; y is the lift of the foot.
        e = np.linalg.norm((dd - ds)[:, [0, 2]], axis=1)
        errs.append(e)
        travel = max(travel, float(np.max(np.linalg.norm(ds[:, [0, 2]],
                                                         axis=1))))
        travel_d = max(travel_d, float(np.max(np.linalg.norm(dd[:, [0, 2]],
                                                             axis=1))))
    e = np.concatenate(errs)
    print("feet, per-frame horizontal error after scaling (%d frames x 2 "
          "feet, target units): mean %.4f p95 %.4f max %.4f; scaled source "
          "travel %.4f, target travel %.4f (error mean %.2f%%, max %.2f%% of "
          "the travel)"
          % (src.shape[0], e.mean(), np.percentile(e, 95), e.max(), travel,
             travel_d, 100 * e.mean() / travel, 100 * e.max() / travel))
    # The rule copies rotations, not foot contacts: legs of other
    # proportions (and an A-stance rest against a straight one) put the
    # feet off by a fraction of a leg, but they travel with the body.
    check(travel > 0.5, "the walk travels (%.3f)" % travel)
    check(0.9 < travel_d / travel < 1.1, "the feet travel as far")
    check(e.mean() < 0.1 * travel, "the feet follow the stride")


def scaled_copy(d, walk):
    names, sk = joint_names(d, walk["skeletons"][0]["id"])
    joints = []
    for j in sk["joints"]:
        c = dict(j)
        c["name"] = "S_" + j["name"]
        if isinstance(j.get("parent"), str):
            c["parent"] = "S_" + j["parent"]
        c["translation"] = [1.3 * v for v in j.get("translation", [0, 0, 0])]
        joints.append(c)
    native = {"skeleton": {"name": "cmu13", "joints": joints}}
    st, _, body = d.request("POST", "/v1/assets", native)
    check(st == 201, "scaled skeleton upload: %d %s" % (st, body[:300]))
    target = json.loads(body)["skeletons"][0]["id"]
    body = {"clip": walk["clips"][0]["id"], "to": target,
            "map": dict((n, "S_" + n) for n in names), "fps": FPS}
    ans = d.json("POST", "/v1/retarget", body, expect=201)
    check(abs(ans["retarget"]["scale"] - 1.3) < 1e-5,
          "scale %r" % ans["retarget"]["scale"])
    duration = walk["clips"][0]["duration"]
    src = model_positions(d, walk["clips"][0]["id"], duration)
    dst = model_positions(d, ans["clips"][0]["id"], duration)
    size = float(np.max(np.abs(src)))
    rel = float(np.max(np.abs(dst - 1.3 * src))) / (1.3 * size)
    print("1.3 copy: largest model position error %.3g relative (%d frames"
          " x %d joints)" % (rel, src.shape[0], src.shape[1]))
    check(rel < 1e-4, "every joint at 1.3 times the source")


def errors(d, walk):
    body = {"clip": walk["clips"][0]["id"], "to": walk["skeletons"][0]["id"],
            "map": {"NoSuchJoint": "Hips"}}
    st, _, data = d.request("POST", "/v1/retarget", body)
    err = error_of(data)
    check(st == 400 and err["code"] == "unknown_joint" and
          err["at"] == "map.NoSuchJoint", "unknown source joint: %s" % data)
    body["map"] = "none"
    st, _, data = d.request("POST", "/v1/retarget", body)
    check(st == 400 and error_of(data)["at"] == "map", "bad map: %s" % data)


def main():
    assets = shared_assets()
    d = Daemon()
    try:
        walk = upload(d, os.path.join(assets, "bvh/cmu/131_01.bvh"),
                      "application/x-bvh")
        walk_onto_girl(d, assets, walk)
        scaled_copy(d, walk)
        errors(d, walk)
    finally:
        d.cleanup()
    print("ok")


if __name__ == "__main__":
    main()
