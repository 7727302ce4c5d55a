#!/usr/bin/python3
"""An answer's bytes are bounded before any work (max_answer_bytes), on the
real daemon, over HTTP and WebSocket alike:

- GET /v1/skin with skeleton=S and one mesh listed many times: a binary
  answer under the limit is answered in full (its length the closed form:
  a 16-byte header and 3 floats of 4 bytes per vertex, per mesh), one over
  it is 413 too_large at "mesh" (JSON too, and a range's frames); the
  audit's request (the mesh listed 1,024 times, JSON) is refused without
  the daemon's memory growing;
- WebSocket pose with "mesh": [the mesh many times]: too_large at "mesh";
- six WebSocket connections that never read, each asking for large mesh
  poses under the limit: the daemon's memory stays bounded (each client's
  unread bytes are bounded, then it is closed).
RSS bounds are checked in the release build only (a sanitizer's allocator
quarantines freed memory); the figures are printed either way.
"""
import base64
import json
import os
import socket
import struct
import time

from animd_e2e import Daemon, check
from stall_probe import (WsClient, mesh_body, peak_rss, reset_peak,
                         status_bytes, upload)

V = 2000                      # Vertices of mesh "big" (no normals).
LIMIT = 2 << 20               # --max-answer-bytes
BLOCK = 16 + 3 * 4 * V        # One mesh's binary block.
MB = 1e6
SANITIZED = any(k in os.environ.get("ANIMD_BIN", "") for k in ("/asan/",
                                                              "/tsan/"))


def skin(d, count, extra=""):
    q = "/v1/skin?skeleton=stall-rig&mesh=%s&clip=wiggle&t=0.5%s" % (
        ",".join(["big"] * count), extra)
    return d.request("GET", q, timeout=60)


def silent_ws(d):
    """A WebSocket whose answers are never read (a small receive buffer)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.connect((d.host, d.port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /v1/stream HTTP/1.1\r\nHost: localhost\r\n"
               "Upgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % key).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        got = s.recv(1)
        check(got != b"", "no upgrade")
        head += got
    check(b" 101 " in head.split(b"\r\n")[0], "upgrade: %r" % head[:40])
    return s


def ws_text(obj):
    data = json.dumps(obj).encode()
    mask = os.urandom(4)
    n = len(data)
    head = (struct.pack("!BB", 0x81, 0x80 | n) if n < 126 else
            struct.pack("!BBH", 0x81, 0x80 | 126, n) if n < 65536 else
            struct.pack("!BBQ", 0x81, 0x80 | 127, n))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def too_large(st, data, what):
    check(st == 413, "%s: %d %s" % (what, st, data[:200]))
    e = json.loads(data)["error"]
    check(e["code"] == "too_large" and e["at"] == "mesh" and
          "max_answer_bytes (%d)" % LIMIT in e["message"],
          "%s: error %r" % (what, e))


def main():
    d = Daemon("--demo", "--access-log", "", "--data-dir", "",
               "--max-answer-bytes", str(LIMIT), "--stream-threads", "1")
    try:
        upload(d, mesh_body(V))
        fits = LIMIT // BLOCK
        check(fits == 87, "fits %d" % fits)

        # ---- HTTP, binary: exact sizes on both sides of the limit ----------
        st, h, data = skin(d, fits, "&format=bin")
        check(st == 200 and len(data) == fits * BLOCK,
              "%d meshes: %d, %d bytes" % (fits, st, len(data)))
        check(h.get("x-animd-meshes") == str(fits), "X-Animd-Meshes")
        st, _, data = skin(d, fits + 1, "&format=bin")
        too_large(st, data, "%d meshes, binary" % (fits + 1))
        st, _, data = skin(d, fits + 1, "&format=bin&from=0&to=1&fps=4")
        too_large(st, data, "a range of %d meshes" % (fits + 1))

        # ---- HTTP, JSON: an upper bound, 16 bytes a float at most ----------
        st, _, data = skin(d, 10)
        check(st == 200 and len(json.loads(data)["meshes"]) == 10,
              "10 meshes, JSON: %d" % st)
        check(len(data) <= 10 * (4096 + 16 * 3 * V + 6 * 80),
              "JSON answer %d bytes above its bound" % len(data))
        st, _, data = skin(d, 30)
        too_large(st, data, "30 meshes, JSON")

        # ---- the audit's request: refused before any work ------------------
        base = status_bytes(d.proc.pid, "VmRSS")
        reset_peak(d.proc.pid)
        for _ in range(3):
            st, _, data = skin(d, 1024)
            too_large(st, data, "1,024 meshes")
        grew = (peak_rss(d.proc.pid) - base) / MB
        print("1,024 meshes x3: peak RSS %.1f MB above the start" % grew)
        check(SANITIZED or grew < 32,
              "peak RSS grew %.0f MB for refused answers" % grew)

        # ---- WebSocket pose --------------------------------------------------
        c = WsClient(d.host, d.port)
        try:
            c.send({"op": "pose", "id": 1, "skeleton": "stall-rig",
                    "mesh": ["big"] * 30, "clip": "wiggle", "t": 0.5})
            c.send({"op": "pose", "id": 2, "skeleton": "stall-rig",
                    "mesh": ["big"] * 2, "clip": "wiggle", "t": 0.5})
            got = c.wait(2, 30)
        finally:
            c.close()
        check(len(got) == 2, "ws answers: %d" % len(got))
        e = got[0].get("error", {})
        check(got[0].get("id") == 1 and e.get("code") == "too_large" and
              e.get("at") == "mesh", "ws pose of 30 meshes: %r" % got[0])
        check(got[1].get("id") == 2 and "error" not in got[1],
              "ws pose of 2 meshes: %r" % str(got[1])[:200])

        # ---- six connections that never read ---------------------------------
        base = status_bytes(d.proc.pid, "VmRSS")
        reset_peak(d.proc.pid)
        socks = [silent_ws(d) for _ in range(6)]
        msg = {"op": "pose", "skeleton": "stall-rig", "mesh": ["big"] * fits,
               "clip": "wiggle", "t": 0.5, "format": "bin"}
        for i in range(20):
            for s in socks:
                msg["id"] = i + 1
                try:
                    s.sendall(ws_text(msg))
                except OSError:
                    pass
        time.sleep(3)
        grew = (peak_rss(d.proc.pid) - base) / MB
        print("6 non-reading clients x 20 poses of %.1f MB: peak RSS %.1f MB "
              "above the start" % (fits * BLOCK / MB, grew))
        for s in socks:
            s.close()
        # 20 answers each would be 6 x 20 x 2 MB = 240 MB.
        check(SANITIZED or grew < 120, "peak RSS grew %.0f MB" % grew)
        check(d.request("GET", "/healthz")[0] == 200, "healthz after")
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()


if __name__ == "__main__":
    main()
