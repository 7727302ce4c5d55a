#!/usr/bin/python3
"""encoding=q16 read by a decoder written here from the README's layout
alone (numpy), against the float32 answers of the same frames.

HTTP: GET /v1/skin single frames (X-Animd-Layout, size, padding) and
ranges (16-byte frame headers whose count is the payload's 32-bit words),
with and without normals. WebSocket: play / pose / set with mesh (32-byte
header, layout 4 or 5, count in words), a change of encoding mid-stream,
and the refusals. Bounds: positions within (max - min) / 131070 per axis
plus float rounding, normals within 0.01 degrees. Meshes: the demo's
`body`, and CesiumMan (normals) and Fox (none) from the shared assets when
they are there (skipped with a message otherwise).
"""
import asyncio
import json
import os
import struct
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, fail  # noqa: E402

import numpy as np  # noqa: E402
import websockets  # noqa: E402

SHARED = os.environ.get("ANIMD_SHARED") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
NORMAL_TOL_DEG = 0.01
EPS32 = np.finfo(np.float32).eps


# ---- the decoder, from the layout ------------------------------------------------

def q16_size(v, normals):
    n = 24 + v * (10 if normals else 6)
    return (n + 3) // 4 * 4


def q16_decode(buf, v, normals):
    """(positions [v,3] float64, normals [v,3] or None, box (lo, hi))."""
    check(len(buf) == q16_size(v, normals),
          "q16 payload of %d bytes for %d vertices" % (len(buf), v))
    box = np.frombuffer(buf, "<f4", 6, 0).astype(np.float64)
    lo, hi = box[:3], box[3:]
    q = np.frombuffer(buf, "<u2", 3 * v, 24).reshape(v, 3).astype(np.float64)
    pos = lo + q / 65535.0 * (hi - lo)
    end = 24 + 6 * v
    nrm = None
    if normals:
        o = np.frombuffer(buf, "<i2", 2 * v, end).reshape(v, 2) / 32767.0
        x, y = o[:, 0].copy(), o[:, 1].copy()
        z = 1 - np.abs(x) - np.abs(y)
        t = np.maximum(-z, 0)
        x -= np.where(x >= 0, t, -t)
        y -= np.where(y >= 0, t, -t)
        nrm = np.stack([x, y, z], 1)
        nrm /= np.linalg.norm(nrm, axis=1)[:, None]
        end += 4 * v
    check(all(b == 0 for b in buf[end:]), "padding is not zero")
    return pos, nrm, (lo, hi)


def compare(what, f32, buf, v, normals):
    """f32: the float32 answer's floats (positions, then normals)."""
    f = np.frombuffer(f32, "<f4").astype(np.float64)
    check(f.size == 3 * v * (2 if normals else 1),
          "%s: %d floats for %d vertices" % (what, f.size, v))
    p = f[:3 * v].reshape(v, 3)
    pos, nrm, (lo, hi) = q16_decode(buf, v, normals)
    check(np.array_equal(lo, p.min(0)) and np.array_equal(hi, p.max(0)),
          "%s: box %s %s, positions span %s %s"
          % (what, lo, hi, p.min(0), p.max(0)))
    tol = (hi - lo) / 131070 + 4 * EPS32 * np.maximum(abs(lo), abs(hi))
    err = np.abs(pos - p)
    bad = err > tol
    if bad.any():
        i = np.argwhere(bad)[0]
        fail("%s: vertex %d axis %d: %r decoded as %r (tol %g)"
             % (what, i[0], i[1], p[i[0], i[1]], pos[i[0], i[1]],
                tol[i[1]]))
    worst = 0.0
    if normals:
        n = f[3 * v:].reshape(v, 3)
        ln = np.linalg.norm(n, axis=1)
        keep = ln > 0
        cross = np.linalg.norm(np.cross(n[keep], nrm[keep]), axis=1)
        dot = np.sum(n[keep] * nrm[keep], axis=1)
        ang = np.degrees(np.arctan2(cross, dot))
        worst = float(ang.max()) if ang.size else 0.0
        check(worst <= NORMAL_TOL_DEG,
              "%s: a normal is off by %.5f degrees" % (what, worst))
    return float((err / np.maximum(hi - lo, 1e-30)).max()), worst


# ---- HTTP --------------------------------------------------------------------------

def get(d, path, **q):
    st, h, body = d.request("GET", path + "?" + urllib.parse.urlencode(q))
    return st, h, body


