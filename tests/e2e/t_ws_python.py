"""WebSocket streaming with Python's websockets (Debian python3-websockets):
pacing, frame contents against GET /v1/pose, pause/seek/resume/stop, two
streams on one connection, speed and wrap, bad messages next to a playing
stream, stats, and the 1001 close on SIGTERM."""
import asyncio
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import websockets

ASSET = {
    "skeleton": {"name": "wsarm", "joints": [
        {"name": "root", "parent": -1, "translation": [0, 0, 0],
         "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]},
        {"name": "upper", "parent": 0, "translation": [0, 1, 0],
         "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]},
        {"name": "lower", "parent": 1, "translation": [0, 1, 0],
         "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]}]},
    "clips": [{"name": "swing", "tracks": [
        {"joint": "root", "path": "rotation", "interpolation": "LINEAR",
         "times": [0, 2, 4],
         "values": [0, 0, 0, 1, 0, 0, 0.70710677, 0.70710677, 0, 0, 0, 1]},
        {"joint": "upper", "path": "translation", "interpolation": "LINEAR",
         "times": [0, 4], "values": [0, 1, 0, 0.5, 1, 0]},
        {"joint": "lower", "path": "rotation", "interpolation": "LINEAR",
         "times": [0, 4],
         "values": [0, 0, 0, 1, 0.38268343, 0, 0, 0.9238795]}]}],
}
DURATION = 4.0


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


class Daemon:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="animd-ws-")
        ready = os.path.join(self.tmp, "ready")
        self.log = open(os.path.join(self.tmp, "log"), "w")
        self.proc = subprocess.Popen(
            [os.environ["ANIMD_BIN"], "--listen", "127.0.0.1:0",
             "--ready-file", ready, "--workers", "2"],
            stdout=self.log, stderr=self.log)
        for _ in range(200):
            if os.path.exists(ready) and os.path.getsize(ready) > 0:
                break
            check(self.proc.poll() is None, "animd exited at start")
            time.sleep(0.05)
        with open(ready) as f:
            self.addr = f.read().strip()

    def http(self, method, path, body=None, ctype=None):
        req = urllib.request.Request("http://" + self.addr + path,
                                     data=body, method=method)
        if ctype:
            req.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def stop(self, keep_log=False):
        """Stops the daemon and removes its directory, or names it when
        keep_log (a failed run: its log is there)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.log.close()
        if keep_log:
            print("kept", self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def pose_http(d, skel, clip, t, wrap="loop", space="model"):
    q = urllib.parse.urlencode({"skeleton": skel, "clip": clip, "t": repr(t),
                                "wrap": wrap, "space": space})
    st, body = d.http("GET", "/v1/pose?" + q)
    check(st == 200, "GET /v1/pose: %d %s" % (st, body[:200]))
    return json.loads(body)


def pose_http_bin(d, skel, clip, t, wrap="loop", space="model"):
    q = urllib.parse.urlencode({"skeleton": skel, "clip": clip, "t": repr(t),
                                "wrap": wrap, "space": space,
                                "format": "bin"})
    st, body = d.http("GET", "/v1/pose?" + q)
    check(st == 200, "GET /v1/pose bin: %d" % st)
    return body


def stop_skipped(c):
    """True when the server reported skipped frames for the stream."""
    return any(a.get("op") == "stop" and a.get("skipped", 0) > 0
               for a in c.acks)


class Conn:
    """A client connection that sorts messages into frames per stream,
    acknowledgements and errors, with arrival times."""

    def __init__(self, ws):
        self.ws = ws
        self.frames = {}   # id or index -> [(arrival, frame dict or tuple)]
        self.acks = []
        self.errors = []
        self.index_to_id = {}

    async def send(self, obj):
        await self.ws.send(json.dumps(obj))

    async def pump(self, seconds, until=None):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                m = await asyncio.wait_for(self.ws.recv(), left)
            except asyncio.TimeoutError:
                return None
            now = time.monotonic()
            if isinstance(m, bytes):
                idx, layout, flo, fhi, t, count, elems = struct.unpack_from(
                    "<IIIIdII", m, 0)
                floats = m[32:]
                check(len(floats) == 4 * count, "binary float count")
                sid = self.index_to_id.get(idx, idx)
                self.frames.setdefault(sid, []).append(
                    (now, {"frame": flo | fhi << 32, "t": t,
                           "bin": floats, "layout": layout}))
                continue
            j = json.loads(m)
            if "error" in j:
                self.errors.append(j)
                if until == "error":
                    return j
            elif "op" in j:
                self.acks.append(j)
                if j["op"] == "play":
                    self.index_to_id[j["index"]] = j["id"]
                if until == j["op"]:
                    return j
            else:
                self.frames.setdefault(j["id"], []).append((now, j))

    async def request(self, obj, timeout=5):
        await self.send(obj)
        r = await self.pump(timeout, until=obj["op"])
        check(r is not None, "no answer to %s" % obj["op"])
        return r


async def run(d, ids):
    skel, clip = ids
    uri = "ws://" + d.addr + "/v1/stream"
    async with websockets.connect(uri, max_size=None) as ws:
        c = Conn(ws)

        # 1. Pacing and contents: 60 fps for 2 s, JSON, model space.
        ack = await c.request({"op": "play", "id": "a", "skeleton": skel,
                               "clip": clip, "fps": 60, "wrap": "clamp"})
        check(ack["joints"] == 3 and ack["layout"] == "mat4", "play ack")
        start = time.monotonic()
        await c.pump(2.0)
        stop = await c.request({"op": "stop", "id": "a"})
        got = [f for (at, f) in c.frames["a"] if at - start <= 2.0]
        n = len(got)
        # Frames 0..120 are due within 2 s of the start. A tick the
        # machine delays sends the latest due frame and skips (counts) the
        # older ones, so the frame numbers, not only the messages, show the
        # pace: about 120 frames, of which few skipped (at least two
        # thirds arrive even on a loaded machine; make bench-ws measures).
        # Under a sanitizer the daemon runs several times slower: the last
        # frames may arrive up to a quarter second late.
        sanitized = any(k in os.environ.get("ANIMD_BUILD", "")
                        for k in ("/asan", "/tsan"))
        span = got[-1]["frame"] + 1
        check((105 if sanitized else 118) <= span <= 123,
              "60 fps for 2 s reached frame %d" % span)
        check(abs(n - 120) <= 2 or (n >= span - 40 and stop_skipped(c)),
              "60 fps for 2 s gave %d frames" % n)
        frames = [f["frame"] for (_, f) in c.frames["a"]]
        check(frames == sorted(set(frames)), "frame numbers not increasing")
        check(frames[0] == 0, "first frame is %d" % frames[0])
        ts = [f["t"] for (_, f) in c.frames["a"]]
        check(all(b > a for a, b in zip(ts, ts[1:])), "clip times")
        for (_, f) in c.frames["a"]:
            # Frame n carries t0 + n * speed / fps (as a float32).
            want = f32(f["frame"] / 60)
            check(f32(f["t"]) == want, "frame %d t %r != %r" % (
                f["frame"], f["t"], want))
            ref = pose_http(d, skel, clip, f["t"], wrap="clamp")
            check(ref["t"] == f["t"], "sampled t differs")
            check(ref["matrices"] == f["matrices"],
                  "frame %d differs from GET /v1/pose" % f["frame"])
            check(f["joints"] == 3 and f["id"] == "a", "frame fields")
        check(stop["frames"] == len(c.frames["a"]), "stop counts frames")
        # Skips within the third of the frames the count above allows a
        # delayed daemon (pacing itself belongs to make bench-ws).
        check(stop["skipped"] <= 40, "skipped %d" % stop["skipped"])
        print("ok: 60 fps for 2 s: %d frames, all equal to GET /v1/pose" % n)

        # 2. Pause, seek while paused, resume, stop.
        c.frames.clear()
        await c.request({"op": "play", "id": "p", "skeleton": skel,
                         "clip": clip, "fps": 30})
        await c.pump(0.3)
        ack = await c.request({"op": "pause", "id": "p"})
        check(ack["paused"] is True, "pause ack")
        before = len(c.frames["p"])
        await c.pump(0.3)
        check(len(c.frames["p"]) == before, "frames while paused")
        await c.request({"op": "seek", "id": "p", "t": 1.5})
        await c.pump(0.2)
        check(len(c.frames["p"]) == before + 1, "seek while paused shows "
              "one frame")
        check(c.frames["p"][-1][1]["t"] == 1.5, "seek frame t")
        await c.request({"op": "resume", "id": "p"})
        await c.pump(0.3)
        after = [f for (_, f) in c.frames["p"][before + 1:]]
        check(len(after) >= 5, "frames after resume: %d" % len(after))
        check(abs(after[0]["t"] - (1.5 + 1 / 30)) < 1e-6,
              "resume continues from the seek: %r" % after[0]["t"])
        await c.request({"op": "stop", "id": "p"})
        n = len(c.frames["p"])
        await c.pump(0.2)
        check(len(c.frames["p"]) == n, "frames after stop")
        # Seek while playing jumps.
        await c.request({"op": "play", "id": "s", "skeleton": skel,
                         "clip": clip, "fps": 60})
        await c.pump(0.1)
        await c.request({"op": "seek", "id": "s", "t": 3.0})
        await c.pump(0.1)
        check(abs(c.frames["s"][-1][1]["t"] - 3.0) < 0.2, "seek playing")
        await c.request({"op": "stop", "id": "s"})
        print("ok: pause, seek, resume, stop")

        # 3. Two streams on one connection (JSON and binary), speed, wrap.
        c.frames.clear()
        await c.request({"op": "play", "id": "j", "skeleton": skel,
                         "clip": clip, "fps": 60})
        ackb = await c.request({"op": "play", "id": "b", "skeleton": skel,
                                "clip": clip, "fps": 60, "speed": 2,
                                "t0": 3.5, "wrap": "loop",
                                "format": "bin"})
        await c.pump(0.5)
        fj = [f for (_, f) in c.frames["j"]]
        fb = [f for (_, f) in c.frames["b"]]
        check(len(fj) >= 20 and len(fb) >= 20, "two streams: %d and %d"
              % (len(fj), len(fb)))
        # Stream b: t = wrap(3.5 + 2 n / 60) in a 4 s loop.
        wrapped = False
        for f in fb:
            raw = 3.5 + 2 * f["frame"] / 60
            want = raw - DURATION * (raw // DURATION)
            check(abs(f["t"] - want) < 1e-5, "speed/wrap t %r != %r"
                  % (f["t"], want))
            wrapped = wrapped or f["t"] < 1
            if f["frame"] % 5 == 0:
                ref = pose_http_bin(d, skel, clip, f["t"], wrap="loop")
                check(ref == f["bin"], "binary frame %d differs" % f["frame"])
        check(wrapped, "loop never wrapped")
        check(fb[0]["layout"] == 1 and ackb["layout"] == "mat4", "layout")
        print("ok: two streams, speed 2 and loop wrap, binary frames equal")

        # 4. Bad messages get errors; the playing streams go on.
        bad = ["{not json", json.dumps({"op": "dance", "id": "x"}),
               json.dumps({"op": "play", "id": "x", "skeleton": "nope",
                           "clip": clip}),
               json.dumps({"op": "play", "id": "y", "skeleton": skel,
                           "clip": clip, "fps": "fast"}),
               json.dumps({"op": "pause", "id": "ghost"})]
        c.errors.clear()
        nj = len(c.frames["j"])
        for m in bad:
            await ws.send(m)
        await c.pump(0.5)
        codes = [e["error"]["code"] for e in c.errors]
        check(codes == ["bad_json", "unknown_op", "not_found", "wrong_type",
                        "unknown_stream"], "error codes %r" % codes)
        check(c.errors[3]["error"]["at"] == "fps" and c.errors[3]["id"] ==
              "y", "error at/id")
        check(len(c.frames["j"]) >= nj + 20, "stream stopped by errors")
        st = await c.request({"op": "stats"})
        ids_ = sorted(s["id"] for s in st["streams"])
        check(ids_ == ["b", "j"], "stats streams %r" % ids_)
        check(st["dropped"] == 0, "dropped frames on loopback")
        print("ok: bad messages answered, other streams kept going")

        # 5. SIGTERM: a close frame 1001 before the daemon exits.
        d.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(c.pump(5), 6)
        except websockets.ConnectionClosed:
            pass
        await asyncio.wait_for(ws.wait_closed(), 5)
        check(ws.close_code == 1001, "close code on SIGTERM: %r"
              % ws.close_code)
        rc = d.proc.wait(timeout=10)
        check(rc == 0, "animd exit status %d after SIGTERM" % rc)
        print("ok: SIGTERM closed the stream with 1001; animd exited 0")


def main():
    d = Daemon()
    try:
        st, body = d.http("POST", "/v1/assets", json.dumps(ASSET).encode(),
                          "application/json")
        check(st in (200, 201), "upload: %d %s" % (st, body[:300]))
        up = json.loads(body)
        ids = (up["skeletons"][0]["id"], up["clips"][0]["id"])
        asyncio.run(asyncio.wait_for(run(d, ids), 60))
    except BaseException:
        d.stop(keep_log=True)
        raise
    d.stop()


main()
