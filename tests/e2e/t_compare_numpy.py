"""POST /v1/compare against NumPy: two rigs that share most joint names
(native JSON built here) are uploaded with their clips, compared over
HTTP, and the answer is recomputed from the daemon's own model-space
matrices (GET /v1/pose?space=model ranges, POST /v1/pose for a blended
source) with the metric written from its definition (docs/api.md): per
joint and frame E = max over p in {0, s*x, s*y, s*z} of |Ma.p - Mb.p|;
per joint its max (first time), RMS over frames; by max descending. Every
figure must agree within 1e-6 relative. Also: joints matched by name
(unmatched listed), the grid's defaults, and 400/404 with `at` for bad
sources."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, error_of  # noqa: E402

import numpy as np  # noqa: E402

REL = 1e-6


def rig(name, extra, walk_keys, duration):
    """A skeleton of six joints (the last one named extra) with clips
    "walk" (keys walk_keys on the spine's rotation, root moving) and
    "wave" (the arms)."""
    return {
        "skeleton": {"name": name, "joints": [
            {"name": "root", "parent": -1, "translation": [0, 1, 0]},
            {"name": "spine", "parent": 0, "translation": [0, 0.5, 0],
             "rotation": [0, 0, 0.0998334, 0.9950042]},
            {"name": "head", "parent": 1, "translation": [0, 0.4, 0.1],
             "scale": [1.2, 1, 0.8]},
            {"name": "arm_l", "parent": 1, "translation": [0.3, 0.2, 0]},
            {"name": "arm_r", "parent": 1, "translation": [-0.3, 0.2, 0]},
            {"name": extra, "parent": 3, "translation": [0.25, 0, 0]}]},
        "clips": [
            {"name": "walk_" + name, "tracks": [
                {"joint": "spine", "path": "rotation",
                 "times": [0, duration / 2, duration], "values": walk_keys},
                {"joint": "root", "path": "translation",
                 "times": [0, duration], "values": [0, 1, 0, 0.7, 1, 0.2]},
                {"joint": "head", "path": "scale", "interpolation": "STEP",
                 "times": [0, duration / 3], "values": [1.2, 1, 0.8,
                                                       1.3, 1.1, 0.8]}]},
            {"name": "wave_" + name, "tracks": [
                {"joint": "arm_l", "path": "rotation", "times": [0, 1],
                 "values": [0, 0, 0, 1, 0.3826834, 0, 0, 0.9238795]},
                {"joint": "arm_r", "path": "rotation", "times": [0, 1],
                 "values": [0, 0, 0, 1, 0, 0.2588190, 0, 0.9659258]}]}]}


def colmajor(flat, n):
    return np.array(flat, dtype=np.float64).reshape(n, 4, 4).transpose(0, 2, 1)


def range_model(d, clip, frm, to, fps, wrap="clamp"):
    """{joint name: [4x4 per frame]} from a JSON range in model space."""
    st, h, body = d.request(
        "GET", "/v1/pose?clip=%s&space=model&from=%r&to=%r&fps=%r&wrap=%s"
        % (clip, frm, to, fps, wrap))
    check(st == 200, "range of %s: %d %s" % (clip, st, body[:200]))
    lines = [json.loads(line) for line in body.decode().splitlines() if line]
    return lines


def names_of(d, skeleton):
    desc = d.json("GET", "/v1/skeletons/" + skeleton)
    return [j["name"] for j in desc["joints"]]


def shell_error(ma, mb, s):
    pts = np.array([[0, 0, 0, 1], [s, 0, 0, 1], [0, s, 0, 1], [0, 0, s, 1]],
                   dtype=np.float64).T
    return float(np.max(np.linalg.norm((ma @ pts - mb @ pts)[:3], axis=0)))


def reference(frames_a, frames_b, names_a, names_b, times, s, tol,
              joints=None):
    """The answer's figures from the definitions."""
    common = [n for n in names_a if n in names_b]
    if joints is not None:
        common = [n for n in joints if n in names_a and n in names_b]
    per = {}
    failing_frames = 0
    for i, t in enumerate(times):
        ma, mb = frames_a[i], frames_b[i]
        any_over = False
        for n in common:
            e = shell_error(ma[names_a.index(n)], mb[names_b.index(n)], s)
            p = per.setdefault(n, {"max": -1.0, "t": 0.0, "sq": 0.0})
            if e > p["max"]:
                p["max"], p["t"] = e, t
            p["sq"] += e * e
            any_over |= e > tol
        failing_frames += any_over
    rows = [{"joint": n, "max_error": per[n]["max"], "t": per[n]["t"],
             "rms_error": math.sqrt(per[n]["sq"] / len(times))}
            for n in common]
    rows.sort(key=lambda r: -r["max_error"])  # stable: a's order on ties
    return rows, failing_frames


def near(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b)) + 1e-9