def split_range(body, words_per_frame):
    """[(frame, count, t, payload bytes)] of a binary range."""
    out, off = [], 0
    while off < len(body):
        frame, count, t = struct.unpack_from("<IId", body, off)
        check(count == words_per_frame,
              "range frame %d counts %d, expected %d"
              % (frame, count, words_per_frame))
        out.append((frame, count, t, body[off + 16:off + 16 + 4 * count]))
        off += 16 + 4 * count
    check(off == len(body), "range body is not whole frames")
    return out


def http_checks(d, mesh, clip, v, normals, times):
    n = "1" if normals else "0"
    layout = "positions+normals/q16" if normals else "positions/q16"
    worst = (0.0, 0.0)
    for t in times:
        base = dict(mesh=mesh, clip=clip, t=repr(t), normals=n, format="bin")
        st, h, f32 = get(d, "/v1/skin", **base)
        check(st == 200, "f32 skin: %d %s" % (st, f32[:200]))
        st, h, q = get(d, "/v1/skin", encoding="q16", **base)
        check(st == 200, "q16 skin: %d %s" % (st, q[:200]))
        check(h.get("x-animd-layout") == layout,
              "X-Animd-Layout %r" % h.get("x-animd-layout"))
        check(h.get("x-animd-vertices") == str(v), "X-Animd-Vertices")
        check(h.get("content-type") == "application/octet-stream", "ctype")
        e = compare("%s t=%g single" % (mesh[:12], t), f32, q, v, normals)
        worst = tuple(map(max, worst, e))
    # A range: the same frames, f32 and q16.
    r = dict(mesh=mesh, clip=clip, normals=n, format="bin", **{
        "from": "0", "to": "0.5", "fps": "10"})
    st, _, f32 = get(d, "/v1/skin", **r)
    check(st == 200, "f32 range: %d" % st)
    st, h, q = get(d, "/v1/skin", encoding="q16", **r)
    check(st == 200, "q16 range: %d %s" % (st, q[:200]))
    check(h.get("x-animd-layout") == layout, "range X-Animd-Layout")
    fa = split_range(f32, 3 * v * (2 if normals else 1))
    qa = split_range(q, q16_size(v, normals) // 4)
    check(len(fa) == len(qa) == 6, "range frames %d %d" % (len(fa), len(qa)))
    for (ff, _, ft, fp), (qf, _, qt, qp) in zip(fa, qa):
        check(ff == qf and ft == qt, "range frame/t differ")
        e = compare("%s range frame %d" % (mesh[:12], qf), fp, qp, v,
                    normals)
        worst = tuple(map(max, worst, e))
    return worst


# ---- WebSocket ------------------------------------------------------------------------

async def recv_json(ws, pred, timeout=10):
    async def loop():
        while True:
            m = await ws.recv()
            if isinstance(m, str):
                j = json.loads(m)
                if pred(j):
                    return j
    return await asyncio.wait_for(loop(), timeout)


async def recv_bin(ws, timeout=10):
    async def loop():
        while True:
            m = await ws.recv()
            if isinstance(m, bytes):
                return m
    return await asyncio.wait_for(loop(), timeout)


def parse_ws(m):
    index, layout, flo, fhi, t, count, v = struct.unpack_from("<IIIIdII", m)
    return index, layout, flo | fhi << 32, t, count, v, m[32:]


def ws_compare(d, mesh, clip, m, normals, encoding):
    index, layout, frame, t, count, v, payload = parse_ws(m)
    st, _, f32 = get(d, "/v1/skin", mesh=mesh, clip=clip, t=repr(t),
                     wrap="loop", normals="1" if normals else "0",
                     format="bin")
    check(st == 200, "skin for ws frame: %d" % st)
    check(len(payload) == 4 * count, "ws frame count %d, %d bytes"
          % (count, len(payload)))
    if encoding == "q16":
        check(layout == (5 if normals else 4), "ws layout %d" % layout)
        check(count == q16_size(v, normals) // 4, "ws q16 count %d" % count)
        return compare("ws %s frame %d" % (mesh[:12], frame), f32, payload,
                       v, normals)
    check(layout == (3 if normals else 2), "ws f32 layout %d" % layout)
    check(payload == f32, "ws f32 frame differs from GET /v1/skin")
    return (0.0, 0.0)


async def ws_checks(d, mesh, clip, normals):
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    layout = "positions+normals/q16" if normals else "positions/q16"
    async with websockets.connect(uri, max_size=None) as ws:
        await ws.send(json.dumps({
            "op": "play", "id": "q", "mesh": mesh, "clip": clip, "fps": 30,
            "format": "bin", "encoding": "q16", "normals": normals}))
        a = await recv_json(ws, lambda j: j.get("op") == "play" or
                            "error" in j)
        check(a.get("layout") == layout, "play answer: %r" % a)
        for _ in range(4):
            ws_compare(d, mesh, clip, await recv_bin(ws), normals, "q16")
        # Back to float32 from the next frame.
        await ws.send(json.dumps({"op": "set", "id": "q",
                                  "encoding": "f32"}))
        a = await recv_json(ws, lambda j: j.get("op") == "set")
        check(a["layout"] == layout.replace("/q16", ""), "set: %r" % a)
        for _ in range(8):
            m = await recv_bin(ws)
            if struct.unpack_from("<I", m, 4)[0] in (2, 3):
                ws_compare(d, mesh, clip, m, normals, "f32")
                break
        else:
            fail("no float32 frame after set encoding f32")
        # format json with q16 is refused; the stream goes on unchanged.
        await ws.send(json.dumps({"op": "set", "id": "q", "format": "json",
                                  "encoding": "q16"}))
        e = await recv_json(ws, lambda j: "error" in j)
        check(e["error"]["code"] == "bad_value" and
              e["error"]["at"] == "encoding", "set json+q16: %r" % e)
        await ws.send(json.dumps({"op": "stop", "id": "q"}))
        await recv_json(ws, lambda j: j.get("op") == "stop")
        # One pose.
        await ws.send(json.dumps({
            "op": "pose", "mesh": mesh, "clip": clip, "t": 0.25,
            "format": "bin", "encoding": "q16", "normals": normals}))
        m = await recv_bin(ws)
        check(struct.unpack_from("<I", m, 0)[0] == 0xffffffff, "pose index")
        ws_compare(d, mesh, clip, m, normals, "q16")
        # Refusals.
        await ws.send(json.dumps({"op": "pose", "mesh": mesh, "clip": clip,
                                  "t": 0, "encoding": "q16"}))
        e = await recv_json(ws, lambda j: "error" in j)
        check(e["error"]["code"] == "bad_value", "q16 json pose: %r" % e)
        await ws.send(json.dumps({"op": "play", "id": "z", "encoding": "q8",
                                  "mesh": mesh, "clip": clip}))
        e = await recv_json(ws, lambda j: "error" in j)
        check(e["error"]["code"] == "bad_value" and
              e["error"]["at"] == "encoding", "q8: %r" % e)


# ---- main ------------------------------------------------------------------------

def upload_glb(d, rel):
    path = os.path.join(SHARED, "assets", rel)
    if not os.path.exists(path):
        print("SKIPPED %s: the shared assets are not there (%s)" % (rel, path))
        return None
    st, _, body = d.request("POST", "/v1/assets", open(path, "rb").read(),
                            {"Content-Type": "model/gltf-binary"})
    check(st in (200, 201), "upload %s: %d %s" % (rel, st, body[:200]))
    return json.loads(body)


def main():
    d = Daemon("--demo")
    try:
        cases = [("body", "wave", 512, True), ("body", "wave", 512, False)]
        up = upload_glb(d, "gltf/khronos/CesiumMan.glb")
        if up:
            m = up["meshes"][0]
            cases += [(m["id"], up["clips"][0]["id"], m["vertices"], True),
                      (m["id"], up["clips"][0]["id"], m["vertices"], False)]
        up = upload_glb(d, "gltf/khronos/Fox.glb")
        if up:
            m = up["meshes"][0]
            cases.append((m["id"], up["clips"][1]["id"], m["vertices"],
                          False))
        for mesh, clip, v, normals in cases:
            w = http_checks(d, mesh, clip, v, normals, [0.0, 0.37, 1.0])
            print("http %s normals=%s: worst position %.3g of the box, "
                  "normal %.5f deg" % (mesh[:12], normals, w[0], w[1]))
            asyncio.run(ws_checks(d, mesh, clip, normals))
            print("ws %s normals=%s: ok" % (mesh[:12], normals))
        st, _, body = get(d, "/v1/skin", mesh="body", clip="wave", t="0",
                          encoding="q16")
        check(st == 400 and json.loads(body)["error"]["at"] == "encoding",
              "q16 without format=bin: %d %s" % (st, body))
        st, _, body = get(d, "/v1/skin", mesh="body", clip="wave", t="0",
                          format="bin", encoding="q8")
        check(st == 400 and json.loads(body)["error"]["at"] == "encoding",
              "encoding=q8: %d %s" % (st, body))
        print("ok")
    finally:
        d.stop()
        d.cleanup()


if __name__ == "__main__":
    main()
