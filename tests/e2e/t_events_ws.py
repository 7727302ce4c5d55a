"""Clip events end to end (docs/api.md "Clip events"): a 1 s clip with
events at 0, 0.25 and 1.0, uploaded as native JSON, shows them in its
describe answer; a pose range lists them per frame ((t_prev, t], the first
frame at its own time); a WebSocket stream (Python websockets) at 60 fps
sends {"type":"event",...} before the frame that crossed each: with
wrap=loop for 3.5 s every event once per loop in order, with
wrap=pingpong in both directions (a turning point once), at speed -1
backwards through the loop point, a seek crosses
nothing, a pause crosses nothing until the resume. The expected events
come from a model of the documented rule over the frames received, so
frames the loop skipped when late change nothing."""
import asyncio
import json
import math
import os
import sys

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check  # noqa: E402

EVENTS = [(0.0, "start"), (0.25, "step"), (1.0, "end")]
D = 1.0
FPS = 60

UPLOAD = {
    "skeleton": {"name": "ev-rig", "joints": [
        {"name": "root", "parent": -1},
        {"name": "arm", "parent": 0, "translation": [0, 1, 0]}]},
    "clips": [{"name": "ev-walk", "duration": D, "tracks": [
        {"joint": "arm", "path": "rotation",
         "times": [0, 1], "values": [0, 0, 0, 1, 0, 0.7071068, 0, 0.7071068]}],
        # Out of order on purpose: the clip keeps them sorted by t.
        "events": [{"t": 1.0, "name": "end"}, {"t": 0, "name": "start"},
                   {"t": 0.25, "name": "step"}]}],
}


def happenings(wrap, lo, hi):
    """(u, name) of every happening in [lo - 3 periods, hi + 3 periods],
    in increasing u (docs: loop k d + e; pingpong forward 2kd + e and back
    2kd + 2d - e, a turning point once)."""
    out = []
    period = 2 * D if wrap == "pingpong" else D
    for c in range(math.floor(lo / period) - 3, math.floor(hi / period) + 3):
        if wrap == "loop":
            out += [(c * D + e, n) for e, n in EVENTS]
        else:
            out += [(2 * c * D + e, n) for e, n in EVENTS]
            out += [(2 * c * D + 2 * D - e, n) for e, n in reversed(EVENTS)
                    if 0 < e < D]
    return out  # Already in increasing u, ties in cycle order.


def wrapped(wrap, u):
    if wrap == "loop":
        return u - D * math.floor(u / D)
    p = u - 2 * D * math.floor(u / (2 * D))
    return p if p <= D else 2 * D - p


def crossed(wrap, u_prev, u, start):
    if start:
        t = wrapped(wrap, u)
        return [n for e, n in EVENTS if e == t]
    if u >= u_prev:
        return [n for h, n in happenings(wrap, u_prev, u) if u_prev < h <= u]
    return [n for h, n in reversed(happenings(wrap, u, u_prev))
            if u <= h < u_prev]


async def recv_json(ws):
    msg = await asyncio.wait_for(ws.recv(), timeout=10)
    check(isinstance(msg, str), "a binary message on a JSON stream")
    return json.loads(msg)


async def collect(ws, until, log):
    """Messages until one satisfies until; every frame and event appended
    to log as ("frame", n) / ("event", name, t, frame)."""
    for _ in range(100000):
        m = await recv_json(ws)
        check("error" not in m, "an error: %s" % m)
        if m.get("type") == "event":
            log.append(("event", m["name"], m["t"], m["frame"], m.get("id")))
        elif "frame" in m and "op" not in m:
            log.append(("frame", m["frame"]))
        if until(m):
            return m
    check(False, "no end of the stream in sight")


def check_log(log, u_of, wrap, first_start=True, seek_frames=()):
    """Events before each frame equal the model's crossing of that frame;
    an event's "frame" is the frame it precedes."""
    pending, prev, n_events = [], None, 0
    for entry in log:
        if entry[0] == "event":
            pending.append(entry)
            continue
        n = entry[1]
        if n in seek_frames:
            want = []
        elif prev is None:
            want = crossed(wrap, 0, u_of(n), first_start)
        else:
            want = crossed(wrap, u_of(prev), u_of(n), False)
        got = [e[1] for e in pending]
        check(got == want, "frame %d (u %.4f): events %s, expected %s"
              % (n, u_of(n), got, want))
        for e in pending:
            check(e[3] == n, "event %s says frame %d before frame %d"
                  % (e[1], e[3], n))
            check(e[2] == dict((nm, t) for t, nm in EVENTS)[e[1]],
                  "event %s has t %r" % (e[1], e[2]))
        n_events += len(pending)
        pending, prev = [], n
    check(not pending, "events after the last frame: %s" % pending)
    return n_events


