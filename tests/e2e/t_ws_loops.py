"""WebSocket connections on the stream loops, with Python's websockets
(Debian python3-websockets) and a raw socket: a client frame sent in the
same write as the upgrade request is answered after the 101, also when
the upgrade is pipelined behind a large HTTP answer still being written
(that connection stays on the HTTP loop); streaming connections count
toward max_connections and in /metrics; streams spread over the loops all
keep their pace; SIGTERM closes every stream with 1001 and the daemon
exits 0."""
import asyncio
import base64
import json
import os
import signal
import struct
import sys
import time

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, metric_in  # noqa: E402

MAX_CONNECTIONS = 3


def metric(text, name):
    v = metric_in(text, name)
    check(v is not None, "no metric " + name)
    return v


def masked_text(payload):
    data = payload.encode()
    mask = b"\x01\x02\x03\x04"
    assert len(data) < 126
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    return bytes([0x81, 0x80 | len(data)]) + mask + body


def read_frame(sock, buf):
    """One unmasked server frame from sock (buf holds bytes read ahead):
    (opcode, payload, rest)."""
    while True:
        if len(buf) >= 2:
            n, hdr = buf[1] & 0x7F, 2
            if n == 126 and len(buf) >= 4:
                n, hdr = struct.unpack(">H", buf[2:4])[0], 4
            if n != 126 and len(buf) >= hdr + n:
                return buf[0] & 0x0F, buf[hdr:hdr + n], buf[hdr + n:]
        chunk = sock.recv(65536)
        check(chunk, "connection ended before a whole frame")
        buf += chunk


UPGRADE = ("GET /v1/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
           "Sec-WebSocket-Version: 13\r\n\r\n")
POSE = masked_text(json.dumps({"op": "pose", "skeleton": "demo-humanoid",
                               "clip": "idle", "t": 0.25}))


def upgrade_and_pose(d, before=b"", before_len=0):
    """Sends before (pipelined HTTP requests), the upgrade request and a
    pose message in one write; skips before_len bytes of answers at least,
    then expects the 101 and the pose answer. Returns the socket."""
    key = base64.b64encode(os.urandom(16)).decode()
    s = d.connect(timeout=10)
    s.sendall(before + (UPGRADE % key).encode() + POSE)
    buf = b""
    while True:
        at = buf.find(b"HTTP/1.1 101", before_len)
        if at >= 0 and buf.find(b"\r\n\r\n", at) >= 0:
            break
        chunk = s.recv(1 << 20)
        check(chunk, "no handshake answer after %d bytes" % len(buf))
        buf += chunk
    head, buf = buf[at:].split(b"\r\n\r\n", 1)
    op, payload, buf = read_frame(s, buf)
    check(op == 1, "pose answer opcode %d" % op)
    ans = json.loads(payload)
    check("error" not in ans, "pose answer: %r" % payload[:200])
    check(abs(ans["t"] - 0.25) < 1e-6, "pose answer t %r" % ans.get("t"))
    return s


def pipelined_upgrade(d):
    """A 5 MB range answer still queued when the upgrade request behind it
    is read: the connection stays on the HTTP loop and streams there."""
    rng = (b"GET /v1/pose?skeleton=demo-humanoid&clip=idle&from=0&to=100"
           b"&fps=50&format=bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
    s = upgrade_and_pose(d, rng, 5001 * 17 * 64)
    s.close()
    print("ok: an upgrade pipelined behind a large answer streams too")


async def count_frames(ws, seconds):
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            m = await asyncio.wait_for(ws.recv(), end - time.monotonic())
        except asyncio.TimeoutError:
            break
        if isinstance(m, bytes):
            n += 1
    return n


async def run(d):
    pipelined_upgrade(d)
    raw = upgrade_and_pose(d)
    print("ok: a frame sent with the upgrade request was answered")
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    a = await websockets.connect(uri, max_size=None)
    b = await websockets.connect(uri, max_size=None)
    for ws in (a, b):
        await ws.send(json.dumps({"op": "play", "id": "p",
                                  "skeleton": "demo-humanoid", "clip": "wave",
                                  "fps": 50, "format": "bin"}))
    # Three streaming connections are open: one more of any kind is over
    # max_connections.
    st, _, body = d.request("GET", "/healthz")
    check(st == 503 and b"too_many_connections" in body,
          "fourth connection: %d %r" % (st, body[:200]))
    print("ok: streaming connections count toward max_connections")

    counts = await asyncio.gather(count_frames(a, 1.0), count_frames(b, 1.0))
    for n in counts:
        check(40 <= n <= 60, "frames in 1 s at 50 fps: %r" % (counts,))
    print("ok: both streams kept their pace: %r frames in 1 s" % (counts,))

    raw.close()
    text = None
    end = time.monotonic() + 5
    while time.monotonic() < end:
        st, _, text = d.request("GET", "/metrics")
        if st == 200 and metric(text, "animd_ws_connections") == 2:
            break
        await asyncio.sleep(0.05)
    check(st == 200, "metrics after a streaming connection left: %d" % st)
    check(metric(text, "animd_ws_connections") == 2,
          "animd_ws_connections %r" % metric(text, "animd_ws_connections"))
    check(metric(text, "animd_ws_streams") == 2, "animd_ws_streams")
    # Two streaming connections and this request's.
    check(metric(text, "animd_open_connections") == 3,
          "animd_open_connections %r"
          % metric(text, "animd_open_connections"))
    check(metric(text, "animd_ws_frames_sent_total") >= 80,
          "frames sent %r" % metric(text, "animd_ws_frames_sent_total"))
    check(metric(text, "animd_ws_frame_lateness_seconds_count") >=
          metric(text, "animd_ws_frames_sent_total") - 2,
          "every paced frame is in the lateness histogram")
    print("ok: /metrics counts the stream loops' connections and frames")

    d.proc.send_signal(signal.SIGTERM)
    for ws in (a, b):
        try:
            await asyncio.wait_for(count_frames(ws, 5), 6)
        except websockets.ConnectionClosed:
            pass
        await asyncio.wait_for(ws.wait_closed(), 5)
        check(ws.close_code == 1001, "close code on SIGTERM: %r"
              % ws.close_code)
    rc = d.proc.wait(timeout=15)
    d.proc = None
    check(rc == 0, "animd exit status %d after SIGTERM" % rc)
    print("ok: SIGTERM closed both streams with 1001; animd exited 0")


def main():
    d = Daemon("--demo", "--stream-threads", "2",
               "--max-connections", str(MAX_CONNECTIONS))
    try:
        asyncio.run(asyncio.wait_for(run(d), 60))
    finally:
        d.cleanup()


main()
