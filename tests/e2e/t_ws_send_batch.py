"""A tick's frames for all clients sent together (stream_io_uring), with
Python's websockets (Debian python3-websockets): 40 clients play binary
streams at 60 fps on one stream loop, one of them also asks for poses and
stops reading for a while; every client gets its frames numbered in order,
each answer after the frames sent before it, and the slow client's
frames back in order once it reads again. Run with io_uring on (the
default) and off: /metrics counts the writes sent in batches, all through
io_uring when on and the kernel allows it, none when off."""
import asyncio
import ctypes
import json
import os
import struct
import sys

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, metric_in  # noqa: E402

CLIENTS = 40
FPS = 60
SECONDS = 1.5


def io_uring_allowed():
    """Whether this kernel lets a process make a ring (io_uring_setup)."""
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 1, params)
    if fd < 0:
        return False
    os.close(fd)
    return True


def frame_number(payload):
    lo, hi = struct.unpack_from("<II", payload, 8)
    return lo | hi << 32


async def play(uri, i, poses):
    async with websockets.connect(uri, max_size=None) as ws:
        await ws.send(json.dumps({"op": "play", "id": "s%d" % i,
                                  "skeleton": "demo-humanoid", "clip": "wave",
                                  "fps": FPS, "format": "bin"}))
        numbers, answers = [], 0
        loop = asyncio.get_running_loop()
        end = loop.time() + SECONDS
        asked = False
        while loop.time() < end:
            try:
                m = await asyncio.wait_for(ws.recv(), end - loop.time())
            except asyncio.TimeoutError:
                break
            if isinstance(m, bytes):
                numbers.append(frame_number(m))
                if poses and len(numbers) == 20 and not asked:
                    # A pose asked mid-stream, then 0.3 s of not reading:
                    # the frames wait in the socket, the answer among them.
                    await ws.send(json.dumps({"op": "pose",
                                              "skeleton": "demo-humanoid",
                                              "clip": "idle", "t": 0.25}))
                    asked = True
                    await asyncio.sleep(0.3)
            else:
                j = json.loads(m)
                check("error" not in j, "error message: %r" % m[:200])
                if j.get("op") != "play":
                    answers += 1
                    check(len(numbers) >= 20, "answer before its frames")
        return numbers, answers


async def run(d, expect_ring):
    uri = "ws://%s:%d/v1/stream" % (d.host, d.port)
    results = await asyncio.gather(*(play(uri, i, i == 0)
                                     for i in range(CLIENTS)))
    low = int(FPS * SECONDS * 0.5)
    for i, (numbers, answers) in enumerate(results):
        check(len(numbers) >= low, "client %d: %d frames in %.1f s"
              % (i, len(numbers), SECONDS))
        check(all(b > a for a, b in zip(numbers, numbers[1:])),
              "client %d: frame numbers out of order" % i)
        if i == 0:
            check(answers == 1, "pose answers: %d" % answers)
    st, _, text = d.request("GET", "/metrics")
    check(st == 200, "metrics: %d" % st)
    sent = metric_in(text, "animd_ws_frames_sent_total")
    batched = metric_in(text, "animd_ws_batched_writes_total")
    ring = metric_in(text, "animd_ws_io_uring_writes_total")
    check(batched is not None and ring is not None, "batch metrics missing")
    # Nearly every frame leaves in a batch (a client with bytes still
    # queued writes behind them instead).
    check(batched >= 0.9 * sent and batched <= sent,
          "batched writes %r of %r frames" % (batched, sent))
    if expect_ring:
        check(ring == batched, "io_uring writes %r of %r" % (ring, batched))
    else:
        check(ring == 0, "io_uring writes %r with io_uring off" % ring)
    return sent, batched, ring


def main():
    allowed = io_uring_allowed()
    for flags, name in ((), "io_uring"), (("--stream-io-uring", "false"),
                                          "one sendmsg per client"):
        d = Daemon("--demo", "--stream-threads", "1", *flags)
        try:
            sent, batched, ring = asyncio.run(asyncio.wait_for(
                run(d, allowed and not flags), 60))
        finally:
            d.cleanup()
        print("ok: %s: %d clients, frames in order, the answer among them; "
              "%d frames sent, %d writes in batches, %d through io_uring"
              % (name, CLIENTS, sent, batched, ring))
    if not allowed:
        print("note: this kernel refuses io_uring, so both runs sent one "
              "sendmsg per client")


main()
