"""Names in a fleet (tests/e2e/fleet.py) answer as on one node: two
skeletons with a clip named "walk" make GET /v1/pose?clip=walk answer
409 ambiguous listing both clip ids, on the node that uploaded them and
on a node with a cold cache alike (the shared store's lookup used to
answer "not found": 404); each clip still answers by its id. A name
longer than 256 bytes is refused at upload (400 bad_value at its field),
so every name fits the fleet's events. A WebSocket pose naming a skeleton two
skeletons share gets ambiguous on a third, cold node after its fetch."""
import asyncio
import json

from animd_e2e import check
from fleet import Fleet, request, stick



async def ws_pose(addr, skeleton):
    """The answer to one WebSocket pose message naming skeleton."""
    import websockets
    async with websockets.connect("ws://%s/v1/stream" % addr,
                                  open_timeout=10) as ws:
        await ws.send(json.dumps({"op": "pose", "id": "p",
                                  "skeleton": skeleton, "clip": "c0.6",
                                  "t": 0.5}))
        for _ in range(100):
            msg = await asyncio.wait_for(ws.recv(), 10)
            if not isinstance(msg, bytes):
                return json.loads(msg)
    return {}


f = Fleet(nodes=3, balancer=False)
try:
    warm, cold, cold_ws = f.addrs
    ids = []
    for name, angle in (("left", 0.7071068), ("right", 0.6)):
        s, _, up = f.post(warm, stick(name, clip="walk", angle=angle))
        check(s == 201, "upload %s: %d" % (name, s))
        ids.append(up["clips"][0]["id"])
    ids.sort()
    want = "'walk' names 2 clips: %s, %s (use an id)" % tuple(ids)
    check(f.metric(cold, 'animd_assets{kind="clip"}') == 0, "cold cache")
    for node in (warm, cold):
        s, body = f.get(node, "/v1/pose?clip=walk&t=0.5")
        err = body.get("error", {})
        check(s == 409 and err.get("code") == "ambiguous" and
              err.get("message") == want and err.get("at") == "clip",
              "pose of an ambiguous clip name: %d %s" % (s, body))
    print("ok: both nodes answer 409 ambiguous with both ids")
    try:
        import websockets  # noqa: F401
        for length in (1, 2):
            rig = json.loads(stick("twin", clip="c0.6", angle=0.6))
            rig["skeleton"]["joints"][1]["translation"] = [0, length, 0]
            s, _, up = f.post(warm, json.dumps(rig))
            check(s == 201, "upload twin: %d %s" % (s, up))
        m = asyncio.run(ws_pose(cold_ws, "twin"))
        err = m.get("error", {})
        check(m.get("type") == "error" or err,
              "WebSocket pose of an ambiguous name: %s" % m)
        code = err.get("code") if isinstance(err, dict) else m.get("code")
        check(code == "ambiguous", "WebSocket pose of an ambiguous name "
              "on a cold node: %s" % m)
        print("ok: a WebSocket pose on a cold node answers ambiguous")
    except ImportError:
        print("skipped the WebSocket case: python3-websockets is missing")
    for c in ids:
        s, body = f.get(cold, "/v1/pose?clip=%s&t=0.5" % c)
        check(s == 200, "pose by clip id on the cold node: %d %s" % (s, body))
    print("ok: each clip answers by its id")

    long_name = "n" * 257
    s, _, body = f.post(cold, stick("long", clip=long_name))
    err = body.get("error", {})
    check(s == 400 and err.get("code") == "bad_value" and
          err.get("at") == "clips[0].name", "long name: %d %s" % (s, body))
    s, _, _ = f.post(cold, stick("n" * 256, clip="n" * 256))
    check(s == 201, "256-byte names: %d" % s)
    print("ok: names of 257 bytes refused (400 bad_value), 256 stored")
finally:
    f.stop()
