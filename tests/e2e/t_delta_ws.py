#!/usr/bin/python3
"""WebSocket delta frames (encoding "delta", docs/api.md "Delta frames")
read by a decoder written here from the documented layout alone (numpy),
and by the C client's decoder (clients/c/animd_frame.h, compiled here):

- a delta stream and a q16 stream of the same mesh, clip and fps on one
  connection: every delta frame decodes to the q16 stream's payload of the
  same frame number, byte for byte; key frames every key_every frames;
- the C decoder's floats of the saved delta messages against GET /v1/skin
  float32 at each frame's time, within q16's bound (positions within
  (max - min) / 131070 per axis plus float rounding, normals 0.01 deg);
- a frame lost on purpose: the next delta is a gap, a set "key": true
  brings a key frame, and the chain goes on;
- several subscribers of one stream on a daemon with one stream loop (the
  frame cache shares delta bytes within a loop): two in step from the
  start, one joining late at a clip time off the key frame grid, one
  losing frames on purpose and asking for a key frame; every frame each
  one decodes is byte-equal to the q16 stream's payload of the same clip
  time, and every frame of the same clip time, seq and flags as the first
  subscriber's carries the same bytes (shared from a key frame of the
  grid on: the late joiner's first frames are its own);
- refusals: delta on a pose, without format bin, with several meshes, on
  HTTP; a mesh with "space" (play and pose).
Meshes: the demo's `body`, and CesiumMan from the shared assets when there
(it prints the bytes per frame against float32).
"""
import asyncio
import json
import os
import struct
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, fail  # noqa: E402

import numpy as np  # noqa: E402
import websockets  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SHARED = os.environ.get("ANIMD_SHARED") or os.path.join(ROOT, "..", "shared")
EPS32 = np.finfo(np.float32).eps


# ---- the decoder, from the layout ----------------------------------------------

def q16_size(v, normals):
    return (24 + v * (10 if normals else 6) + 3) // 4 * 4


def q16_values(payload, v, normals):
    """The planes of a q16 payload: x, y, z (u16) and u, v (i16)."""
    pos = np.frombuffer(payload, "<u2", 3 * v, 24).reshape(v, 3).astype(np.int64)
    planes = [pos[:, 0], pos[:, 1], pos[:, 2]]
    if normals:
        n = np.frombuffer(payload, "<i2", 2 * v, 24 + 6 * v).reshape(v, 2)
        planes += [n[:, 0].astype(np.int64), n[:, 1].astype(np.int64)]
    return planes


def q16_bytes(box, planes, v, normals):
    out = bytearray(box)
    out += np.stack(planes[:3], 1).astype("<u2").tobytes()
    if normals:
        out += np.stack(planes[3:], 1).astype("<i2").tobytes()
    out += b"\0" * (q16_size(v, normals) - len(out))
    return bytes(out)


class Gap(Exception):
    pass


class Bits:
    """A bit stream, least significant bit of each byte first (as a string
    of '0' and '1', bit k at index k)."""

    def __init__(self, data):
        self.bits = "".join(format(b, "08b")[::-1] for b in data)
        self.pos = 0

    def get(self, n):
        check(self.pos + n <= len(self.bits), "delta bits run out")
        v = int(self.bits[self.pos:self.pos + n][::-1] or "0", 2)
        self.pos += n
        return v

    def rice(self, k):
        end = self.bits.find("0", self.pos)
        check(end >= 0, "delta unary runs out")
        q = end - self.pos
        self.pos = end + 1
        z = (q << k) | self.get(k)
        check(z < 1 << 19, "delta value %d" % z)
        return z

    def plane(self, v):
        out = []
        for g in range(0, v, 16):
            k = self.get(5)
            check(k <= 19, "delta k %d" % k)
            out += [self.rice(k) for _ in range(min(16, v - g))]
        return out


