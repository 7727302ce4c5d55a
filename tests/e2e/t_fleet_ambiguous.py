"""Names in a fleet (tests/e2e/fleet.py) answer as on one node: two
skeletons with a clip named "walk" make GET /v1/pose?clip=walk answer
409 ambiguous listing both clip ids, on the node that uploaded them and
on a node with a cold cache alike (the shared store's lookup used to
answer "not found": 404); each clip still answers by its id. A name
longer than 256 bytes is refused at upload (400 bad_value at its field),
so every name fits the fleet's events."""
import json

from animd_e2e import check
from fleet import Fleet, request, stick

f = Fleet(nodes=2, balancer=False)
try:
    warm, cold = f.addrs
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
