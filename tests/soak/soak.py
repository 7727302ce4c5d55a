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
Sampled every second: the daemon's RSS (/proc/PID/status), its open file
descriptors (/proc/PID/fd) and the latency of GET /healthz.

Pass: RSS at the end within 10% (plus 8 MiB of slack for allocator
granularity) of RSS after the warm-up (the first 20% of the run), open
descriptors at the end within 16 of those after the warm-up, and /healthz
p99 under 50 ms over the whole run. Prints the figures and a CSV of the
samples (build/soak.csv) for a plot.
"""
import asyncio
import json
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

SECONDS = float(os.environ.get("SOAK_SECONDS", "600"))
STREAMS = int(os.environ.get("SOAK_STREAMS", "200"))
OUT = os.environ.get("SOAK_CSV", "build/soak.csv")


def rss(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


async def http(port, method, path, body=None, ctype="application/json",
               read=True, timeout=10):
    r, w = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port), timeout)
    try:
        head = "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" % (
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


async def uploads(port, stop):
    n = 0
    while time.time() < stop:
        n += 1
        st = await http(port, "POST", "/v1/assets", rig(n))
        if st in (200, 201):
            await http(port, "DELETE", "/v1/clips/bend?skeleton=soak%d" % n)
            await http(port, "DELETE", "/v1/skeletons/soak%d" % n)
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
            w.write(b"POST /v1/solve HTTP/1.1\r\nHost: x\r\n"
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
    sock.sendall(b"GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
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
            w.write(b"GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket"
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
            w.write(b"GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket"
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
        t0 = time.perf_counter()
        st = await http(d.port, "GET", "/healthz")
        lat = time.perf_counter() - t0
        samples.append((time.time(), rss(d.proc.pid), fds(d.proc.pid), lat,
                        st))
        await asyncio.sleep(max(0.0, 1.0 - lat))


async def run(d):
    stop = time.time() + SECONDS
    samples = []
    tasks = [sampler(d, stop, samples), uploads(d.port, stop),
             reads(d.port, stop), reads(d.port, stop), non_readers(d.port, stop),
             slow_body(d.port, stop), ping_flood(d.port, stop)]
    tasks += [stream(d.port, stop, i) for i in range(STREAMS)]
    await asyncio.gather(*tasks, return_exceptions=True)
    return samples


def main():
    d = Daemon("--demo", "--access-log", "", "--idle-timeout", "3s",
               "--body-timeout", "3s", "--max-connections", "2000")
    try:
        samples = asyncio.run(run(d))
        check(len(samples) > 10, "too few samples")
        warm = samples[int(len(samples) * 0.2)]
        end = samples[-1]
        lats = sorted(s[3] for s in samples)
        p99 = lats[min(len(lats) - 1, int(len(lats) * 0.99))]
        os.makedirs(os.path.dirname(OUT) or ".", exist_ok=True)
        with open(OUT, "w") as f:
            f.write("time_s,rss_bytes,fds,healthz_s,status\n")
            t0 = samples[0][0]
            for s in samples:
                f.write("%.1f,%d,%d,%.6f,%d\n" % (s[0] - t0, s[1], s[2],
                                                   s[3], s[4]))
        print("soak: %.0f s, %d samples; RSS after warm-up %.1f MB, at end "
              "%.1f MB, max %.1f MB; fds %d -> %d; /healthz p50 %.2f ms, "
              "p99 %.2f ms, max %.2f ms; non-200 %d" % (
                  SECONDS, len(samples), warm[1] / 1e6, end[1] / 1e6,
                  max(s[1] for s in samples) / 1e6, warm[2], end[2],
                  statistics.median(lats) * 1e3, p99 * 1e3, lats[-1] * 1e3,
                  sum(1 for s in samples if s[4] != 200)))
        check(end[1] <= warm[1] * 1.10 + (8 << 20), "RSS grew")
        check(end[2] <= warm[2] + 16, "descriptors grew")
        check(p99 < 0.050, "/healthz p99 %.1f ms" % (p99 * 1e3))
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
    print("soak: ok")


if __name__ == "__main__":
    main()