def check_answer(ans, rows, failing_frames, tol):
    check(len(ans["joints"]) == len(rows),
          "joint count %d vs %d" % (len(ans["joints"]), len(rows)))
    for got, want in zip(ans["joints"], rows):
        # Equal errors may come in either order; match by name.
        w = next(r for r in rows if r["joint"] == got["joint"])
        for k in ("max_error", "rms_error"):
            check(near(got[k], w[k]), "%s %s: %r vs numpy %r"
                  % (got["joint"], k, got[k], w[k]))
        check(near(got["t"], w["t"]), "%s t: %r vs %r"
              % (got["joint"], got["t"], w["t"]))
        check(near(got["max_error"], want["max_error"]),
              "order: %s (%r) where numpy has %s (%r)"
              % (got["joint"], got["max_error"], want["joint"],
                 want["max_error"]))
    top = rows[0]
    check(near(ans["max"]["error"], top["max_error"]),
          "max %r vs %r" % (ans["max"], top))
    check(ans["failing"]["frames"] == failing_frames,
          "failing frames %r vs %d" % (ans["failing"], failing_frames))
    over = sum(1 for r in rows if r["max_error"] > tol)
    check(ans["failing"]["joints"] == over,
          "failing joints %r vs %d" % (ans["failing"], over))
    check(ans["pass"] == (top["max_error"] <= tol), "pass %r" % ans["pass"])


