"""BVH poses against scipy: for every shared BVH file, the model-space joint
positions that `animd eval FILE --clip NAME --t T --space model` prints at
frames 0 and 10 must equal an independent forward kinematics: its own BVH
tokenizer, per joint Rotation.from_euler(the file's rotation channel order,
angles, degrees=True), position channels replacing OFFSET, world = parent
world * local."""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
from scipy.spatial.transform import Rotation as R

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import shared_assets  # noqa: E402

SHARED = os.environ.get("ANIMD_SHARED") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared")
FILES = ["bvh/cmu/01_01.bvh", "bvh/cmu/131_01.bvh", "bvh/cmu/131_03.bvh",
         "bvh/makehuman/walk1.bvh",
         "bvh/bandai-namco/dataset-1_run_normal_001.bvh",
         "bvh/bandai-namco/dataset-1_walk-back_normal_001.bvh"]


def parse(path):
    toks = open(path, "rb").read().decode().split()
    assert toks[0] == "HIERARCHY"
    i, joints, stack = 1, [], []
    while toks[i] != "MOTION":
        t = toks[i]
        if t in ("ROOT", "JOINT"):
            joints.append({"name": toks[i + 1],
                           "parent": stack[-1] if stack else -1})
            stack.append(len(joints) - 1)
            i += 2
            assert toks[i] == "{" and toks[i + 1] == "OFFSET"
            joints[-1]["off"] = np.array([float(x) for x in toks[i + 2:i + 5]])
            i += 5
            assert toks[i] == "CHANNELS"
            n = int(toks[i + 1])
            joints[-1]["ch"] = toks[i + 2:i + 2 + n]
            i += 2 + n
        elif t == "End":
            i += 7  # End Site { OFFSET x y z
            assert toks[i] == "}"
            i += 1
        elif t == "}":
            stack.pop()
            i += 1
        else:
            raise ValueError("unexpected token %r" % t)
    assert toks[i + 1] == "Frames:" and toks[i + 3] == "Frame"
    frame_time = float(toks[i + 5])
    nch = sum(len(j["ch"]) for j in joints)
    data = np.array([float(x) for x in toks[i + 6:]]).reshape(-1, nch)
    return joints, frame_time, data


def positions(joints, row):
    k, world = 0, []
    for j in joints:
        vals = dict(zip(j["ch"], row[k:k + len(j["ch"])]))
        k += len(j["ch"])
        t = j["off"].copy()
        for a, c in enumerate("XYZ"):
            if c + "position" in vals:
                t[a] = vals[c + "position"]
        rch = [c for c in j["ch"] if c.endswith("rotation")]
        rot = (R.from_euler("".join(c[0] for c in rch),
                            [vals[c] for c in rch], degrees=True)
               if rch else R.identity())
        if j["parent"] < 0:
            world.append((rot, t))
        else:
            pr, pt = world[j["parent"]]
            world.append((pr * rot, pt + pr.apply(t)))
    return np.array([w[1] for w in world])


def main():
    shared_assets()
    checks = 0
    for rel in FILES:
        path = os.path.join(SHARED, "assets", rel)
        joints, ft, data = parse(path)
        # BVH names no clip: animd calls it "motion-" + 8 hex of SHA-256.
        clip = "motion-" + hashlib.sha256(
            open(path, "rb").read()).hexdigest()[:8]
        for frame in (0, 10):
            want = positions(joints, data[frame])
            out = subprocess.run(
                [os.environ["ANIMD_BIN"], "eval", path, "--clip", clip,
                 "--t", repr(frame * ft), "--space", "model", "--format",
                 "json"], capture_output=True, text=True, timeout=30)
            if out.returncode != 0:
                sys.exit("%s: animd eval failed: %s" % (rel, out.stderr))
            m = np.array(json.loads(out.stdout)["matrices"]).reshape(-1, 16)
            got = m[:, 12:15]
            assert got.shape == want.shape, (rel, got.shape, want.shape)
            err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
            print("ok %s frame %d: %d joints, worst rel. error %.2e"
                  % (rel, frame, len(joints), err))
            if not err < 1e-4:
                i = int(np.abs(got - want).max(axis=1).argmax())
                sys.exit("%s frame %d: joint %s at %s, scipy says %s"
                         % (rel, frame, joints[i]["name"], got[i], want[i]))
            checks += 1
    print("%d BVH poses match scipy" % checks)


if __name__ == "__main__":
    main()
