"""GET /v1/clips/{id}/check and /plot against NumPy, on the real daemon.

The foot-skate ratio, the penetration depth and the largest pop are
computed here from the issue's definitions (not from the C code), from the
daemon's own poses: format=bin range answers of GET /v1/pose in model space
(positions) and local space (rotations) at t_i = i / fps, plus the pose at
the duration (the last sample is min(i / fps, duration)). They must equal
the check answer within 1e-6. Two clips: a native-JSON rig built here
(one foot dragged at 1 m/s for 10 of 99 frames at 64 fps: 10/99 exactly;
a 40-degree step on the spine) and a CMU walk from the shared assets (BVH,
centimetres: the thresholds are scaled). The plot answers parse as XML
with one <polyline> per joint and component."""
import json
import math
import os
import struct
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, shared_assets  # noqa: E402

import numpy as np  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
TOL = 1e-6


def rig():
    """hips; foot_l and foot_r (rest at the origin), spine (0, 1, 0).
    Times in 64ths of a second: the clip lasts 99/64 s."""
    s20, c20 = math.sin(math.radians(20)), math.cos(math.radians(20))
    joints = [{"name": "hips", "parent": -1},
              {"name": "foot_l", "parent": 0},
              {"name": "foot_r", "parent": 0},
              {"name": "spine", "parent": 0, "translation": [0, 1, 0]}]
    tracks = [
        {"joint": "foot_l", "path": "translation", "interpolation": "LINEAR",
         "times": [0, 20 / 64, 30 / 64, 99 / 64],
         "values": [0, 0, 0, 0, 0, 0, 10 / 64, 0, 0, 10 / 64, 0, 0]},
        {"joint": "foot_r", "path": "translation", "interpolation": "LINEAR",
         "times": [0, 32 / 64, 40 / 64, 48 / 64],
         "values": [0, 0, 0, 0, 0, 0, 0, -0.03, 0, 0, 0, 0]},
        {"joint": "spine", "path": "rotation", "interpolation": "STEP",
         "times": [0, 32 / 64], "values": [0, 0, 0, 1, 0, 0, s20, c20]},
    ]
    return {"skeleton": {"name": "checkrig", "joints": joints},
            "clips": [{"name": "drag", "tracks": tracks}]}


def frames_bin(body, stride):
    """A format=bin range answer: per frame (index, count, t) then floats."""
    out, off = [], 0
    while off < len(body):
        idx, count, t = struct.unpack_from("<IId", body, off)
        off += 16
        out.append(np.frombuffer(body[off:off + 4 * count], dtype="<f4")
                   .reshape(-1, stride).astype(np.float64))
        off += 4 * count
    return out


def samples(d, clip, fps, duration, space):
    """The check's samples of clip in space: (n, joints, 16 or 10)."""
    stride = 16 if space == "model" else 10
    st, _, body = d.request(
        "GET", "/v1/pose?clip=%s&from=0&to=%r&fps=%r&space=%s&format=bin"
        % (clip, duration, fps, space))
    check(st == 200, "range %s: %d %s" % (space, st, body[:200]))
    poses = frames_bin(body, stride)
    n = math.ceil(duration * fps - 1e-9) + 1
    if len(poses) < n:  # The last sample sits at the duration itself.
        st, _, last = d.request(
            "GET", "/v1/pose?clip=%s&t=%r&space=%s&format=bin"
            % (clip, duration, space))
        check(st == 200, "last pose")
        poses.append(np.frombuffer(last, dtype="<f4").reshape(-1, stride)
                     .astype(np.float64))
    check(len(poses) == n, "%d samples, want %d" % (len(poses), n))
    return np.stack(poses)


def reference(model, local, feet, fps, up, floor, contact, speed):
    """The issue's definitions: (foot-skate ratio, deepest -h, largest pop
    in degrees)."""
    n = model.shape[0]
    pos = model[:, :, 12:15]
    skating = np.zeros(max(n - 1, 0), dtype=bool)
    deepest = -np.inf
    for j in feet:
        h = pos[:, j, up] - floor
        deepest = max(deepest, float(np.max(-h)))
        contact_i = (h[:-1] < contact) & (h[1:] < contact)
        step = pos[1:, j, :] - pos[:-1, j, :]
        step[:, up] = 0
        v = np.sqrt(np.sum(step * step, axis=1)) * fps
        skating |= contact_i & (v > speed)
    ratio = float(np.sum(skating)) / (n - 1) if n > 1 else 0.0
    q = local[:, :, 3:7]
    dots = np.abs(np.sum(q[:-1] * q[1:], axis=2))
    pop = float(np.max(np.degrees(2 * np.arccos(np.minimum(1, dots)))))
    return ratio, deepest, pop


def value(answer, name):
    for c in answer["checks"]:
        if c["check"] == name:
            return c
    check(False, "no check %s in %s" % (name, answer))