class DeltaDecoder:
    def __init__(self):
        self.held = []  # q16 planes of the last frames, newest last
        self.parents = None
        self.next_seq = None

    def decode(self, p, v_header):
        seq, flags, v, nbytes = struct.unpack_from("<IIII", p)
        check(v == v_header, "delta vertices %d, header %d" % (v, v_header))
        check(flags & ~7 == 0 and flags & 3 != 3, "delta flags %d" % flags)
        normals = bool(flags & 4)
        box = p[16:40]
        if flags & 1:
            pred = None
        else:
            need = 2 if flags & 2 else 1
            if len(self.held) < need or seq != self.next_seq:
                raise Gap()
            a = self.held[-1]
            pred = a if need == 1 else [2 * x - y for x, y in
                                        zip(a, self.held[-2])]
        data = p[40:40 + nbytes]
        check(all(b == 0 for b in p[40 + nbytes:]), "delta padding")
        check(len(p) % 4 == 0 and len(p) - 40 - nbytes < 4, "delta size")
        bits = Bits(data)
        if flags & 1:
            self.parents = bits.plane(v)
            check(all(d <= i for i, d in enumerate(self.parents)),
                  "delta parents")
        parents = self.parents
        planes = []
        for k in range(5 if normals else 3):
            z = np.array(bits.plane(v), np.int64)
            e = np.where(z & 1, -(z >> 1) - 1, z >> 1).tolist()
            r = [0] * v  # r[i] = e[i] + r[parent(i)]
            for i in range(v):
                r[i] = e[i] + (r[i - parents[i]] if parents[i] else 0)
            r = np.array(r, np.int64)
            q = r if pred is None else pred[k] + r
            planes.append(q)
        check(len(data) * 8 - bits.pos < 8,
              "delta bits: %d of %d" % (bits.pos, len(data) * 8))
        self.held = (self.held + [planes])[-2:]
        self.next_seq = seq + 1
        return q16_bytes(box, planes, v, normals), flags, seq


# ---- helpers ----------------------------------------------------------------------

async def recv_json(ws, pred, timeout=10):
    async def loop():
        while True:
            m = await ws.recv()
            if isinstance(m, str):
                j = json.loads(m)
                if pred(j):
                    return j
    return await asyncio.wait_for(loop(), timeout)


def parse_ws(m):
    index, layout, flo, fhi, t, count, v = struct.unpack_from("<IIIIdII", m)
    check(len(m) == 32 + 4 * count, "message of %d bytes, count %d"
          % (len(m), count))
    return index, layout, flo | fhi << 32, t, v, m[32:]


def get(d, path, **q):
    return d.request("GET", path + "?" + urllib.parse.urlencode(q))


def build_c_decoder(tmp):
    exe = os.path.join(tmp, "frame_decode")
    subprocess.run(["cc", "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror",
                    "-pedantic", "-I", os.path.join(ROOT, "clients", "c"),
                    "-o", exe, os.path.join(HERE, "frame_decode.c"), "-lm"],
                   check=True)
    return exe


# ---- the checks --------------------------------------------------------------------