async def ws_cases(d):
    url = "ws://%s:%d/v1/stream" % (d.host, d.port)
    async with websockets.connect(url, max_size=1 << 24) as ws:
        # 1. wrap=loop for 3.5 s: every event once per loop, in order.
        await ws.send(json.dumps({"op": "play", "id": "loop", "clip": "ev-walk", "skeleton": "ev-rig", "format": "json",
                                  "fps": FPS, "wrap": "loop", "t0": 0}))
        log = []
        await collect(ws, lambda m: m.get("frame", -1) >= 210 and "op" not in m
                      and m.get("type") != "event", log)
        await ws.send(json.dumps({"op": "stop", "id": "loop"}))
        await collect(ws, lambda m: m.get("op") == "stop", [])
        last = [e for e in log if e[0] == "frame"][-1][1]
        check_log(log, lambda n: n / FPS, "loop")
        names = [e[1] for e in log if e[0] == "event"]
        u_last = last / FPS
        want = [n for u, n in happenings("loop", 0, u_last)
                if 0 <= u <= u_last and not (u == 0 and n == "end")]
        check(names == want, "loop: %s, expected %s" % (names, want))
        for e, n in EVENTS:  # Once per loop: loops 0..3 reach 3.5 s.
            loops = sum(1 for k in range(4) if k + e <= u_last)
            check(names.count(n) == loops, "loop: %s %d times, expected %d"
                  % (n, names.count(n), loops))
        print("loop: %d frames to %d, %d events" % (
            sum(1 for e in log if e[0] == "frame"), last, len(names)))

        # 2. wrap=pingpong at speed 2 (2.5 s): both directions.
        await ws.send(json.dumps({"op": "play", "id": "pp", "clip": "ev-walk", "skeleton": "ev-rig", "format": "json",
                                  "fps": FPS, "speed": 2, "wrap": "pingpong"}))
        log = []
        await collect(ws, lambda m: m.get("frame", -1) >= 150 and "op" not in m
                      and m.get("type") != "event", log)
        await ws.send(json.dumps({"op": "stop", "id": "pp"}))
        await collect(ws, lambda m: m.get("op") == "stop", [])
        n_pp = check_log(log, lambda n: 2 * n / FPS, "pingpong")
        names = [e[1] for e in log if e[0] == "event"]
        check(names[:6] == ["start", "step", "end", "step", "start", "step"],
              "pingpong: %s" % names[:6])
        print("pingpong: %d events" % n_pp)

        # 3. speed -1 (reverse) with wrap=loop from 0.5 for 1 s: backwards
        # through the loop point, in decreasing time.
        await ws.send(json.dumps({"op": "play", "id": "rev", "clip": "ev-walk",
                                  "skeleton": "ev-rig", "format": "json",
                                  "fps": FPS, "speed": -1, "wrap": "loop",
                                  "t0": 0.5}))
        log = []
        await collect(ws, lambda m: m.get("frame", -1) >= 60 and "op" not in m
                      and m.get("type") != "event", log)
        await ws.send(json.dumps({"op": "stop", "id": "rev"}))
        await collect(ws, lambda m: m.get("op") == "stop", [])
        check_log(log, lambda n: 0.5 - n / FPS, "loop")
        names = [e[1] for e in log if e[0] == "event"]
        check(names == ["step", "start", "end"], "reverse: %s" % names)
        print("reverse: %s" % names)

        # 4. seek and pause: play from 0.5, pause, seek (paused) onto the
        # event at 0.25 (the seek's frame sends nothing), resume.
        await ws.send(json.dumps({"op": "play", "id": "sk", "clip": "ev-walk", "skeleton": "ev-rig", "format": "json",
                                  "fps": FPS, "wrap": "loop", "t0": 0.5}))
        log = []
        await collect(ws, lambda m: m.get("op") == "play", log)
        await collect(ws, lambda m: m.get("frame", -1) >= 0 and "op" not in m
                      and m.get("type") != "event", log)
        await ws.send(json.dumps({"op": "pause", "id": "sk"}))
        await collect(ws, lambda m: m.get("op") == "pause", log)
        before = list(log)
        check_log(before, lambda n: 0.5 + n / FPS, "loop")
        await ws.send(json.dumps({"op": "seek", "id": "sk", "t": 0.25}))
        seek_ack = await collect(ws, lambda m: m.get("op") == "seek", log)
        after_seek = []
        seek_frame = await collect(ws, lambda m: "frame" in m and "op" not in m
                                   and m.get("type") != "event", after_seek)
        check(after_seek == [("frame", seek_frame["frame"])],
              "a seek onto an event sent %s" % after_seek)
        n0 = seek_frame["frame"]
        check(seek_ack["frame"] == n0, "seek ack frame %r" % seek_ack)
        # Paused: nothing comes until the resume.
        try:
            m = await asyncio.wait_for(ws.recv(), timeout=0.3)
            check(False, "a paused stream sent %s" % m)
        except asyncio.TimeoutError:
            pass
        await ws.send(json.dumps({"op": "resume", "id": "sk"}))
        log = [("frame", n0)]
        await collect(ws, lambda m: m.get("frame", -1) >= n0 + 66
                      and "op" not in m and m.get("type") != "event", log)
        await ws.send(json.dumps({"op": "stop", "id": "sk"}))
        await collect(ws, lambda m: m.get("op") == "stop", [])
        check_log(log, lambda n: 0.25 + (n - n0) / FPS, "loop",
                  seek_frames=(n0,))
        names = [e[1] for e in log if e[0] == "event"]
        check(names == ["end", "start", "step"],
              "after the seek and resume: %s" % names)
        print("seek and pause: %s" % names)


