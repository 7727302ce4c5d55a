"""Poses, ranges, blending, skinning and solving against the real daemon,
checked against independent numpy computations: local TRS composed along
the parent chain (model), times inverse bind (skin), linear blend skinning
of the mesh, the key values of the clip (LINEAR, STEP), the wrap formulas of
DESIGN.md, JSON versus binary equality (float32 exact), range framing, ETag
and 304, HEAD, and format negotiation by Accept."""
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, demo_asset, error_of  # noqa: E402

import numpy as np  # noqa: E402

TOL = 2e-5


def trs(t, q, s):
    x, y, z, w = q
    r = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    m = np.eye(4)
    m[:3, :3] = r * np.array(s)[None, :]
    m[:3, 3] = t
    return m


def colmajor(flat, n):
    return [np.array(flat[16 * j:16 * j + 16], dtype=np.float64).reshape(4, 4).T
            for j in range(n)]


def close(a, b, tol=TOL):
    return np.allclose(np.asarray(a, dtype=np.float64),
                       np.asarray(b, dtype=np.float64), atol=tol, rtol=tol)


d = Daemon()
try:
    asset = demo_asset()
    up = d.json("POST", "/v1/assets", asset, expect=201)
    skel_id = up["skeletons"][0]["id"]
    clip_id = up["clips"][0]["id"]
    mesh_id = up["meshes"][0]["id"]
    check(up["skeletons"][0]["joints"] == 4 and up["meshes"][0]["vertices"] == 4
          and up["clips"][0]["duration"] == 2, "upload answer %r" % up)
    desc = d.json("GET", "/v1/skeletons/" + skel_id)
    joints = desc["joints"]
    n = len(joints)
    parents = [j["parent"] for j in joints]
    check([j["name"] for j in joints] == ["root", "spine", "head", "arm"],
          "joint order as uploaded")

    def get_pose(t, space, fmt="json", wrap="clamp", by="id"):
        c = clip_id if by == "id" else "sway"
        q = "/v1/pose?clip=%s&t=%r&space=%s&format=%s&wrap=%s" % (
            c, t, space, fmt, wrap)
        if by == "name":
            q += "&skeleton=" + skel_id
        st, h, body = d.request("GET", q)
        check(st == 200, "pose %s: %d %s" % (q, st, body[:200]))
        return h, body

    # ---- sampled values against the clip's keys ---------------------------------
    for t, root_x, spine_angle, arm_s in [(0.5, 0.5, math.radians(45) * 0.5, 1),
                                          (1.5, 1.5, math.radians(45) * 0.5, 2),
                                          (1.0, 1.0, math.radians(45), 2)]:
        _, body = get_pose(t, "local")
        p = json.loads(body)
        check(p["skeleton"] == skel_id and p["clip"] == clip_id and
              p["joints"] == n and abs(p["t"] - t) < 1e-6, "pose header %r" % p)
        tr = np.array(p["translation"]).reshape(n, 3)
        rot = np.array(p["rotation"]).reshape(n, 4)
        sc = np.array(p["scale"]).reshape(n, 3)
        check(close(tr[0], [root_x, 1, 0]), "root translation %r" % tr[0])
        want = [0, math.sin(spine_angle / 2), 0, math.cos(spine_angle / 2)]
        check(close(rot[1], want) or close(-rot[1], want),
              "spine slerp at %r: %r vs %r" % (t, rot[1], want))
        check(close(sc[3], [arm_s] * 3), "arm STEP scale %r" % sc[3])
        # Untracked joints keep their rest transform.
        check(close(tr[2], joints[2]["translation"]) and
              close(sc[2], joints[2]["scale"]), "head at rest")

        # Model: compose in numpy along the parents.
        local = [trs(tr[j], rot[j], sc[j]) for j in range(n)]
        model = []
        for j in range(n):
            model.append(local[j] if parents[j] < 0
                         else model[parents[j]] @ local[j])
        _, body = get_pose(t, "model")
        mm = colmajor(json.loads(body)["matrices"], n)
        for j in range(n):
            check(close(mm[j], model[j]), "model joint %d at %r" % (j, t))
        # Skin: model times inverse bind.
        ibm = colmajor(desc["inverseBindMatrices"], n)
        _, body = get_pose(t, "skin")
        sm = colmajor(json.loads(body)["matrices"], n)
        for j in range(n):
            check(close(sm[j], model[j] @ ibm[j]), "skin joint %d" % j)

    # Inverse binds computed by the server invert the rest model matrices.
    rest_local = [trs(j["translation"], j["rotation"], j["scale"]) for j in joints]
    rest_model = []
    for j in range(n):
        rest_model.append(rest_local[j] if parents[j] < 0
                          else rest_model[parents[j]] @ rest_local[j])
    for j in range(n):
        check(close(ibm[j] @ rest_model[j], np.eye(4), 1e-4), "ibm %d" % j)

    # ---- wrap modes: the t actually sampled -------------------------------------
    for wrap, t, want in [("clamp", 5.0, 2.0), ("clamp", -1.0, 0.0),
                          ("loop", 2.5, 0.5), ("loop", -0.5, 1.5),
                          ("loop", 2.0, 0.0), ("pingpong", 2.5, 1.5),
                          ("pingpong", 4.5, 0.5)]:
        _, body = get_pose(t, "local", wrap=wrap)
        got = json.loads(body)["t"]
        check(abs(got - want) < 1e-5, "wrap %s t=%r: %r != %r"
              % (wrap, t, got, want))

    # ---- JSON versus binary: the same float32 numbers --------------------------
    for space, layout, per in [("local", "trs10", 10), ("model", "mat4", 16),
                               ("skin", "mat4", 16)]:
        _, jb = get_pose(0.7, space)
        h, bb = get_pose(0.7, space, fmt="bin")
        check(h["content-type"] == "application/octet-stream", "bin type")
        check(h["x-animd-joints"] == str(n) and h["x-animd-layout"] == layout,
              "bin headers %r" % h)
        check(len(bb) == 4 * per * n, "bin size")
        fb = np.frombuffer(bb, dtype="<f4")
        p = json.loads(jb)
        if space == "local":
            jf = []
            for j in range(n):
                jf += p["translation"][3 * j:3 * j + 3] + \
                    p["rotation"][4 * j:4 * j + 4] + p["scale"][3 * j:3 * j + 3]
        else:
            jf = p["matrices"]
        check(np.array_equal(np.float32(jf), fb), "json != bin (%s)" % space)
    # Accept picks binary too; the clip may be named within its skeleton.
    st, h, bb2 = d.request("GET", "/v1/pose?skeleton=%s&clip=sway&t=0.7"
                           % skel_id, headers={"Accept":
                                               "application/octet-stream"})
    check(st == 200 and bb2 == get_pose(0.7, "model", fmt="bin")[1],
          "Accept: application/octet-stream")

    # ---- ETag and conditional GET; HEAD ------------------------------------------
    q = "/v1/pose?clip=%s&t=0.25" % clip_id
    st, h1, b1 = d.request("GET", q)
    etag = h1["etag"]
    st, h2, b2 = d.request("GET", q, headers={"If-None-Match": etag})
    check(st == 304 and b2 == b"" and h2["etag"] == etag, "304")
    st, h3, _ = d.request("GET", q.replace("0.25", "0.26"))
    check(h3["etag"] != etag, "ETag depends on t")
    st, h4, b4 = d.request("HEAD", q)
    check(st == 200 and b4 == b"" and
          int(h4["content-length"]) == len(b1), "HEAD")

    # ---- ranges: frames at from + i/fps, streamed ---------------------------------
    st, h, body = d.request("GET", "/v1/pose?clip=%s&from=0.5&to=1.5&fps=4"
                            "&space=local" % clip_id)
    check(st == 200 and h.get("transfer-encoding") == "chunked", "range chunked")
    lines = body.decode().strip().split("\n")
    check(len(lines) == 5, "5 frames, got %d" % len(lines))
    for i, line in enumerate(lines):
        f = json.loads(line)
        t = 0.5 + i / 4
        check(f["frame"] == i and abs(f["t"] - t) < 1e-6, "frame %d" % i)
        single = json.loads(get_pose(t, "local")[1])
        check(f["translation"] == single["translation"] and
              f["rotation"] == single["rotation"], "range frame %d values" % i)
    st, h, body = d.request("GET", "/v1/pose?clip=%s&from=0&to=1&fps=10"
                            "&format=bin" % clip_id)
    check(h["x-animd-layout"] == "mat4", "range layout")
    off, frames = 0, 0
    while off < len(body):
        idx, count, t = struct.unpack_from("<IId", body, off)
        off += 16
        check(idx == frames and count == 16 * n and abs(t - idx / 10) < 1e-6,
              "bin frame header %d" % frames)
        floats = np.frombuffer(body[off:off + 4 * count], dtype="<f4")
        off += 4 * count
        if idx == 3:
            check(np.array_equal(floats, np.frombuffer(
                get_pose(0.3, "model", fmt="bin")[1], dtype="<f4")),
                "bin range frame 3 equals the single pose")
        frames += 1
    check(frames == 11 and off == len(body), "11 binary frames")
    # A long range: 20,000 frames arrive complete.
    st, h, body = d.request("GET", "/v1/pose?clip=%s&from=0&to=1999.9&fps=10"
                            "&format=bin&space=local" % clip_id, timeout=60)
    check(st == 200 and len(body) == 20000 * (16 + 40 * n), "long range")

    # ---- blending --------------------------------------------------------------------
    one = d.json("POST", "/v1/pose", {"skeleton": skel_id, "space": "local",
                                       "layers": [{"clip": "sway", "t": 0.5}]})
    ref = json.loads(get_pose(0.5, "local")[1])
    check(close(one["translation"], ref["translation"], 1e-6) and
          close(one["rotation"], ref["rotation"], 1e-6), "1 layer = pose")
    two = d.json("POST", "/v1/pose", {
        "skeleton": skel_id, "space": "local",
        "layers": [{"clip": clip_id, "t": 0.0, "weight": 1},
                   {"clip": clip_id, "t": 2.0, "weight": 3}]})
    tr = np.array(two["translation"]).reshape(n, 3)
    check(close(tr[0], [0.25 * 0 + 0.75 * 2, 1, 0], 1e-5),
          "weighted blend of root translation %r" % tr[0])
    masked = d.json("POST", "/v1/pose", {
        "skeleton": skel_id, "space": "local",
        "layers": [{"clip": clip_id, "t": 0.0},
                   {"clip": clip_id, "t": 2.0, "mask": ["root"]}]})
    tr = np.array(masked["translation"]).reshape(n, 3)
    check(close(tr[0], [1, 1, 0], 1e-5), "mask on root: %r" % tr[0])

    # ---- skinning: LBS against numpy ------------------------------------------------
    m = asset["meshes"][0]
    pos = np.array(m["positions"]).reshape(-1, 3)
    nrm = np.array(m["normals"]).reshape(-1, 3)
    jw = np.array(m["joints"]).reshape(-1, 4)
    ww = np.array(m["weights"]).reshape(-1, 4)
    ww = ww / ww.sum(axis=1, keepdims=True)
    sm = colmajor(json.loads(get_pose(0.8, "skin")[1])["matrices"], n)
    sk = d.json("GET", "/v1/skin?mesh=%s&clip=sway&t=0.8&normals=1" % mesh_id)
    check(sk["vertices"] == 4 and sk["mesh"] == mesh_id, "skin header")
    P = np.array(sk["positions"]).reshape(-1, 3)
    N = np.array(sk["normals"]).reshape(-1, 3)
    for v in range(len(pos)):
        blend = sum(ww[v, k] * sm[jw[v, k]] for k in range(4))
        want = (blend @ np.append(pos[v], 1))[:3]
        check(close(P[v], want, 1e-4), "LBS vertex %d: %r vs %r" % (v, P[v], want))
        wn = blend[:3, :3] @ nrm[v]
        wn /= np.linalg.norm(wn)
        check(close(N[v], wn, 1e-4), "normal %d" % v)
    st, h, bb = d.request("GET", "/v1/skin?mesh=%s&clip=sway&t=0.8&normals=1"
                          "&format=bin" % mesh_id)
    check(h["x-animd-vertices"] == "4" and
          h["x-animd-layout"] == "positions+normals", "skin bin headers")
    check(np.array_equal(np.frombuffer(bb, dtype="<f4"),
                         np.float32(sk["positions"] + sk["normals"])),
          "skin json == bin")
    # Bind pose (no clip): LBS and DQS give the bind positions.
    for method in ["lbs", "dqs"]:
        b = d.json("GET", "/v1/skin?mesh=%s&method=%s" % (mesh_id, method))
        check(close(b["positions"], m["positions"], 1e-4), "bind %s" % method)
    st, h, body = d.request("GET", "/v1/skin?mesh=%s&clip=sway&from=0&to=1"
                            "&fps=2&format=bin" % mesh_id)
    check(st == 200 and len(body) == 3 * (16 + 12 * 4), "skin range")

    # ---- solve: deltas are inverse(previous) * current --------------------------------
    frames = []
    for t in [0.0, 0.5, 1.0]:
        mm = colmajor(json.loads(get_pose(t, "model")[1])["matrices"], n)
        frames.append([float(x) for j in range(n) for x in mm[j][:3, 3]])
    sol = d.json("POST", "/v1/solve", {"skeleton": skel_id, "frames": frames})
    check(sol["frames"] == 3 and sol["joints"] == n, "solve shape")
    R = np.array(sol["rotations"]).reshape(3, n, 4)
    D = np.array(sol["deltas"]).reshape(3, n, 4)
    check(np.allclose(np.linalg.norm(R, axis=2), 1, atol=1e-4), "unit rotations")
    check(close(np.abs(D[0][:, 3]), np.ones(n), 1e-5), "delta[0] identity")

    def qmul(a, b):
        ax, ay, az, aw = a
        bx, by, bz, bw = b
        return np.array([aw * bx + ax * bw + ay * bz - az * by,
                         aw * by - ax * bz + ay * bw + az * bx,
                         aw * bz + ax * by - ay * bx + az * bw,
                         aw * bw - ax * bx - ay * by - az * bz])
    for f in range(1, 3):
        for j in range(n):
            inv = R[f - 1][j] * np.array([-1, -1, -1, 1])
            want = qmul(inv, R[f][j])
            check(close(D[f][j], want, 1e-4) or close(-D[f][j], want, 1e-4),
                  "delta %d/%d" % (f, j))

    # ---- errors name the parameter -----------------------------------------------------
    st, _, body = d.request("GET", "/v1/pose?clip=%s" % clip_id)
    check(st == 400 and error_of(body)["at"] == "t", "missing t")
    st, _, body = d.request("GET", "/v1/pose?clip=%s&from=0&to=1e9&fps=60"
                            % clip_id)
    check(st == 400 and error_of(body)["code"] == "too_many_frames", "frames")
    check(d.stop() == 0, "clean exit")
    print("ok")
finally:
    d.cleanup()
