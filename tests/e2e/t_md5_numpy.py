"""MD5 against numpy: Bob.md5mesh and Bob.md5anim are uploaded (the anim with
?skeleton=ID), and GET /v1/pose at frames 0 and 70 in model space must
give the joint positions an independent evaluation of the md5anim gives:
per joint the base frame with the flagged components replaced from the
frame, w = -sqrt(max(0, 1 - x^2 - y^2 - z^2)), and parent-relative
transforms composed with scipy rotations."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np
from scipy.spatial.transform import Rotation as R

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import shared_assets  # noqa: E402

SHARED = os.environ.get("ANIMD_SHARED") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared")
BOB = os.path.join(SHARED, "assets", "md5", "bob")


def quat(x, y, z):
    w = -np.sqrt(max(0.0, 1.0 - x * x - y * y - z * z))
    return R.from_quat([x, y, z, w])


def anim_reference(frame):
    txt = re.sub(r"//[^\n]*", "", open(os.path.join(BOB, "Bob.md5anim")).read())
    h = txt[txt.index("hierarchy {") + 11:]
    h = h[:h.index("}")]
    hier = [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))
            for m in re.finditer(r'"([^"]*)"\s+(-?\d+)\s+(\d+)\s+(\d+)', h)]
    b = txt[txt.index("baseframe {") + 11:]
    b = b[:b.index("}")]
    base = [list(map(float, g)) for g in re.findall(
        r"\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)\s*\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", b)]
    f = txt[txt.index("frame %d {" % frame):]
    vals = list(map(float, f[f.index("{") + 1:f.index("}")].split()))
    world = []
    for (name, parent, flags, start), bf in zip(hier, base):
        c, k = list(bf), start
        for i in range(6):
            if flags & (1 << i):
                c[i] = vals[k]
                k += 1
        t, q = np.array(c[:3]), quat(*c[3:])
        if parent < 0:
            world.append((q, t))
        else:
            pq, pt = world[parent]
            world.append((pq * q, pt + pq.apply(t)))
    return np.array([w[1] for w in world]), 24.0


class Animd:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="animd-e2e-")
        ready = os.path.join(self.dir, "ready")
        self.log = open(os.path.join(self.dir, "animd.log"), "w")
        self.proc = subprocess.Popen(
            [os.environ["ANIMD_BIN"], "--listen", "127.0.0.1:0",
             "--ready-file", ready, "--data-dir",
             os.path.join(self.dir, "data"), "--workers", "2"],
            stdout=self.log, stderr=self.log)
        for _ in range(200):
            if os.path.exists(ready) and open(ready).read().strip():
                self.url = "http://" + open(ready).read().strip()
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        sys.exit("animd did not become ready")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        subprocess.run(["rm", "-rf", self.dir], check=False)

    def call(self, method, path, body=None, ctype=None):
        req = urllib.request.Request(self.url + path, data=body, method=method)
        if ctype:
            req.add_header("Content-Type", ctype)
        with urllib.request.urlopen(req, timeout=20) as r:
            return json.loads(r.read())


def main():
    shared_assets()
    srv = Animd()
    try:
        mesh = srv.call("POST", "/v1/assets",
                        open(os.path.join(BOB, "Bob.md5mesh"), "rb").read(),
                        "application/x-md5mesh")
        skel = mesh["skeletons"][0]["id"]
        anim = srv.call("POST", "/v1/assets?skeleton=" + skel,
                        open(os.path.join(BOB, "Bob.md5anim"), "rb").read(),
                        "application/x-md5anim")
        clip = anim["clips"][0]["id"]
        for frame in (0, 70):
            want, fps = anim_reference(frame)
            pose = srv.call("GET", "/v1/pose?skeleton=%s&clip=%s&t=%r&space=model"
                            % (skel, clip, frame / fps))
            got = np.array(pose["matrices"]).reshape(-1, 16)[:, 12:15]
            err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
            print("ok Bob.md5anim frame %d: %d joints, worst rel. error %.2e"
                  % (frame, len(want), err))
            if not err < 1e-4:
                sys.exit("frame %d: worst error %g" % (frame, err))
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
