#!/usr/bin/python3
"""Soak: the real daemon under mixed load for a bounded time, sampled every
second (make soak; SOAK_SECONDS=600 by default, SOAK_STREAMS=200).

Load, all on 127.0.0.1 and all bounded in time:
- uploads of small rigs (distinct, so they are stored) and their deletes;
- GET poses (JSON and binary), pose ranges, skins and skin ranges;
- SOAK_STREAMS WebSocket streams at 30 fps, reconnected in turns;
- clients that ask for a large range and never read (closed by the daemon
  when their answer makes no progress), re-opened in turns;
- ping floods from a WebSocket client that never reads;
- slow bodies (one byte a second).
Sampled every second: the daemon's RSS (/proc/PID/status) and its open
file descriptors (/proc/PID/fd). Every loop's latency is probed from a
separate process (the load generator's own event loop, busy with hundreds
of streams, must not count as the daemon's latency), every 100 ms: the
HTTP loop with GET /healthz on a new connection, each stream loop
(SOAK_STREAM_LOOPS of them, opened first so each lands on its own loop)
with a WebSocket "stats" round trip.

Pass: RSS at the end within 10% (plus 8 MiB of slack for allocator
granularity) of RSS after the warm-up (the first 20% of the run), open
descriptors at the end within 16 of those after the warm-up, and every
loop's p99 under 50 ms over the whole run. Prints the figures and a CSV of
the samples (build/soak.csv) for a plot.
"""
import asyncio
import json
import multiprocessing
import os
import random
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from animd_e2e import Daemon, check  # noqa: E402
from stall_probe import WsClient, status_bytes  # noqa: E402

SECONDS = float(os.environ.get("SOAK_SECONDS", "600"))
STREAMS = int(os.environ.get("SOAK_STREAMS", "200"))
STREAM_LOOPS = int(os.environ.get("SOAK_STREAM_LOOPS", "2"))
PROBE_PERIOD = 0.1
OUT = os.environ.get("SOAK_CSV", "build/soak.csv")


def rss(pid):
    return status_bytes(pid, "VmRSS")


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


async def http(port, method, path, body=None, ctype="application/json",
               read=True, timeout=10):
    r, w = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port), timeout)
    try:
        head = "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" % (
            method, path)
        if body is not None:
            head += "Content-Type: %s\r\nContent-Length: %d\r\n" % (
                ctype, len(body))
        w.write(head.encode() + b"\r\n" + (body or b""))
        await w.drain()
        if not read:
            return None
        data = await asyncio.wait_for(r.read(), timeout)
        return int(data.split(b" ", 2)[1]) if data else 0
    finally:
        w.close()


def rig(n):
    return json.dumps({
        "skeleton": {"name": "soak%d" % n, "joints": [
            {"name": "root", "parent": -1, "translation": [0, n % 7, 0]},
            {"name": "tip", "parent": 0, "translation": [0, 1, 0]}]},
        "clips": [{"name": "bend", "tracks": [
            {"joint": "tip", "path": "rotation", "interpolation": "LINEAR",
             "times": [0, 1],
             "values": [0, 0, 0, 1, 0, 0, 0.7071068, 0.7071068]}]}]}).encode()


# Uploads stored and deleted: every stored rig must be deleted again, or
# the store (rightly) grows and RSS with it.
UPLOADS = {"stored": 0, "deleted": 0}


async def uploads(port, stop):
    n = 0
    while time.time() < stop:
        n += 1
        st = await http(port, "POST", "/v1/assets", rig(n))
        if st in (200, 201):
            UPLOADS["stored"] += 1
            st = await http(port, "DELETE",
                            "/v1/skeletons/soak%d?cascade=1" % n)
            if st == 200:
                UPLOADS["deleted"] += 1
        await asyncio.sleep(0.05)


async def reads(port, stop):
    paths = ["/v1/pose?clip=wave&t=%.3f", "/v1/pose?clip=wave&t=%.3f&format=bin",
             "/v1/skin?mesh=body&clip=wave&t=%.3f&normals=1",
             "/v1/pose?clip=idle&from=0&to=%.3f&fps=30",
             "/v1/skin?mesh=body&clip=wave&from=0&to=%.3f&fps=30&format=bin"]
    while time.time() < stop:
        p = random.choice(paths) % (random.random() * 2)
        await http(port, "GET", p)


async def non_readers(port, stop):
    while time.time() < stop:
        try:
            await http(port, "GET",
                       "/v1/skin?mesh=body&clip=wave&from=0&to=10&fps=60",
                       read=False)
        except OSError:
            pass
        await asyncio.sleep(0.5)


async def slow_body(port, stop):
    while time.time() < stop:
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\n"
                    b"Content-Length: 50\r\n\r\n{")
            for _ in range(5):
                if time.time() > stop:
                    break
                await asyncio.sleep(1)
                w.write(b" ")
            w.close()
        except OSError:
            await asyncio.sleep(1)


