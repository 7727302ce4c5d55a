#!/usr/bin/python3
"""Poses and skinning of the demo asset against an independent reference.

Starts the daemon with --demo, asks GET /v1/pose (local, model and skin
spaces) and GET /v1/skin (with normals) at several times and wrap modes, and
compares every number with an evaluation of config/demo.json written here
from the DESIGN.md rules alone: its own key search and Hermite spline,
scipy.spatial.transform Rotation/Slerp for rotations, numpy for the joint
hierarchy, inverse bind matrices and linear blend skinning. Tolerance 1e-5
(float32 answers against float64 reference).
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, fail  # noqa: E402

import numpy as np  # noqa: E402
from scipy.spatial.transform import Rotation, Slerp  # noqa: E402

TOL = 1e-5
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


# ---- the reference ------------------------------------------------------------

def wrap_time(t, d, mode):
    if d <= 0:
        return 0.0
    if mode == "clamp":
        return min(max(t, 0.0), d)
    if mode == "loop":
        return t - d * math.floor(t / d)
    u = t - 2 * d * math.floor(t / (2 * d))  # pingpong, period 2d
    return u if u <= d else 2 * d - u


def segment(times, t):
    """Index k with times[k] <= t < times[k+1], clamped to the ends."""
    if t <= times[0]:
        return 0, 0.0, True
    if t >= times[-1]:
        return len(times) - 1, 0.0, True
    k = int(np.searchsorted(times, t, side="right")) - 1
    return k, (t - times[k]) / (times[k + 1] - times[k]), False


def sample_track(track, t):
    times = np.asarray(track["times"], dtype=np.float64)
    comps = 4 if track["path"] == "rotation" else 3
    interp = track.get("interpolation", "LINEAR")
    vals = np.asarray(track["values"], dtype=np.float64)
    if interp == "CUBICSPLINE":
        vals = vals.reshape(len(times), 3, comps)  # in, value, out
        k, s, end = segment(times, t)
        if end:
            v = vals[k, 1]
        else:
            dt = times[k + 1] - times[k]
            s2, s3 = s * s, s * s * s
            v = ((2 * s3 - 3 * s2 + 1) * vals[k, 1] +
                 (s3 - 2 * s2 + s) * dt * vals[k, 2] +
                 (-2 * s3 + 3 * s2) * vals[k + 1, 1] +
                 (s3 - s2) * dt * vals[k + 1, 0])
        if comps == 4:
            v = v / np.linalg.norm(v)
        return v
    vals = vals.reshape(len(times), comps)
    if interp == "STEP":
        k = int(np.searchsorted(times, t, side="right")) - 1
        return vals[max(k, 0)]
    assert interp == "LINEAR", interp
    k, s, end = segment(times, t)
    if end:
        v = vals[k]
        return v / np.linalg.norm(v) if comps == 4 else v
    if comps == 3:
        return (1 - s) * vals[k] + s * vals[k + 1]
    slerp = Slerp([0.0, 1.0], Rotation.from_quat(vals[k:k + 2]))
    return slerp([s]).as_quat()[0]


def trs_matrix(t, q, s):
    m = np.eye(4)
    m[:3, :3] = Rotation.from_quat(q).as_matrix() * np.asarray(s)[None, :]
    m[:3, 3] = t
    return m


class Reference:
    def __init__(self, doc):
        self.joints = doc["skeleton"]["joints"]
        self.names = [j["name"] for j in self.joints]
        self.clips = {c["name"]: c for c in doc["clips"]}
        self.mesh = doc["meshes"][0]
        rest = self.model(self.rest_local())
        self.inverse_bind = [np.linalg.inv(m) for m in rest]

    def rest_local(self):
        out = []
        for j in self.joints:
            out.append([np.asarray(j.get("translation", [0, 0, 0]), float),
                        np.asarray(j.get("rotation", [0, 0, 0, 1]), float),
                        np.asarray(j.get("scale", [1, 1, 1]), float)])
        return out

    def duration(self, clip):
        return max(t["times"][-1] for t in clip["tracks"])

    def local(self, clip_name, t, wrap):
        clip = self.clips[clip_name]
        ts = wrap_time(t, self.duration(clip), wrap)
        pose = self.rest_local()
        slot = {"translation": 0, "rotation": 1, "scale": 2}
        for tr in clip["tracks"]:
            j = tr["joint"]
            j = self.names.index(j) if isinstance(j, str) else j
            pose[j][slot[tr["path"]]] = sample_track(tr, ts)
        return pose, ts

    def model(self, pose):
        out = []
        for i, j in enumerate(self.joints):
            m = trs_matrix(*pose[i])
            out.append(m if j["parent"] < 0 else out[j["parent"]] @ m)
        return out

    def skin_matrices(self, pose):
        return [m @ ib for m, ib in zip(self.model(pose), self.inverse_bind)]

    def skin(self, pose):
        mats = self.skin_matrices(pose)
        m = self.mesh
        k = m.get("influences", 4)
        pos = np.asarray(m["positions"], float).reshape(-1, 3)
        nrm = np.asarray(m["normals"], float).reshape(-1, 3)
        jnt = np.asarray(m["joints"]).reshape(-1, k)
        wgt = np.asarray(m["weights"], float).reshape(-1, k)
        wgt = wgt / wgt.sum(axis=1, keepdims=True)
        out_p = np.zeros_like(pos)
        out_n = np.zeros_like(nrm)
        for v in range(len(pos)):
            blend = sum(wgt[v, i] * mats[jnt[v, i]] for i in range(k))
            out_p[v] = (blend @ np.append(pos[v], 1.0))[:3]
            n = blend[:3, :3] @ nrm[v]
            out_n[v] = n / np.linalg.norm(n)
        return out_p, out_n


def close(name, got, want, tol=TOL):
    got = np.asarray(got, float)
    want = np.asarray(want, float)
    if got.shape != want.shape:
        fail(f"{name}: shape {got.shape} != {want.shape}")
    err = np.max(np.abs(got - want)) if got.size else 0.0
    if not err <= tol:
        i = int(np.argmax(np.abs(got - want)))
        fail(f"{name}: max error {err:.3g} at {i} "
             f"(got {got.flat[i]!r}, want {want.flat[i]!r})")
    return err


def main():
    with open(os.path.join(ROOT, "config", "demo.json")) as f:
        ref = Reference(json.load(f))
    d = Daemon("--demo")
    get = lambda path: d.json("GET", path)  # noqa: E731
    worst = 0.0
    checks = 0
    try:
        assets = get("/v1/assets")
        skel = assets["skeletons"][0]["id"]
        mesh = assets["meshes"][0]["id"]
        clips = {c["name"]: c["id"] for c in assets["clips"]}
        cases = [("wave", 0.0, "clamp"), ("wave", 0.37, "clamp"),
                 ("wave", 1.1, "clamp"), ("wave", 2.6, "clamp"),
                 ("wave", 2.6, "loop"), ("wave", -0.3, "loop"),
                 ("wave", 3.3, "pingpong"), ("idle", 0.5, "clamp"),
                 ("idle", 1.75, "clamp"), ("idle", 7.2, "loop"),
                 ("idle", 4.1, "pingpong")]
        for clip, t, wrap in cases:
            pose, ts = ref.local(clip, t, wrap)
            q = f"skeleton={skel}&clip={clips[clip]}&t={t!r}&wrap={wrap}"
            tag = f"{clip} t={t} {wrap}"
            local = get("/v1/pose?" + q + "&space=local")
            worst = max(worst, close(tag + " t", [local["t"]], [ts]))
            if local["joints"] != len(ref.joints):
                fail(f"{tag}: joints {local['joints']}")
            n = len(ref.joints)
            worst = max(worst, close(tag + " translation",
                                     local["translation"],
                                     np.concatenate([p[0] for p in pose])))
            worst = max(worst, close(tag + " scale", local["scale"],
                                     np.concatenate([p[2] for p in pose])))
            # q and -q are the same rotation: compare up to sign per joint.
            got_q = np.asarray(local["rotation"], float).reshape(n, 4)
            want_q = np.asarray([p[1] for p in pose])
            want_q = want_q / np.linalg.norm(want_q, axis=1, keepdims=True)
            sign = np.where(np.sum(got_q * want_q, axis=1) < 0, -1.0, 1.0)
            worst = max(worst, close(tag + " rotation", got_q,
                                     want_q * sign[:, None]))
            for space, mats in (("model", ref.model(pose)),
                                ("skin", ref.skin_matrices(pose))):
                ans = get("/v1/pose?" + q + "&space=" + space)
                want = np.concatenate([m.T.reshape(16) for m in mats])
                worst = max(worst, close(f"{tag} {space}", ans["matrices"],
                                         want))
            skin = get(f"/v1/skin?mesh={mesh}&clip={clips[clip]}"
                         f"&t={t!r}&wrap={wrap}&normals=1")
            want_p, want_n = ref.skin(pose)
            worst = max(worst, close(tag + " positions", skin["positions"],
                                     want_p.reshape(-1)))
            worst = max(worst, close(tag + " normals", skin["normals"],
                                     want_n.reshape(-1)))
            checks += 1
        if d.stop() != 0:
            fail("animd did not exit cleanly")
    finally:
        d.cleanup()
    print(f"ok: {checks} times x (local, model, skin, skinned vertices); "
          f"largest difference {worst:.3g}")


if __name__ == "__main__":
    main()
