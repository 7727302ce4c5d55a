"""Blend spaces over WebSocket on the real daemon: a stream plays a 1D
blend space of a walk (1 s) and a run (0.5 s) built here as native JSON,
a `set` moves its param every frame for 1 s, and every frame's "weights"
equal the closed form (linear between the points 0 and 1, clamped at the
ends) of the param in force within 1e-6, the set's answer giving the
weighted duration the clock loops over; a set naming an unknown clip gets
not_found at blend_space.clips[1].clip and the stream plays on."""
import asyncio
import json
import math
import os
import sys
import time

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check  # noqa: E402


def clip(name, duration, stride):
    return {"name": name, "tracks": [
        {"joint": "hips", "path": "translation", "interpolation": "LINEAR",
         "times": [0, duration / 2, duration],
         "values": [0, 1, 0, stride / 2, 1.1, 0, stride, 1, 0]}]}


ASSET = {
    "skeleton": {"name": "blender", "joints": [
        {"name": "hips", "parent": -1, "translation": [0, 1, 0]},
        {"name": "leg", "parent": 0, "translation": [0, -0.5, 0]}]},
    "clips": [clip("walk", 1.0, 1.5), clip("run", 0.5, 1.5)],
}


def space(p, run="run"):
    return {"param": [p], "clips": [{"clip": "walk", "at": [0]},
                                    {"clip": run, "at": [1]}]}


def param_at(k):
    """Sweeps past both ends: the weights clamp there."""
    return 0.5 + 0.7 * math.sin(0.25 * k)


def closed_form(p):
    w = min(max(p, 0.0), 1.0)
    return {"walk": 1.0 - w, "run": w}


async def stream(d):
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    async with websockets.connect(uri, max_size=1 << 24) as ws:
        params = [param_at(0)]
        await ws.send(json.dumps({"op": "play", "id": "b",
                                  "skeleton": "blender", "fps": 30,
                                  "blend_space": space(params[0])}))
        acked, frames = 0, 0  # params[acked] is in force
        end = time.monotonic() + 1.0
        deadline = end + 10
        while time.monotonic() < end and time.monotonic() < deadline:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if msg.get("op") in ("play", "set"):
                if msg["op"] == "set":
                    acked += 1
                want = 1.0 - 0.5 * closed_form(params[acked])["run"]
                check(abs(msg["duration"] - want) < 1e-6,
                      "duration %r for param %g" % (msg, params[acked]))
                continue
            check("weights" in msg, "unexpected message %r" % msg)
            frames += 1
            want = closed_form(params[acked])
            got = {w["clip"]: w["weight"] for w in msg["weights"]}
            check(set(got) == {"walk", "run"}, "weights %r" % msg["weights"])
            for name in got:
                check(abs(got[name] - want[name]) < 1e-6,
                      "frame %d, param %g: %s weight %r, want %r"
                      % (frames, params[acked], name, got[name], want[name]))
            check(0 <= msg["t"] <= 1.0, "t %r beyond the loop" % msg["t"])
            params.append(param_at(len(params)))
            await ws.send(json.dumps({"op": "set", "id": "b",
                                      "blend_space": space(params[-1])}))
        check(frames >= 15, "only %d frames in 1 s" % frames)
        check(min(params) < 0 and max(params) > 1, "no clamped params")
        # A set naming a clip the store lacks: a typed error at the member;
        # the stream plays on at the last param.
        await ws.send(json.dumps({"op": "set", "id": "b",
                                  "blend_space": space(0.3, "jog")}))
        err = None
        for _ in range(200):
            msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if msg.get("op") == "set":
                acked += 1
            elif msg.get("op") == "error" or "error" in msg:
                err = msg
                break
        check(err is not None, "no error for a bad set")
        text = json.dumps(err)
        check("not_found" in text and "blend_space.clips[1].clip" in text,
              "error %s" % text)
        msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
        while "weights" not in msg:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
        got = {w["clip"]: w["weight"] for w in msg["weights"]}
        check(abs(got["run"] - closed_form(params[-1])["run"]) < 1e-6,
              "after the bad set: %r" % msg["weights"])
        return frames


def main():
    d = Daemon()
    try:
        st, _, body = d.request("POST", "/v1/assets", ASSET)
        check(st == 201, "upload: %d %s" % (st, body[:200]))
        frames = asyncio.run(stream(d))
        print("ok: %d frames, weights in closed form as param moved"
              % frames)
    finally:
        d.cleanup()


main()
