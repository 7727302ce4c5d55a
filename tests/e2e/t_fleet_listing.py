"""Listings and cascade deletes with a shared store (tests/e2e/fleet.py).
GET /v1/assets and GET /v1/skeletons/{id}/clips on a node that has
nothing cached list what Redis holds (paged through Redis 500 ids at a
time: more than a page of skeletons is listed whole, sorted by id, once
each). DELETE /v1/skeletons/{id}?cascade=1 on one node removes the
skeleton and its clips from Redis at once and lists them; the node that
had them cached stops answering them within DELETE_BOUND_S."""
import json

from animd_e2e import check
from fleet import Fleet, clip_for, request, stick, wait_until

DELETE_BOUND_S = 1.0
SKELETONS = 520  # More than one page (500).

f = Fleet(nodes=2, balancer=False)
try:
    up_node, fresh = f.addrs
    s, _, up = f.post(up_node, stick("list-rig"))
    check(s == 201, "rig upload: %d" % s)
    sk = up["skeletons"][0]["id"]
    clips = {up["clips"][0]["id"]}
    for i in range(3):
        s, _, b = f.post(up_node, clip_for(sk, "more%d" % i, 0.1 * (i + 1)))
        check(s == 201, "clip upload: %d" % s)
        clips.add(b["clips"][0]["id"])
    check(f.metric(fresh, "animd_store_bytes") == 0, "fresh node caches none")
    s, listing = f.get(fresh, "/v1/assets")
    check(s == 200, "listing: %d" % s)
    check([a["id"] for a in listing["skeletons"]] == [sk],
          "skeletons listed: %s" % listing["skeletons"])
    check({a["id"] for a in listing["clips"]} == clips, "clips listed")
    first = [a for a in listing["clips"] if a["id"] == up["clips"][0]["id"]]
    check(first[0] == up["clips"][0], "a clip's summary: %s, uploaded %s"
          % (first[0], up["clips"][0]))
    check(listing["skeletons"][0] == up["skeletons"][0], "skeleton summary")
    s, children = f.get(fresh, "/v1/skeletons/%s/clips" % sk)
    check(s == 200 and {a["id"] for a in children["clips"]} == clips,
          "the skeleton's clips: %d" % s)
    check([a["id"] for a in children["clips"]] ==
          sorted(a["id"] for a in children["clips"]), "sorted by id")
    print("ok: a node with nothing cached lists 1 skeleton and %d clips from "
          "Redis" % len(clips))

    # Cascade delete through the fresh node; the uploading node had them.
    for c in clips:
        check(f.get(up_node, "/v1/clips/" + c)[0] == 200, "cached clip")
    s, _, body = request(fresh, "DELETE", "/v1/skeletons/%s?cascade=1" % sk)
    answer = json.loads(body)
    check(s == 200 and answer["deleted"]["id"] == sk and
          set(answer["deleted"]["clips"]) == clips and
          answer["deleted"]["meshes"] == [], "cascade: %d %s" % (s, body))
    wait_until("the cascade seen on the other node", lambda: all(
        f.get(up_node, "/v1/clips/" + c)[0] == 404 for c in clips) and
        f.get(up_node, "/v1/skeletons/" + sk)[0] == 404, DELETE_BOUND_S)
    check(f.redis_cmd("DBSIZE") == b":0\r\n",
          "keys left in Redis: %s" % f.redis_cmd("KEYS *"))
    s, _, _ = request(fresh, "DELETE", "/v1/skeletons/%s?cascade=1" % sk)
    check(s == 404, "cascade again: %d" % s)
    print("ok: cascade removed 1 skeleton and %d clips from Redis, seen by "
          "the other node within %.1f s" % (len(clips), DELETE_BOUND_S))

    # More than a page.
    ids = set()
    for i in range(SKELETONS):
        s, _, b = f.post(up_node, json.dumps({"skeleton": {
            "name": "page-%d" % i, "joints": [
                {"name": "root", "parent": -1,
                 "translation": [0, i * 0.001, 0]}]}}))
        check(s == 201, "skeleton %d: %d" % (i, s))
        ids.add(b["skeletons"][0]["id"])
    s, listing = f.get(fresh, "/v1/assets")
    listed = [a["id"] for a in listing["skeletons"]]
    check(len(listed) == SKELETONS and set(listed) == ids and
          listed == sorted(listed), "%d skeletons listed of %d"
          % (len(listed), SKELETONS))
    print("ok: %d skeletons listed whole across pages" % SKELETONS)
finally:
    f.stop()
