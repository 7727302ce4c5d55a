#!/usr/bin/python3
"""Fleet soak: redis-server, three animd nodes and HAProxy on loopback under
mixed load for a bounded time (make soak-fleet; SOAK_SECONDS=600 by default).

Load, all through HAProxy unless said, all bounded in time:
- several upload clients: small rigs with distinct names, each deleted
  again (cascade) once acknowledged but for one in twenty, at most 100 per
  client, kept for the loss check (so the store stays bounded);
- readers: JSON and binary poses, pose ranges, skins and skin ranges of a
  fixed rig with a 500-vertex mesh, and poses of the uploaded rigs;
- SOAK_FLEET_STREAMS WebSocket streams at 30 fps, reconnected when their node
  goes away.
Faults: every SOAK_SECONDS/5 seconds (two minutes of a ten-minute run) one node
is killed (SIGKILL) and restarted on its port, in turns; once, in the middle,
Redis is killed and restarted (appendonly, fsync always: what it acknowledged
survives).

Checked at the end:
- no acknowledged upload lost: every rig acknowledged (201/200) and not
  deleted answers a pose on every node directly;
- no deleted asset served after its delete was acknowledged, allowing the
  fleet's documented propagation bound (1 s, as t_fleet.py): each delete is
  followed by probes of every node; a node still serving it after the bound is
  a failure; served within the bound is counted and printed;
- each node's RSS at the end of each of its lives within 10% (plus 8 MiB of
  allocator slack) of its level one warm-up (SOAK_SECONDS/10, at most 60 s)
  after that life started, and its own descriptors (open ones less its
  client connections, which move between nodes as nodes are killed) within
  16;
- /healthz p99 under 50 ms on every node, sampled every 100 ms on a new
  connection from a separate thread, outside the kill windows (a node's from
  its kill to 5 s after its restart; every node's from Redis's kill to 5 s
  after its restart).
Prints the figures per node; exits 1 on a failed check, 77 when redis-server,
haproxy or python3-websockets is missing.
"""
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from fleet import Fleet, need, request, stick  # noqa: E402
from stall_probe import mesh_body, status_bytes  # noqa: E402

try:
    import websockets
except ImportError:
    print("skipped: python3-websockets is missing (make deps-test)")
    sys.exit(77)

SECONDS = float(os.environ.get("SOAK_SECONDS", "600"))
STREAMS = int(os.environ.get("SOAK_FLEET_STREAMS", "30"))
UPLOADERS = 3
KEEP_PER_UPLOADER = 100
READERS = 3
KILL_EVERY = SECONDS / 5
WARMUP = min(60.0, SECONDS / 10)
DELETE_BOUND_S = 1.0
RESTART_GRACE = 5.0
RSS_SLACK = 8 << 20

need("redis-server", "haproxy")
lock = threading.Lock()
acked = {}      # skeleton name -> id, acknowledged and not deleted
deleted = []    # (name, id, time the delete was acknowledged)
late = {"within_bound": 0, "after_bound": [], "lost": []}
windows = {}    # node index -> [(start, end)] when it was down or degraded
counts = {"uploads": 0, "upload_refused": 0, "deletes": 0, "reads": 0,
          "read_errors": 0, "frames": 0, "stream_reconnects": 0}


def bump(key, n=1):
    with lock:
        counts[key] += n


def down(i, start, end):
    with lock:
        windows.setdefault(i, []).append((start, end))


def in_window(i, t):
    return any(s <= t <= e for s, e in windows.get(i, []))


def uploader(f, k, stop):
    n = 0
    while time.time() < stop:
        n += 1
        name = "soak-%d-%d" % (k, n)
        status, _, body = f.post(f.front, stick(name))
        bump("uploads")
        if status not in (200, 201):
            bump("upload_refused")
            time.sleep(0.2)
            continue
        sid = body["skeletons"][0]["id"]
        with lock:
            acked[name] = sid
        # Every 20th upload is kept, up to KEEP_PER_UPLOADER of them, for
        # the loss check; the rest are deleted, so the store (and each
        # node's cache, and its RSS) stays bounded over the run.
        if n % 20 != 0 or n // 20 > KEEP_PER_UPLOADER:
            delete_and_probe(f, name, sid, stop)
        time.sleep(0.05)