d = Daemon()
try:
    a_keys = [0, 0, 0, 1, 0, 0, 0.3826834, 0.9238795, 0, 0, 0, 1]
    b_keys = [0, 0, 0, 1, 0.1, 0, 0.3826834, 0.9185587, 0, 0, 0.05, 0.9987492]
    up_a = d.json("POST", "/v1/assets", rig("rig_a", "hand_a", a_keys, 2.0),
                  expect=201)
    up_b = d.json("POST", "/v1/assets", rig("rig_b", "hand_b", b_keys, 2.4),
                  expect=201)
    sk_a = up_a["skeletons"][0]["id"]
    sk_b = up_b["skeletons"][0]["id"]
    names_a, names_b = names_of(d, sk_a), names_of(d, sk_b)

    # 1. Two clips, the defaults but fps: to = the longer duration (2.4).
    fps, shell, tol = 20.0, 0.05, 1e-4
    st, h, body = d.request("POST", "/v1/compare", {
        "a": {"clip": "walk_rig_a"}, "b": {"clip": "walk_rig_b"},
        "fps": fps, "shell": shell})
    check(st == 200, "compare: %d %s" % (st, body[:300]))
    check(h.get("content-type", "").startswith("application/json"),
          "content type %r" % h.get("content-type"))
    ans = json.loads(body)
    n = int(math.floor(2.4 * fps + 1e-9)) + 1
    check(ans["from"] == 0 and near(ans["to"], 2.4) and ans["fps"] == fps
          and ans["frames"] == n and ans["shell"] == shell
          and ans["tolerance"] == tol, "grid %r" % {k: ans[k] for k in (
              "from", "to", "fps", "frames", "shell", "tolerance")})
    check(ans["unmatched"] == {"a": ["hand_a"], "b": ["hand_b"]},
          "unmatched %r" % ans["unmatched"])
    times = [i / fps for i in range(n)]
    ra = range_model(d, "walk_rig_a", 0, 2.4, fps)
    rb = range_model(d, "walk_rig_b", 0, 2.4, fps)
    check(len(ra) == n and len(rb) == n, "range lengths")
    fa = [colmajor(f["matrices"], len(names_a)) for f in ra]
    fb = [colmajor(f["matrices"], len(names_b)) for f in rb]
    rows, ff = reference(fa, fb, names_a, names_b, times, shell, tol)
    check(rows[0]["max_error"] > 1e-3, "the clips differ")
    check_answer(ans, rows, ff, tol)

    # 2. A blended source (a pose body without t) against a clip, looped,
    # restricted to three joints (one of them only on a).
    fps, frm, to = 10.0, 0.5, 3.0
    layers = [{"clip": "walk_rig_a", "weight": 0.6},
              {"clip": "wave_rig_a", "weight": 0.4, "wrap": "clamp"}]
    st, h, body = d.request("POST", "/v1/compare", {
        "a": {"skeleton": "rig_a", "layers": layers},
        "b": {"clip": "walk_rig_b"}, "from": frm, "to": to, "fps": fps,
        "wrap": "loop", "tolerance": 0.01,
        "joints": ["arm_l", "hand_a", "spine"]})
    check(st == 200, "blend compare: %d %s" % (st, body[:300]))
    ans = json.loads(body)
    n = int(math.floor((to - frm) * fps + 1e-9)) + 1
    check(ans["frames"] == n, "frames %r" % ans["frames"])
    check(ans["unmatched"] == {"a": ["hand_a"], "b": []},
          "unmatched %r" % ans["unmatched"])
    times = [frm + i / fps for i in range(n)]
    fa = []
    for t in times:
        ls = [dict(layers[0], t=t, wrap="loop"), dict(layers[1], t=t)]
        p = d.json("POST", "/v1/pose", {"skeleton": "rig_a", "space": "model",
                                        "layers": ls})
        fa.append(colmajor(p["matrices"], len(names_a)))
    rb = range_model(d, "walk_rig_b", frm, to, fps, wrap="loop")
    fb = [colmajor(f["matrices"], len(names_b)) for f in rb]
    rows, ff = reference(fa, fb, names_a, names_b, times, 0.03, 0.01,
                         joints=["arm_l", "hand_a", "spine"])
    check([r["joint"] for r in ans["joints"]] != [] and len(rows) == 2,
          "two joints compared")
    check_answer(ans, rows, ff, 0.01)

    # 3. A clip against itself passes with max 0.
    ans = d.json("POST", "/v1/compare", {"a": {"clip": "wave_rig_a"},
                                         "b": {"clip": "wave_rig_a"}})
    check(ans["pass"] is True and ans["max"]["error"] == 0
          and ans["frames"] == 31, "self compare %r" % ans["max"])

    # 4. Bad sources answer with the spot at fault.
    for body, status, code, at in [
            ({"a": {"clip": "walk_rig_a", "wrop": 1},
              "b": {"clip": "walk_rig_b"}}, 400, "unknown_field", "a.wrop"),
            ({"a": {"clip": "walk_rig_a"},
              "b": {"skeleton": "rig_b", "layers": [{"clip": "walk_rig_b",
                                                     "t": 1}]}},
             400, "unknown_field", "b.layers[0].t"),
            ({"a": {"clip": "walk_rig_a"}}, 400, "missing_field", "b"),
            ({"a": {"clip": "walk_rig_a"}, "b": {"clip": "walk_rig_b"},
              "fps": 0}, 400, "bad_value", "fps"),
            ({"a": {"clip": "walk_rig_a"}, "b": {"clip": "walk_rig_b"},
              "joints": ["nose"]}, 400, "unknown_joint", "joints[0]"),
            ({"a": {"clip": "walk_rig_a"},
              "b": {"skeleton": "rig_b", "layers": [{"clip": "nope"}]}},
             404, "not_found", "b.layers[0].clip")]:
        st, h, data = d.request("POST", "/v1/compare", body)
        err = error_of(data)
        check(st == status and err["code"] == code and err["at"] == at,
              "%r: %d %r" % (body, st, err))
    st, h, data = d.request("POST", "/v1/compare?x=1", {})
    check(st == 400 and error_of(data)["code"] == "unknown_parameter",
          "query parameter: %d" % st)
    st, h, data = d.request("POST", "/v1/compare", b"{")
    check(st == 400 and error_of(data)["code"] == "bad_json", "bad json")
    st, h, data = d.request("GET", "/v1/compare")
    check(st == 405, "GET /v1/compare: %d" % st)
    metrics = d.request("GET", "/metrics")[2].decode()
    check('route="compare"' in metrics, "compare counted in /metrics")
    print("ok: compare agrees with numpy")
finally:
    d.cleanup()
