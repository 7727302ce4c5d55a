"""IK end to end on the real daemon: a WebSocket stream whose two-bone
target is moved by a `set` every frame for 2 s (every JSON frame's
"ik" error below 1e-4, the target reachable, and frames following the new
targets), a binary stream carrying the answer flag and floats, and POST
/v1/pose answered byte for byte as `animd eval --request`."""
import asyncio
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import BIN, Daemon, check  # noqa: E402

ASSET = {
    "skeleton": {"name": "ikarm", "joints": [
        {"name": "s", "parent": -1, "translation": [0, 0, 0]},
        {"name": "m", "parent": 0, "translation": [1, 0, 0]},
        {"name": "e", "parent": 1, "translation": [1, 0, 0]}]},
    "clips": [{"name": "sway", "tracks": [
        {"joint": "s", "path": "rotation", "interpolation": "LINEAR",
         "times": [0, 1, 2],
         "values": [0, 0, 0, 1, 0, 0, 0.3826834, 0.9238795, 0, 0, 0, 1]}]}],
}


def target_at(k):
    """A reachable target on a circle of radius 1.5 (the chain spans 2)."""
    a = 0.2 * k
    return [1.5 * math.cos(a), 1.5 * math.sin(a), 0.3 * math.sin(0.5 * a)]


def ik(target):
    return [{"type": "two_bone", "start": "s", "mid": "m", "end": "e",
             "target": target}]


async def moving_targets(d):
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    async with websockets.connect(uri, max_size=1 << 24) as ws:
        await ws.send(json.dumps({"op": "play", "id": "arm",
                                  "skeleton": "ikarm", "clip": "sway",
                                  "fps": 30, "wrap": "loop",
                                  "ik": ik(target_at(0))}))
        frames, sets, k = 0, 0, 0
        targets = {json.dumps(target_at(0))}
        end = time.monotonic() + 2.0
        deadline = end + 10
        while time.monotonic() < end and time.monotonic() < deadline:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if msg.get("op") == "set":
                sets += 1
                continue
            if "matrices" not in msg:
                check(msg.get("op") == "play", "unexpected message %r" % msg)
                continue
            frames += 1
            check("ik" in msg and len(msg["ik"]) == 1, "no ik in %r" % msg)
            r = msg["ik"][0]
            check(r["reached"] is True, "frame %d: not reached" % frames)
            check(r["error"] < 1e-4, "frame %d: error %g" % (frames,
                                                              r["error"]))
            # The end joint (index 2) sits on one of the targets sent.
            e = msg["matrices"][2 * 16 + 12:2 * 16 + 15]
            check(any(math.dist(e, json.loads(t)) < 1e-4 for t in targets),
                  "frame %d: end %r on no target sent" % (frames, e))
            k += 1
            t = target_at(k)
            targets.add(json.dumps(t))
            await ws.send(json.dumps({"op": "set", "id": "arm",
                                      "ik": ik(t)}))
        check(frames >= 30, "only %d frames in 2 s" % frames)
        check(sets >= frames - 2, "sets acknowledged: %d" % sets)
        # A binary stream: the flag in the layout word, 2 floats after the
        # matrices.
        await ws.send(json.dumps({"op": "play", "id": "bin",
                                  "skeleton": "ikarm", "clip": "sway",
                                  "fps": 30, "format": "bin",
                                  "ik": ik([0, 1.2, 0.4])}))
        for _ in range(200):
            m = await asyncio.wait_for(ws.recv(), 5)
            if isinstance(m, bytes):
                break
        check(isinstance(m, bytes), "no binary frame")
        layout, = struct.unpack_from("<I", m, 4)
        count, = struct.unpack_from("<I", m, 24)
        check(layout & 0x80000000, "no answer flag in %#x" % layout)
        check(count == 48 and len(m) == 32 + 4 * 48 + 8,
              "binary frame of %d bytes, count %d" % (len(m), count))
        reached, error = struct.unpack_from("<ff", m, 32 + 4 * 48)
        check(reached == 1 and error < 1e-4, "binary answer %g %g"
              % (reached, error))
    return frames


def main():
    d = Daemon()
    try:
        st, _, body = d.request("POST", "/v1/assets", ASSET)
        check(st == 201, "upload: %d %s" % (st, body[:200]))
        frames = asyncio.run(moving_targets(d))
        req = {"skeleton": "ikarm", "format": "bin",
               "layers": [{"clip": "sway", "t": 0.5}],
               "ik": ik([0.5, 1.0, 0.5]) + [
                   {"type": "aim", "joint": "e", "target": [2, 2, 2]}]}
        st, h, post = d.request("POST", "/v1/pose", req)
        check(st == 200, "POST: %d %s" % (st, post[:200]))
        check(h.get("x-animd-answer") == "ik=4", "header %r" % h)
        with tempfile.TemporaryDirectory() as tmp:
            asset = os.path.join(tmp, "arm.json")
            with open(asset, "w") as f:
                json.dump(ASSET, f)
            cli = subprocess.run([BIN, "eval", asset, "--request",
                                  json.dumps(req)], capture_output=True,
                                 timeout=30)
        check(cli.returncode == 0, "animd eval: %s" % cli.stderr)
        check(cli.stdout == post, "animd eval --request differs from POST")
        print("ok: %d frames with moving targets, binary flag, POST = eval"
              % frames)
    finally:
        d.cleanup()


main()