async def stream_checks(d, mesh, clip, v, normals, frames, exe, tmp):
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    base = {"mesh": mesh, "clip": clip, "fps": 30, "format": "bin",
            "normals": normals}
    q16 = {}
    delta_msgs = []
    sizes = {"key": [], "delta": []}
    dec = DeltaDecoder()
    async with websockets.connect(uri, max_size=None) as ws:
        await ws.send(json.dumps(dict(base, op="play", id="q",
                                      encoding="q16")))
        await ws.send(json.dumps(dict(base, op="play", id="d",
                                      encoding="delta", key_every=10)))
        a = await recv_json(ws, lambda j: j.get("op") == "play"
                            and j.get("id") == "d")
        check(a["layout"] == ("positions+normals/delta" if normals
                              else "positions/delta"), "play %r" % a)
        check(a["key_every"] == 10, "key_every %r" % a)
        idx = a["index"]
        lost = None
        asked = False
        gap_seq = None
        decoded = {}
        keys = []
        deadline = asyncio.get_running_loop().time() + 60
        # Until enough frames came in both streams: a loaded machine (a
        # sanitizer's build) makes the q16 stream skip late frames.
        while len(decoded) < frames or \
                sum(f in q16 for f in decoded) < frames // 2:
            check(asyncio.get_running_loop().time() < deadline,
                  "%d delta frames, %d in both streams in 60 s"
                  % (len(decoded), sum(f in q16 for f in decoded)))
            m = await asyncio.wait_for(ws.recv(), 10)
            if isinstance(m, str):
                j = json.loads(m)
                check("error" not in j, "error %r" % j)
                continue
            index, layout, frame, t, vv, payload = parse_ws(m)
            if index != idx:
                check(layout == (5 if normals else 4), "q16 layout")
                q16[frame] = payload
                continue
            check(layout == (7 if normals else 6), "delta layout %d" % layout)
            check(vv == v, "vertices %d" % vv)
            if len(decoded) == frames // 2 and lost is None:
                lost = frame  # dropped here on purpose
                continue
            try:
                out, flags, seq = dec.decode(payload, v)
            except Gap:
                check(lost is not None, "gap at frame %d" % frame)
                gap_seq = struct.unpack_from("<I", payload)[0]
                if not asked:
                    await ws.send(json.dumps({"op": "set", "id": "d",
                                              "key": True}))
                    asked = True
                continue
            delta_msgs.append(m)
            sizes["key" if flags & 1 else "delta"].append(len(m) - 32)
            if flags & 1:
                keys.append(seq)
            decoded[frame] = (out, t)
        check(asked, "no gap after the lost frame %r" % lost)
        # Every 10 frames sent, but around the gap: the interval that lost
        # frames, and the one the key asked for ends (the ask may arrive
        # several frames late when the client is slow).
        odd = [(keys[j], keys[j + 1]) for j in range(len(keys) - 1)
               if keys[j + 1] - keys[j] != 10]
        check(len(odd) <= 2 and all(b > gap_seq for _, b in odd),
              "key frames %r, gap at %r" % (keys, gap_seq))
        await ws.send(json.dumps({"op": "stop", "id": "d"}))
        await ws.send(json.dumps({"op": "stop", "id": "q"}))
        await recv_json(ws, lambda j: j.get("op") == "stop" and
                        j.get("id") == "q")
    same = 0
    for frame, (out, t) in decoded.items():
        if frame in q16:
            check(out == q16[frame], "frame %d: delta decodes to other "
                  "bytes than the q16 stream's" % frame)
            same += 1
    check(same >= frames // 2, "only %d frames in both streams" % same)
    # The C decoder on the saved messages, against float32.
    path = os.path.join(tmp, "messages.bin")
    with open(path, "wb") as f:
        for m in delta_msgs:
            f.write(struct.pack("<I", len(m)) + m)
    out_path = os.path.join(tmp, "decoded.bin")
    r = subprocess.run([exe, path, out_path], capture_output=True, text=True)
    check(r.returncode == 0 and "gap" not in r.stdout,
          "C decoder: %d %s %s" % (r.returncode, r.stdout, r.stderr))
    blob = open(out_path, "rb").read()
    o = 0
    worst_p = worst_n = 0.0
    n_frames = 0
    while o < len(blob):
        frame, t, vv = struct.unpack_from("<QdI", blob, o)
        o += 20
        pos = np.frombuffer(blob, "<f4", 3 * vv, o).reshape(vv, 3)
        o += 12 * vv
        nrm = None
        if normals:
            nrm = np.frombuffer(blob, "<f4", 3 * vv, o).reshape(vv, 3)
            o += 12 * vv
        st, _, f32 = get(d, "/v1/skin", mesh=mesh, clip=clip, t=repr(t),
                         wrap="loop", normals="1" if normals else "0",
                         format="bin")
        check(st == 200, "skin %d" % st)
        f = np.frombuffer(f32, "<f4").astype(np.float64)
        p = f[:3 * vv].reshape(vv, 3)
        lo, hi = p.min(0), p.max(0)
        tol = (hi - lo) / 131070 + 4 * EPS32 * np.maximum(abs(lo), abs(hi))
        err = np.abs(pos - p)
        if (err > tol).any():
            fail("C decoder frame %d: position error %s over %s"
                 % (frame, err.max(0), tol))
        worst_p = max(worst_p, float((err / np.maximum(hi - lo, 1e-30)).max()))
        if normals:
            e = f[3 * vv:].reshape(vv, 3)
            cr = np.linalg.norm(np.cross(nrm.astype(np.float64), e), axis=1)
            dt = (nrm.astype(np.float64) * e).sum(1)
            deg = np.degrees(np.arctan2(cr, dt)).max()
            check(deg <= 0.01, "C decoder frame %d: normal %g deg"
                  % (frame, deg))
            worst_n = max(worst_n, float(deg))
        n_frames += 1
    check(n_frames == len(delta_msgs), "C decoded %d of %d" %
          (n_frames, len(delta_msgs)))
    f32_bytes = 12 * v * (2 if normals else 1)
    mean = sum(sizes["key"] + sizes["delta"]) / len(delta_msgs)
    print("%s normals=%s: %d frames (%d key), %d byte-equal to q16; bytes "
          "per frame: float32 %d, q16 %d, delta %.0f (%.1f%%; deltas alone "
          "%.1f%%); C decoder worst position %.3g of the box, normal %.5f deg"
          % (mesh[:12], normals, len(delta_msgs), len(sizes["key"]), same,
             f32_bytes, q16_size(v, normals), mean, 100 * mean / f32_bytes,
             100 * np.mean(sizes["delta"]) / f32_bytes, worst_p, worst_n))


async def shared_checks(d):
    """Several subscribers of the same delta stream (see the top)."""
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    v = 512
    # 32 fps and the 2 s clip: every clip time k/32 is exact, in every
    # subscriber's clock alike.
    base = {"mesh": "body", "clip": "wave", "fps": 32, "format": "bin",
            "normals": True, "wrap": "loop"}
    delta = dict(base, encoding="delta", key_every=8)
    got = {name: [] for name in "ABCD"}  # (t, payload) of the delta stream
    q16 = {}
    lost = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def reader(name, ws, idx):
        while not stop.is_set():
            try:
                m = await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            if isinstance(m, str):
                j = json.loads(m)
                check("error" not in j, "%s: error %r" % (name, j))
                continue
            index, layout, frame, t, vv, payload = parse_ws(m)
            if name == "A" and layout == 5:
                q16[t] = payload
                continue
            check(index == idx[0] and layout == 7 and vv == v,
                  "%s: frame of stream %d layout %d" % (name, index, layout))
            if name == "D" and 15 <= len(got["D"]) + len(lost) < 20:
                lost.append(t)  # lost on purpose
                if len(lost) == 5:
                    await ws.send(json.dumps({"op": "set", "id": "d",
                                              "key": True}))
                continue
            got[name].append((t, payload))

    async def play(ws, msg):
        await ws.send(json.dumps(msg))
        a = await recv_json(ws, lambda j: j.get("op") == "play"
                            and j.get("id") == msg["id"])
        return [a["index"]]

    conns = {}
    tasks = []
    try:
        for name in "ABD":
            conns[name] = await websockets.connect(uri, max_size=None)
        await play(conns["A"], dict(base, op="play", id="q", encoding="q16"))
        for name in "ABD":
            idx = await play(conns[name], dict(delta, op="play", id="d"))
            tasks.append(asyncio.create_task(reader(name, conns[name], idx)))
        deadline = loop.time() + 30
        while len(got["A"]) < 20:
            check(loop.time() < deadline, "A: %d frames" % len(got["A"]))
            await asyncio.sleep(0.05)
        # The late joiner starts 4 frames ahead of A, 3 past the grid.
        g = round(got["A"][-1][0] * 32) + 4
        g += (3 - g) % 8
        conns["C"] = await websockets.connect(uri, max_size=None)
        idx = await play(conns["C"], dict(delta, op="play", id="d",
                                          t0=(g % 64) / 32))
        tasks.append(asyncio.create_task(reader("C", conns["C"], idx)))
        while min(len(x) for x in got.values()) < 70:
            check(loop.time() < deadline, "frames: %r" %
                  {k: len(x) for k, x in got.items()})
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.gather(*tasks)
    finally:
        stop.set()
        for ws in conns.values():
            await ws.close()
    check(len(lost) == 5, "lost %d" % len(lost))
    # A's frames by clip time, seq and flags.
    seen = {}
    for name in "ABCD":
        dec = DeltaDecoder()
        gaps = equal_q16 = 0
        for t, payload in got[name]:
            try:
                out, flags, seq = dec.decode(payload, v)
            except Gap:
                check(name == "D", "%s: gap at %r" % (name, t))
                gaps += 1
                continue
            if t in q16:
                check(out == q16[t], "%s at %r: delta decodes to other "
                      "bytes than q16's" % (name, t))
                equal_q16 += 1
            if name == "A":
                seen[(t, seq, flags)] = payload
        check(equal_q16 >= 30, "%s: %d frames equal to q16's"
              % (name, equal_q16))
        if name == "D":
            # The key frame asked for may come before the next delta.
            check(gaps <= 10, "D: %d gaps after the lost frames" % gaps)
    report = []
    for name in "BCD":
        shared = own = 0
        first_own = None
        for t, payload in got[name]:
            seq, flags = struct.unpack_from("<II", payload)
            a = seen.get((t, seq, flags))
            if a is None:
                own += 1
                if first_own is None:
                    first_own = t
                continue
            check(a == payload, "%s at %r (seq %d): other bytes than A's"
                  % (name, t, seq))
            shared += 1
        report.append("%s %d shared, %d own" % (name, shared, own))
        check(shared >= (40 if name == "B" else 20), report[-1])
        if name == "C":
            check(own >= 1 and first_own == got["C"][0][0],
                  "C: its first frames are its own: %s" % report[-1])
    print("several subscribers: " + "; ".join(report))


async def refusals(d):
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    base = {"mesh": "body", "clip": "wave"}
    cases = [
        (dict(base, op="pose", t=0, format="bin", encoding="delta"),
         "encoding"),
        (dict(base, op="play", id="j", encoding="delta"), "encoding"),
        (dict(op="play", id="m", skeleton="demo-humanoid", mesh_all=True,
              clip="wave", format="bin", encoding="delta"), "encoding"),
        (dict(base, op="play", id="s", space="local"), "space"),
        (dict(base, op="pose", t=0, space="local"), "space"),
        (dict(base, op="pose", t=0, space="skin"), "space"),
        (dict(base, op="play", id="k", format="bin", encoding="delta",
              key_every=0), "key_every"),
        (dict(base, op="play", id="k", format="bin", encoding="delta",
              key_every=2.5), "key_every"),
    ]
    async with websockets.connect(uri, max_size=None) as ws:
        for msg, at in cases:
            await ws.send(json.dumps(msg))
            e = await recv_json(ws, lambda j: "error" in j or "op" in j)
            check("error" in e and e["error"]["code"] == "bad_value" and
                  e["error"]["at"] == at, "%r: %r" % (msg, e))
        await ws.send(json.dumps({"op": "set", "id": "x", "key": False}))
        e = await recv_json(ws, lambda j: "error" in j)
        check(e["error"]["at"] == "key", "key false: %r" % e)
        # A pose of a skeleton still takes its space; a mesh takes model,
        # the space its vertices are in.
        for msg in ({"op": "pose", "skeleton": "demo-humanoid",
                     "clip": "wave", "t": 0, "space": "local"},
                    dict(base, op="pose", t=0, space="model")):
            await ws.send(json.dumps(msg))
            e = await recv_json(ws, lambda j: True)
            check("error" not in e, "%r: %r" % (msg, e))
    st, _, body = get(d, "/v1/skin", mesh="body", clip="wave", t="0",
                      format="bin", encoding="delta")
    check(st == 400 and json.loads(body)["error"]["at"] == "encoding",
          "HTTP delta: %d %s" % (st, body))


def main():
    d = Daemon("--demo")
    tmp = tempfile.mkdtemp(prefix="animd-delta-")
    try:
        exe = build_c_decoder(tmp)
        asyncio.run(refusals(d))
        asyncio.run(stream_checks(d, "body", "wave", 512, True, 40, exe, tmp))
        asyncio.run(stream_checks(d, "body", "wave", 512, False, 25, exe,
                                  tmp))
        path = os.path.join(SHARED, "assets", "gltf/khronos/CesiumMan.glb")
        if os.path.exists(path):
            st, _, body = d.request("POST", "/v1/assets",
                                    open(path, "rb").read(),
                                    {"Content-Type": "model/gltf-binary"})
            check(st in (200, 201), "upload CesiumMan: %d" % st)
            up = json.loads(body)
            m = up["meshes"][0]
            asyncio.run(stream_checks(d, m["id"], up["clips"][0]["id"],
                                      m["vertices"], True, 40, exe, tmp))
        else:
            print("SKIPPED CesiumMan: the shared assets are not there (%s)"
                  % path)
        one = Daemon("--demo", "--stream-threads", "1")
        try:
            asyncio.run(shared_checks(one))
        finally:
            one.stop()
            one.cleanup()
        print("ok")
    finally:
        d.stop()
        d.cleanup()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