def compare(d, clip, skeleton_joints, feet, query, fps, up, floor, contact,
            speed):
    answer = d.json("GET", "/v1/clips/%s/check?fps=%r&feet=%s%s"
                    % (clip, fps, ",".join(feet), query))
    duration = answer["duration"]
    model = samples(d, clip, fps, duration, "model")
    local = samples(d, clip, fps, duration, "local")
    check(answer["samples"] == model.shape[0], "samples")
    idx = [skeleton_joints.index(f) for f in feet]
    ratio, deepest, pop = reference(model, local, idx, fps, up, floor,
                                    contact, speed)
    got = value(answer, "foot_skate")["value"]
    check(abs(got - ratio) <= TOL, "foot_skate %r, numpy %r" % (got, ratio))
    got = value(answer, "penetration")["value"]
    check(abs(got - deepest) <= TOL,
          "penetration %r, numpy %r" % (got, deepest))
    got = value(answer, "pop")["value"]
    check(abs(got - pop) <= TOL, "pop %r, numpy %r" % (got, pop))
    return answer, ratio, pop


def plot_lines(d, clip, query, lines, points):
    st, h, body = d.request("GET", "/v1/clips/%s/plot?%s" % (clip, query))
    check(st == 200, "plot %s: %d %s" % (query, st, body[:200]))
    check(h["content-type"] == "image/svg+xml", "plot content type")
    root = ET.fromstring(body)
    check(root.tag == SVG + "svg", "an svg root")
    polys = root.findall(".//" + SVG + "polyline")
    check(len(polys) == lines, "%s: %d polylines, want %d"
          % (query, len(polys), lines))
    for p in polys:
        check(len(p.get("points").split()) == points,
              "%s: %d points, want %d" % (query, len(p.get("points").split()),
                                          points))
    return polys


def main():
    assets = shared_assets()
    d = Daemon()
    try:
        # ---- the rig built here: figures known by hand too ----------------------
        up = d.json("POST", "/v1/assets", rig(), expect=201)
        clip = up["clips"][0]["id"]
        names = ["hips", "foot_l", "foot_r", "spine"]
        answer, ratio, pop = compare(d, clip, names, ["foot_l", "foot_r"], "",
                                     64, 1, 0.0, 0.05, 0.5)
        check(abs(ratio - 10 / 99) <= TOL, "10/99: %r" % ratio)
        check(abs(pop - 40) < 1e-3, "pop 40: %r" % pop)
        check(answer["samples"] == 100 and not answer["pass"], "rig answer")
        skate = value(answer, "foot_skate")["findings"]
        check(len(skate) == 1 and skate[0]["joint"] == "foot_l" and
              skate[0]["from"] == 20 / 64 and skate[0]["to"] == 30 / 64,
              "skate finding %r" % skate)
        pops = value(answer, "pop")["findings"]
        check(len(pops) == 1 and pops[0]["joint"] == "spine" and
              pops[0]["from"] == 31 / 64 and pops[0]["to"] == 32 / 64,
              "pop finding %r" % pops)
        check(abs(value(answer, "penetration")["value"] - 0.03) < 1e-6,
              "penetration 0.03")
        # Plots: two joints' rotations (8 lines), 10 fps over 99/64 s (16
        # frames); one angle line.
        polys = plot_lines(d, clip, "joints=spine,foot_l&fps=10", 8, 16)
        check([p.get("data-joint") for p in polys] ==
              ["spine"] * 4 + ["foot_l"] * 4, "lines by joint")
        check([p.get("data-component") for p in polys[:4]] ==
              ["x", "y", "z", "w"], "components")
        plot_lines(d, clip, "joints=spine&channel=angle&from=0.25&to=0.75",
                   1, 16)
        plot_lines(d, clip, "joints=foot_r&channel=position", 3, 47)

        # ---- a CMU walk (BVH, centimetres) --------------------------------------
        path = os.path.join(assets, "bvh", "cmu", "131_01.bvh")
        st, _, body = d.request("POST", "/v1/assets", open(path, "rb").read(),
                                {"Content-Type": "application/x-bvh"})
        check(st == 201, "BVH upload: %d %s" % (st, body[:200]))
        up = json.loads(body)
        clip = up["clips"][0]["id"]
        skel = d.json("GET", "/v1/skeletons/%s" % up["skeletons"][0]["id"])
        names = [j["name"] for j in skel["joints"]]
        # The toes' lowest height is the floor; contact within 3 cm of it,
        # skating above 15 cm/s.
        answer, ratio, pop = compare(
            d, clip, names, ["LeftToe", "RightToe"],
            "&floor=0.5&contact_height=3&skate_speed=15&penetration=1",
            60, 1, 0.5, 3.0, 15.0)
        check(0 < ratio < 1, "a walk skates a little: %r" % ratio)
        check(pop > 30, "the CMU walk's thumbs pop: %r" % pop)
        plot_lines(d, clip, "joints=LeftToe,RightToe&channel=position&fps=30",
                   6, math.floor(answer["duration"] * 30 + 1e-9) + 1)
        print("t_check_numpy: rig and CMU walk match NumPy (walk: skate "
              "%.6f, pop %.3f deg)" % (ratio, pop))
    finally:
        d.cleanup()


if __name__ == "__main__":
    main()
