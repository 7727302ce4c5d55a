"""Misses with a shared store (tests/e2e/fleet.py): the loads of WebSocket
misses share a bounded pool of Redis connections (redis_pool), and a miss
is remembered for miss_ttl over HTTP and WebSocket alike, forgotten as soon
as something is uploaded (through this node, or another: the "add" event).
Counted in Redis itself: INFO's total_connections_received and the EVAL
calls of INFO commandstats."""
import asyncio
import json

from animd_e2e import check
from fleet import Fleet, clip_for, request, stick, wait_until

try:
    import websockets
except ImportError:
    print("skipped: python3-websockets is missing")
    raise SystemExit(77)

CLIENTS = 4
PER_CLIENT = 100
POOL = 2


async def misses(addr, skeleton, clip):
    """CLIENTS WebSocket clients, each asking PER_CLIENT poses of clip;
    every answer's error code (None for a pose)."""
    async def one(k):
        codes = []
        async with websockets.connect("ws://%s/v1/stream" % addr,
                                      open_timeout=10) as ws:
            for i in range(PER_CLIENT):
                cid = "m%d-%d" % (k, i)
                await ws.send(json.dumps({"op": "pose", "id": cid,
                                          "skeleton": skeleton, "clip": clip,
                                          "t": 0.5}))
                for _ in range(100):
                    m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if m.get("id") == cid:
                        codes.append(m.get("error", {}).get("code"))
                        break
        return codes

    out = await asyncio.gather(*(one(k) for k in range(CLIENTS)))
    return [c for codes in out for c in codes]


def connections(f):
    """Connections Redis has accepted, this query's own included."""
    for line in f.redis_cmd("INFO stats").decode().split("\r\n"):
        if line.startswith("total_connections_received:"):
            return int(line.split(":")[1])
    return 0


f = Fleet(nodes=2, balancer=False,
          node_args=["--miss-ttl", "60s", "--redis-pool", str(POOL)])
try:
    a, b = f.addrs
    # A third node that remembers no miss: every miss asks Redis, through
    # the pool.
    f.nodes.append(None)
    f.addrs.append(None)
    f.node_args = ["--miss-ttl", "0", "--redis-pool", str(POOL)]
    f.start_node(2)
    c = f.addrs[2]
    s, _, up = f.post(a, stick("miss-rig"))
    check(s == 201, "upload: %d" % s)
    sk = up["skeletons"][0]["id"]
    n = CLIENTS * PER_CLIENT

    evals = f.redis_evals()
    before = connections(f)
    codes = asyncio.run(misses(c, sk, "nope"))
    opened = connections(f) - before - 1  # Less the query's own.
    asked = f.redis_evals() - evals
    check(codes == ["not_found"] * n, "misses on C: %s" % set(codes))
    check(asked >= n, "C asked Redis %d times for %d misses" % (asked, n))
    check(opened <= POOL, "C opened %d Redis connections for %d WebSocket "
          "misses (pool %d)" % (opened, n, POOL))
    print("ok: %d WebSocket misses, each asked of Redis, opened %d "
          "connections (pool of %d)" % (n, opened, POOL))

    evals = f.redis_evals()
    before = connections(f)
    codes = asyncio.run(misses(b, sk, "nope"))
    http = [f.get(b, "/v1/pose?skeleton=%s&clip=nope&t=0.5" % sk)[0]
            for _ in range(100)]
    opened = connections(f) - before - 1  # Less the query's own.
    asked = f.redis_evals() - evals
    check(codes == ["not_found"] * n and http == [404] * 100,
          "misses on B: %s %s" % (set(codes), set(http)))
    # The clients' first misses may all ask at once; then none asks. The
    # upload's "add" event may reach B after those first misses and clear
    # what B remembered, once: at most twice the clients, and the HTTP
    # client, against the 500 misses asked.
    check(asked <= 2 * (CLIENTS + 1),
          "B asked Redis %d times for %d misses" % (asked, n + 100))
    check(opened <= POOL, "B opened %d connections" % opened)
    print("ok: %d WebSocket and 100 HTTP misses of one clip asked Redis %d "
          "times and opened %d connections (remembered)" % (n, asked, opened))

    # Forgotten when something is uploaded: through another node (the
    # "add" event; miss_ttl is 60 s) and through this one (at once).
    pose = "/v1/pose?skeleton=%s&clip=%s&t=0.5"
    check(f.get(b, pose % (sk, "late"))[0] == 404, "B misses late")
    s, _, _ = f.post(a, clip_for(sk, "late", 0.4))
    check(s == 201, "late through A: %d" % s)
    wait_until("B finds the clip uploaded through A",
               lambda: f.get(b, pose % (sk, "late"))[0] == 200)
    codes = asyncio.run(misses(b, sk, "later"))
    check(set(codes) == {"not_found"}, "B misses later over WebSocket")
    s, _, _ = f.post(b, clip_for(sk, "later", 0.6))
    check(s == 201, "later through B: %d" % s)
    s = f.get(b, pose % (sk, "later"))[0]
    check(s == 200, "B finds what it just uploaded: %d" % s)
    print("ok: a remembered miss is forgotten by an upload through another "
          "node and at once by one through this node")
finally:
    f.stop()
