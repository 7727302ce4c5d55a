"""Morph targets in the native JSON form and over WebSocket: an upload
with a mesh's targets (position and normal deltas, default weights) and a
clip's CUBICSPLINE weight track; a WebSocket pose frame lists the clip's
morph_weights (and a "weights" override), equal to GET /v1/pose's; a
skinned WebSocket pose equals GET /v1/skin, with and without overrides;
the mesh block is layout version 2 with the targets section."""
import asyncio
import json
import os
import struct
import sys
import urllib.parse

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check  # noqa: E402

ASSET = {
    "skeleton": {"name": "mrig", "joints": [
        {"name": "root", "parent": -1},
        {"name": "head", "parent": 0, "translation": [0, 1, 0]}]},
    "meshes": [{"name": "mface", "positions": [0, 0, 0, 1, 0, 0, 0, 1, 0],
                "normals": [0, 0, 1, 0, 0, 1, 0, 0, 1], "influences": 1,
                "joints": [0, 1, 1], "weights": [1, 1, 1],
                "targets": [
                    {"positions": [0, 1, 0, 0, 1, 0, 0, 1, 0],
                     "normals": [1, 0, 0, 1, 0, 0, 1, 0, 0]},
                    {"positions": [0, 0, 2, 0, 0, 2, 0, 0, 2],
                     "normals": [0, 0, 0, 0, 0, 0, 0, 0, 0]}],
                "target_weights": [0.5, 0]}],
    "clips": [{"name": "mtalk", "tracks": [
        {"joint": "head", "path": "rotation", "times": [0, 1],
         "values": [0, 0, 0, 1, 0, 0, 0.38268343, 0.92387953]}],
        "weights": [{"mesh": "mface", "interpolation": "CUBICSPLINE",
                     "times": [0, 1],
                     "values": [9, 9, 0, 1, 2, 0, 0, 4, 1, 0, 9, 9]}]}],
}


def close(a, b, tol, what):
    check(len(a) == len(b), "%s: %d numbers, expected %d" % (what, len(a), len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        check(abs(x - y) <= tol, "%s[%d]: %r, expected %r" % (what, i, x, y))


async def run(d, ids):
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    over = {"mface": [1, -0.5]}
    async with websockets.connect(uri, max_size=None) as ws:
        for weights in (None, over):
            msg = {"op": "pose", "skeleton": ids["s"], "clip": ids["c"], "t": 0.25}
            q = ""
            if weights:
                msg["weights"] = weights
            await ws.send(json.dumps(msg))
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            got = frame["morph_weights"][0]["values"]
            if weights:
                close(got, over["mface"], 0, "ws override")
            else:
                pose = d.json("GET", "/v1/pose?clip=%s&t=0.25" % ids["c"])
                close(got, pose["morph_weights"][0]["values"], 0, "ws weights")
                # u = 0.25: 9/64 * 2 + 5/32 and 27/32 - 3/64 * 4 (docs).
                close(got, [9 / 64 * 2 + 5 / 32, 27 / 32 - 12 / 64], 1e-6, "weights")
            msg = {"op": "pose", "mesh": ids["m"], "clip": ids["c"], "t": 0.25,
                   "normals": True}
            if weights:
                msg["weights"] = weights
                q = "&weights=" + urllib.parse.quote(json.dumps(weights))
            await ws.send(json.dumps(msg))
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            skin = d.json("GET", "/v1/skin?mesh=%s&clip=%s&t=0.25&normals=1%s"
                          % (ids["m"], ids["c"], q))
            close(frame["positions"], skin["positions"], 0, "ws skin positions")
            close(frame["normals"], skin["normals"], 0, "ws skin normals")
    print("ok: WebSocket pose frames list morph_weights; skinned frames "
          "equal GET /v1/skin (with and without overrides)")


def main():
    d = Daemon()
    try:
        up = d.json("POST", "/v1/assets", ASSET, expect=201)
        ids = {"s": up["skeletons"][0]["id"], "c": up["clips"][0]["id"],
               "m": up["meshes"][0]["id"]}
        asyncio.run(run(d, ids))
        # Vertex 0 at t = 0 (head unrotated, joint root): p + w.dp with the
        # clip's weights (0, 1) at t = 0: (0, 0, 2).
        skin = d.json("GET", "/v1/skin?mesh=%s&clip=%s&t=0" % (ids["m"], ids["c"]))
        close(skin["positions"][:3], [0, 0, 2], 1e-6, "t=0 vertex 0")
        st, h, block = d.request("GET", "/v1/meshes/%s?format=bin" % ids["m"])
        check(st == 200, "mesh block: %d" % st)
        version, flags = struct.unpack_from("<I", block, 4)[0], struct.unpack_from("<I", block, 12)[0]
        count, at = struct.unpack_from("<II", block, 88)
        check(version == 2 and flags & 24 == 24 and count == 2,
              "mesh block header: version %d flags %d targets %d" % (version, flags, count))
        deltas = struct.unpack_from("<18f", block, at)
        close(deltas, [0, 1, 0] * 3 + [0, 0, 2] * 3, 0, "block position deltas")
        dflt = struct.unpack_from("<2f", block, at + 4 * 36)
        close(dflt, [0.5, 0], 0, "block default weights")
        print("ok: the mesh block carries the targets (layout version 2)")
    finally:
        d.stop()
        d.cleanup()


if __name__ == "__main__":
    main()