def delete_and_probe(f, name, sid, stop):
    """Deletes until acknowledged (Redis may be down), then probes every
    node: served past DELETE_BOUND_S is a failure."""
    while time.time() < stop + 30:
        status, _, _ = request(f.front, "DELETE",
                               "/v1/skeletons/%s?cascade=1" % sid)
        if status == 200:
            break
        time.sleep(0.3)
    else:
        return
    acked_at = time.time()
    with lock:
        acked.pop(name, None)
        deleted.append((name, sid, acked_at))
        counts["deletes"] += 1
    path = "/v1/pose?skeleton=%s&clip=bend&t=0.5" % sid
    pending = set(range(len(f.addrs)))
    while pending and time.time() < acked_at + DELETE_BOUND_S:
        for i in list(pending):
            if request(f.addrs[i], "GET", path, timeout=2)[0] != 200:
                pending.discard(i)
        time.sleep(0.05)
    for i in pending:
        status = request(f.addrs[i], "GET", path, timeout=2)[0]
        with lock:
            if status == 200:
                late["after_bound"].append((name, i))
            else:
                late["within_bound"] += 1


def reader(f, stop):
    paths = ["/v1/pose?skeleton=soak-rig&clip=wiggle&t=%.3f",
             "/v1/pose?skeleton=soak-rig&clip=wiggle&t=%.3f&format=bin",
             "/v1/skin?skeleton=soak-rig&mesh=big&clip=wiggle&t=%.3f",
             "/v1/pose?skeleton=soak-rig&clip=wiggle&from=0&to=%.3f&fps=30",
             "/v1/skin?skeleton=soak-rig&mesh=big&clip=wiggle&from=0"
             "&to=%.3f&fps=30&format=bin"]
    while time.time() < stop:
        with lock:
            names = list(acked)
        if names and random.random() < 0.3:
            p = "/v1/pose?skeleton=%s&clip=bend&t=0.25" % random.choice(names)
        else:
            p = random.choice(paths) % (random.random() * 2)
        status = request(f.front, "GET", p)[0]
        bump("reads")
        if status != 200:
            bump("read_errors")


async def one_stream(f, stop):
    while time.time() < stop:
        try:
            async with websockets.connect("ws://%s/v1/stream" % f.front,
                                          open_timeout=5,
                                          max_size=1 << 24) as ws:
                await ws.send(json.dumps({
                    "op": "play", "id": "s", "skeleton": "soak-rig",
                    "clip": "wiggle", "fps": 30, "format": "bin"}))
                while time.time() < stop:
                    msg = await asyncio.wait_for(ws.recv(), 5)
                    if isinstance(msg, bytes):
                        bump("frames")
        except (OSError, asyncio.TimeoutError,
                websockets.exceptions.WebSocketException):
            bump("stream_reconnects")
            await asyncio.sleep(0.5)


def streams(f, stop):
    async def run():
        await asyncio.gather(*(one_stream(f, stop) for _ in range(STREAMS)))
    asyncio.run(run())


def client_connections(f, i):
    """Client connections node i holds now (HTTP and WebSocket alike, from
    its /metrics), or None when it does not answer: the load moves streams
    between nodes as they are killed, so a node's own descriptors are its
    open ones less these."""
    v = f.metric(f.addrs[i], "animd_open_connections")
    return None if v is None else int(v)


class NodeWatch(threading.Thread):
    """Every 100 ms: /healthz latency of each node (new connection), and
    once a second its RSS and descriptors, per life of the node."""

    def __init__(self, f, stop):
        super().__init__(daemon=True)
        self.f, self.stop = f, stop
        self.lat = [[] for _ in f.addrs]     # (t, seconds or None)
        self.lives = [[] for _ in f.addrs]   # per life: [(t, rss, fds)]
        self.pids = [None] * len(f.addrs)

    def run(self):
        last = 0.0
        while time.time() < self.stop:
            now = time.time()
            for i, a in enumerate(self.f.addrs):
                t0 = time.time()
                status = request(a, "GET", "/healthz", timeout=2)[0]
                self.lat[i].append((t0, time.time() - t0 if status else None))
            if now - last >= 1.0:
                last = now
                for i, p in enumerate(self.f.nodes):
                    if p is None or p.poll() is not None:
                        continue
                    if self.pids[i] != p.pid:
                        self.pids[i] = p.pid
                        self.lives[i].append([])
                    clients = client_connections(self.f, i)
                    if clients is None:
                        continue
                    try:
                        self.lives[i][-1].append((
                            now, status_bytes(p.pid, "VmRSS"),
                            len(os.listdir("/proc/%d/fd" % p.pid)) - clients))
                    except OSError:
                        pass
            time.sleep(0.1)