def ws_handshake(sock):
    sock.sendall(b"GET /v1/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 b"Sec-WebSocket-Version: 13\r\n\r\n")


def ws_frame(opcode, payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + \
        struct.pack(">H", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def stream(port, stop, i):
    play = json.dumps({"op": "play", "id": "s", "skeleton": "demo-humanoid",
                       "clip": "wave", "fps": 30, "format": "bin"}).encode()
    while time.time() < stop:
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"GET /v1/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket"
                    b"\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                    b"dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13"
                    b"\r\n\r\n" + ws_frame(1, play))
            end = min(stop, time.time() + 20 + i % 20)
            while time.time() < end:
                data = await asyncio.wait_for(r.read(65536), 5)
                if not data:
                    break
            w.write(ws_frame(8, struct.pack(">H", 1000)))
            w.close()
        except (OSError, asyncio.TimeoutError):
            await asyncio.sleep(0.5)


async def ping_flood(port, stop):
    while time.time() < stop:
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"GET /v1/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket"
                    b"\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                    b"dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13"
                    b"\r\n\r\n")
            ping = ws_frame(9, b"x" * 100)
            end = min(stop, time.time() + 10)
            while time.time() < end:
                w.write(ping * 64)
                await asyncio.wait_for(w.drain(), 2)
                await asyncio.sleep(0.01)
            w.close()
        except (OSError, asyncio.TimeoutError):
            await asyncio.sleep(0.5)


async def sampler(d, stop, samples):
    while time.time() < stop:
        samples.append((time.time(), rss(d.proc.pid), fds(d.proc.pid)))
        await asyncio.sleep(1.0)


def healthz_once(port):
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), 10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n"
                  b"Connection: close\r\n\r\n")
        data = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            data += d
    return time.perf_counter() - t0, int(data.split(b" ", 2)[1])


def probe_loops(host, port, stop, loops, ready, out):
    """A separate process: opens one connection per stream loop (before any
    other client: each goes to the loop with the fewest clients), sets
    ready, then every PROBE_PERIOD asks /healthz (the HTTP loop) and makes
    a stats round trip on each stream loop's connection. Sends back
    {loop name: [(time, latency, ok)]}."""
    conns = [WsClient(host, port) for _ in range(loops)]
    ready.set()
    res = {"http": []}
    for k in range(len(conns)):
        res["stream%d" % k] = []
    n = 0
    while time.time() < stop:
        t = time.time()
        try:
            lat, st = healthz_once(port)
            res["http"].append((t, lat, st == 200))
        except OSError:
            res["http"].append((t, 10.0, False))
        n += 1
        for k, c in enumerate(conns):
            t0 = time.perf_counter()
            c.send({"op": "stats", "id": n})
            got = c.wait_count(n, 10)
            res["stream%d" % k].append((t, time.perf_counter() - t0,
                                        got >= n))
        time.sleep(max(0.0, PROBE_PERIOD - (time.time() - t)))
    for c in conns:
        c.close()
    out.send(res)


async def run(d, stop):
    samples = []
    tasks = [sampler(d, stop, samples), uploads(d.port, stop),
             reads(d.port, stop), reads(d.port, stop), non_readers(d.port, stop),
             slow_body(d.port, stop), ping_flood(d.port, stop)]
    tasks += [stream(d.port, stop, i) for i in range(STREAMS)]
    await asyncio.gather(*tasks, return_exceptions=True)
    return samples


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))]


def main():
    d = Daemon("--demo", "--access-log", "", "--idle-timeout", "3s",
               "--body-timeout", "3s", "--max-connections", "2000",
               "--stream-threads", str(STREAM_LOOPS))
    try:
        stop = time.time() + SECONDS
        recv, send = multiprocessing.Pipe(False)
        ready = multiprocessing.Event()
        prober = multiprocessing.Process(target=probe_loops, args=(
            d.host, d.port, stop, STREAM_LOOPS, ready, send))
        prober.start()
        check(ready.wait(30), "the probes did not connect")
        samples = asyncio.run(run(d, stop))
        probes = recv.recv() if recv.poll(30) else {}
        prober.join(10)
        if prober.is_alive():
            prober.kill()
        check(len(samples) > 10 and probes, "too few samples")
        warm = samples[int(len(samples) * 0.2)]
        end = samples[-1]
        os.makedirs(os.path.dirname(OUT) or ".", exist_ok=True)
        with open(OUT, "w") as f:
            f.write("time_s,rss_bytes,fds\n")
            t0 = samples[0][0]
            for s in samples:
                f.write("%.1f,%d,%d\n" % (s[0] - t0, s[1], s[2]))
        with open(OUT.replace(".csv", "_loops.csv"), "w") as f:
            f.write("loop,time_s,latency_s,ok\n")
            for name, ps in sorted(probes.items()):
                for t, lat, ok in ps:
                    f.write("%s,%.2f,%.6f,%d\n" % (name, t - t0, lat, ok))
        print("soak: %.0f s, %d samples; RSS after warm-up %.1f MB, at end "
              "%.1f MB, max %.1f MB; fds after warm-up %d, at end %d (start "
              "%d)" % (SECONDS, len(samples), warm[1] / 1e6, end[1] / 1e6,
                       max(s[1] for s in samples) / 1e6, warm[2], end[2],
                       samples[0][2]))
        worst = 0.0
        for name, ps in sorted(probes.items()):
            lats = [lat for _, lat, _ in ps]
            p99 = percentile(lats, 0.99)
            worst = max(worst, p99)
            print("soak: %-8s %5d probes, p50 %.2f ms, p99 %.2f ms, max %.2f "
                  "ms, failed %d" % (name, len(ps),
                                     statistics.median(lats) * 1e3,
                                     p99 * 1e3, max(lats) * 1e3,
                                     sum(1 for p in ps if not p[2])))
        print("soak: %d rigs stored, %d deleted" % (UPLOADS["stored"],
                                                    UPLOADS["deleted"]))
        check(UPLOADS["stored"] > 0 and
              UPLOADS["deleted"] == UPLOADS["stored"], "deletes failed")
        check(end[1] <= warm[1] * 1.10 + (8 << 20), "RSS grew")
        check(end[2] <= warm[2] + 16, "descriptors grew")
        check(worst < 0.050, "a loop's p99 is %.1f ms" % (worst * 1e3))
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
    print("soak: ok")


if __name__ == "__main__":
    main()
