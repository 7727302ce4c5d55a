"""WebSocket play and pose of assets a node has not cached, with a shared
store (tests/e2e/fleet.py): a stream loop fetches them from Redis (on the
worker pool) and answers once they are loaded; an unknown clip is still
not_found, a blend space's uncached clips are each fetched, and with
Redis stopped (kill -STOP) an uncached one answers
store_unavailable within the timeout."""
import asyncio
import json
import signal
import time

from animd_e2e import check
from fleet import Fleet, clip_for, stick

try:
    import websockets
except ImportError:
    print("skipped: python3-websockets is missing")
    raise SystemExit(77)


async def exchange(addr, commands):
    """Sends each command, returns the answer to each (JSON; for a play,
    its acknowledgement or error, not its frames)."""
    answers = []
    async with websockets.connect("ws://%s/v1/stream" % addr,
                                  open_timeout=10) as ws:
        for cmd in commands:
            await ws.send(json.dumps(cmd))
            for _ in range(1000):
                msg = await asyncio.wait_for(ws.recv(), 10)
                if isinstance(msg, bytes):
                    continue
                m = json.loads(msg)
                if m.get("id") == cmd["id"] and "frame" not in m:
                    answers.append(m)
                    break
            if cmd["op"] == "play":
                await ws.send(json.dumps({"op": "stop", "id": cmd["id"]}))
    return answers


f = Fleet(nodes=2, balancer=False, node_args=["--redis-timeout", "500ms"])
try:
    up_node, fresh = f.addrs
    s, _, up = f.post(up_node, stick("ws-rig"))
    check(s == 201, "upload: %d" % s)
    sk = up["skeletons"][0]["id"]
    s, _, more = f.post(up_node, clip_for(sk, "other", 0.3))
    check(s == 201, "second clip: %d" % s)
    check(f.metric(fresh, "animd_store_bytes") == 0, "fresh node caches none")
    a = asyncio.run(exchange(fresh, [
        {"op": "pose", "id": "p1", "skeleton": "ws-rig", "clip": "bend",
         "t": 0.5},
        {"op": "play", "id": "s1", "skeleton": sk, "clip": "other"},
        {"op": "pose", "id": "p2", "skeleton": "ws-rig", "clip": "nope",
         "t": 0.5}]))
    check("error" not in a[0] and a[0].get("clip_id") == up["clips"][0]["id"]
          and a[0]["joints"] == 2 and len(a[0]["matrices"]) == 32,
          "pose of an uncached clip: %s" % a[0])
    check("error" not in a[1] and a[1].get("op") == "play",
          "play of an uncached clip: %s" % a[1])
    check(a[2].get("error", {}).get("code") == "not_found",
          "unknown clip: %s" % a[2])
    # The same pose over HTTP from the node that uploaded it.
    s, http_pose = f.get(up_node, "/v1/pose?skeleton=ws-rig&clip=bend&t=0.5")
    check(s == 200 and http_pose["matrices"] == a[0]["matrices"],
          "the fetched pose equals the uploading node's")
    print("ok: WebSocket pose and play of uncached assets fetched from Redis")

    # A blend space of two clips the fresh node lacks: each fetched in
    # turn before the play and the pose are answered.
    for name, turn in (("blend-a", 0.2), ("blend-b", 0.4)):
        s, _, _ = f.post(up_node, clip_for(sk, name, turn))
        check(s == 201, "%s: %d" % (name, s))
    space = {"param": [0.25], "clips": [{"clip": "blend-a", "at": [0]},
                                        {"clip": "blend-b", "at": [1]}]}
    a = asyncio.run(exchange(fresh, [
        {"op": "play", "id": "s2", "skeleton": sk, "blend_space": space},
        {"op": "pose", "id": "p4", "skeleton": sk, "t": 0.5,
         "blend_space": space}]))
    check("error" not in a[0] and a[0].get("op") == "play",
          "play of an uncached blend space: %s" % a[0])
    check("error" not in a[1] and a[1].get("weights") == [
        {"clip": "blend-a", "weight": 0.75},
        {"clip": "blend-b", "weight": 0.25}],
          "pose of an uncached blend space: %s" % a[1])
    print("ok: a blend space's uncached clips fetched from Redis")

    s, _, third = f.post(up_node, clip_for(sk, "third", 0.5))
    check(s == 201, "third clip: %d" % s)
    f.signal_redis(signal.SIGSTOP)
    t0 = time.time()
    a = asyncio.run(exchange(fresh, [
        {"op": "pose", "id": "p3", "skeleton": sk, "clip": "third",
         "t": 0.5}]))
    took = time.time() - t0
    f.signal_redis(signal.SIGCONT)
    check(a[0].get("error", {}).get("code") == "store_unavailable",
          "uncached pose with Redis stopped: %s" % a[0])
    check(took < 3.0, "answered after %.2f s" % took)
    print("ok: Redis stopped: store_unavailable in %.2f s" % took)
finally:
    f.stop()