def faults(f, stop, start):
    """Kills and restarts a node every KILL_EVERY seconds, in turns, and
    Redis once in the middle."""
    k = 0
    redis_done = False
    next_kill = start + KILL_EVERY
    while time.time() < stop - 10:
        now = time.time()
        if not redis_done and now >= start + SECONDS / 2 - KILL_EVERY / 2:
            redis_done = True
            t0 = time.time()
            f.kill_redis()
            time.sleep(2)
            f.start_redis()
            for i in range(len(f.addrs)):
                down(i, t0, time.time() + RESTART_GRACE)
            print("soak-fleet: Redis killed and restarted at %.0f s" %
                  (t0 - start), flush=True)
        if now >= next_kill:
            i = k % len(f.addrs)
            k += 1
            t0 = time.time()
            f.kill_node(i)
            time.sleep(1)
            f.start_node(i)
            down(i, t0, time.time() + RESTART_GRACE)
            print("soak-fleet: node %d killed and restarted at %.0f s" %
                  (i, t0 - start), flush=True)
            next_kill += KILL_EVERY
        time.sleep(0.2)


def main():
    f = Fleet()
    failures = []
    try:
        body = json.loads(mesh_body(500))
        body["skeleton"]["name"] = "soak-rig"
        status, _, _ = request(f.front, "POST", "/v1/assets",
                               json.dumps(body).encode())
        assert status == 201, "soak-rig upload: %d" % status
        start = time.time()
        stop = start + SECONDS
        watch = NodeWatch(f, stop)
        threads = [watch]
        threads += [threading.Thread(target=uploader, args=(f, k, stop),
                                     daemon=True) for k in range(UPLOADERS)]
        threads += [threading.Thread(target=reader, args=(f, stop),
                                     daemon=True) for _ in range(READERS)]
        threads.append(threading.Thread(target=streams, args=(f, stop),
                                        daemon=True))
        threads.append(threading.Thread(target=faults,
                                        args=(f, stop, start), daemon=True))
        for t in threads:
            t.start()
        for t in threads:
            t.join(SECONDS + 60)

        # No acknowledged upload lost: every node answers each one.
        with lock:
            kept = dict(acked)
        for name, sid in kept.items():
            for i, a in enumerate(f.addrs):
                if request(a, "GET", "/v1/skeletons/%s" % sid)[0] != 200:
                    late["lost"].append((name, i))
        # Deleted stays deleted everywhere.
        for name, sid, _ in deleted:
            for i, a in enumerate(f.addrs):
                p = "/v1/pose?skeleton=%s&clip=bend&t=0.5" % sid
                if request(a, "GET", p)[0] == 200:
                    late["after_bound"].append((name, i))

        print("soak-fleet: %.0f s, %d uploads (%d refused while Redis or a "
              "node was down), %d deletes, %d reads (%d not 200), %d stream "
              "frames, %d stream reconnects" % (
                  SECONDS, counts["uploads"], counts["upload_refused"],
                  counts["deletes"], counts["reads"], counts["read_errors"],
                  counts["frames"], counts["stream_reconnects"]))
        print("soak-fleet: %d acknowledged uploads kept, %d lost; %d deletes "
              "still served within %.0f s of their acknowledgement, %d after" % (
                  len(kept), len(late["lost"]), late["within_bound"],
                  DELETE_BOUND_S, len(late["after_bound"])))
        if late["lost"]:
            failures.append("lost uploads: %s" % late["lost"][:5])
        if late["after_bound"]:
            failures.append("deleted assets served: %s" %
                            late["after_bound"][:5])
        for i in range(len(f.addrs)):
            lat = [s for t, s in watch.lat[i]
                   if s is not None and not in_window(i, t)]
            lost = sum(1 for t, s in watch.lat[i]
                       if s is None and not in_window(i, t))
            p99 = (statistics.quantiles(lat, n=100)[98] * 1e3
                   if len(lat) >= 100 else float("nan"))
            line = "soak-fleet: node %d /healthz p99 %.1f ms over %d probes " \
                "outside kill windows (%d unanswered)" % (i, p99, len(lat),
                                                          lost)
            if not p99 < 50 or lost:
                failures.append(line)
            for n, life in enumerate(watch.lives[i]):
                base = [s for s in life if s[0] >= life[0][0] + WARMUP]
                if len(base) < 2:
                    continue
                r0, d0 = base[0][1], base[0][2]
                r1, d1 = base[-1][1], base[-1][2]
                line += "; life %d: RSS %.1f -> %.1f MB (%+.1f%%), own fds %d -> %d" % (
                    n, r0 / 1e6, r1 / 1e6, 100.0 * (r1 - r0) / r0, d0, d1)
                if abs(r1 - r0) > 0.10 * r0 + RSS_SLACK or abs(d1 - d0) > 16:
                    failures.append("node %d life %d: RSS %d -> %d, fds %d -> %d"
                                    % (i, n, r0, r1, d0, d1))
            print(line)
    finally:
        f.stop()
    for x in failures:
        print("soak-fleet: FAILED: " + x)
    print("soak-fleet: %s" % ("FAILED" if failures else "passed"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    main()