def range_case(d):
    st, h, body = d.request(
        "GET", "/v1/pose?clip=ev-walk&from=0&to=2&fps=4&wrap=loop")
    check(st == 200, "range: %d %s" % (st, body[:200]))
    lines = [json.loads(x) for x in body.decode().splitlines() if x]
    check(len(lines) == 9, "range: %d frames" % len(lines))
    want = {0: ["start"], 1: ["step"], 4: ["end", "start"], 5: ["step"],
            8: ["end", "start"]}
    for f in lines:
        got = [e["name"] for e in f.get("events", [])]
        check(got == want.get(f["frame"], []),
              "range frame %d: %s" % (f["frame"], got))
        check("events" in f or not want.get(f["frame"]),
              "range frame %d lacks events" % f["frame"])
    st, h, body = d.request(
        "GET", "/v1/pose?clip=ev-walk&from=0&to=2&fps=4&wrap=pingpong")
    lines = [json.loads(x) for x in body.decode().splitlines() if x]
    got = [[e["name"] for e in f.get("events", [])] for f in lines]
    check(got == [["start"], ["step"], [], [], ["end"], [], [], ["step"],
                  ["start"]], "pingpong range: %s" % got)
    print("ranges: ok")


def main():
    d = Daemon()
    try:
        ans = d.json("POST", "/v1/assets", UPLOAD, expect=201)
        clip_id = ans["clips"][0]["id"]
        desc = d.json("GET", "/v1/clips/" + clip_id)
        check(desc.get("events") == [{"t": 0, "name": "start"},
                                     {"t": 0.25, "name": "step"},
                                     {"t": 1, "name": "end"}],
              "describe: %s" % desc.get("events"))
        bad = dict(UPLOAD, clips=[dict(UPLOAD["clips"][0], name="bad",
                                       events=[{"t": 2, "name": "late"}])])
        st, _, body = d.request("POST", "/v1/assets", bad)
        err = json.loads(body)
        check(st == 400 and err["error"]["at"] == "clips[0].events[0].t",
              "an event after the end: %d %s" % (st, body[:200]))
        range_case(d)
        asyncio.run(ws_cases(d))
        check(d.stop() == 0, "animd did not exit 0")
    finally:
        d.cleanup()
    print("ok")


main()
