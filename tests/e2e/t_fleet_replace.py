"""Re-exports in a fleet sharing one Redis (tests/e2e/fleet.py): a new
export of a rig uploaded to node A is refused (409 name_conflict at
clips[0].name) until it comes with ?replace=1, which answers what moved;
node B, which had the old clip cached by name, then answers the new one by
name within NAME_BOUND_S, and the old one still by its id (and loading it
by id leaves the name to the new one); node C, which had nothing cached,
does too. The first export uploaded again with ?replace=1 takes its name
back on every node (and forward again). A re-export with a new skeleton
moves the skeleton's name and its clip's; ?prefix= keeps a third export
beside them."""
import json

from animd_e2e import check
from fleet import Fleet, request, stick, wait_until

NAME_BOUND_S = 1.0


def rig(height, angle):
    """The stick rig "rig" with its clip "bend": height moves the root (a
    new skeleton), angle changes the clip."""
    body = json.loads(stick("rig", "bend", angle))
    body["skeleton"]["joints"][0]["translation"] = [0, height, 0]
    return json.dumps(body)


def upload(addr, query, body):
    s, _, data = request(addr, "POST", "/v1/assets" + query, body)
    return s, json.loads(data)


f = Fleet(nodes=3, balancer=False)
try:
    a, b, c = f.addrs
    s, v1 = upload(a, "", rig(1, 0.7071068))
    check(s == 201, "first export: %d" % s)
    sk1, clip1 = v1["skeletons"][0]["id"], v1["clips"][0]["id"]
    pose = "/v1/pose?skeleton=rig&clip=bend&t=1"
    s, body = f.get(b, pose)
    check(s == 200 and body["clip"] == clip1, "node B caches the old clip")

    # The same rig, a new clip under the same name: refused, then moved.
    s, body = upload(a, "", rig(1, 0.6))
    check(s == 409 and body["error"]["code"] == "name_conflict" and
          body["error"]["at"] == "clips[0].name", "conflict: %d %s" % (s, body))
    s, v2 = upload(a, "?replace=1", rig(1, 0.6))
    clip2 = v2["clips"][0]["id"]
    check(s == 201 and v2["skeletons"][0]["id"] == sk1, "replace: %d" % s)
    check(v2["replaced"] == [{"kind": "clip", "name": "bend", "old": clip1,
                              "new": clip2}], "replaced: %s" % v2["replaced"])
    wait_until("node B answers the new clip by name",
               lambda: f.get(b, pose)[1].get("clip") == clip2, NAME_BOUND_S)
    s, body = f.get(b, "/v1/clips/" + clip1)
    check(s == 200 and body["id"] == clip1, "old clip by id on B: %d" % s)
    for node in (b, c):
        s, body = f.get(node, "/v1/pose?clip=%s&t=1" % clip1)
        check(s == 200 and body["clip"] == clip1, "old by id on %s" % node)
        s, body = f.get(node, pose)
        check(s == 200 and body["clip"] == clip2,
              "name after the old one loaded by id on %s: %d %s"
              % (node, s, body))
    # The same upload again moves nothing.
    s, again = upload(a, "?replace=1", rig(1, 0.6))
    check(s == 200 and again["replaced"] == [], "again: %d %s" % (s, again))
    # The first export again takes its name back (a roll-back), then the
    # second once more.
    for back, fwd, body in ((clip2, clip1, rig(1, 0.7071068)),
                            (clip1, clip2, rig(1, 0.6))):
        s, up = upload(c, "?replace=1", body)
        check(s == 200 and up["replaced"] == [
            {"kind": "clip", "name": "bend", "old": back, "new": fwd}],
            "roll: %d %s" % (s, up))
        for node in f.addrs:
            wait_until("%s by name on %s" % (fwd, node),
                       lambda: f.get(node, pose)[1].get("clip") == fwd,
                       NAME_BOUND_S)

    # A new skeleton: its name moves, and the clip's from the old rig.
    s, v3 = upload(b, "?replace=1", rig(2, 0.5))
    sk3, clip3 = v3["skeletons"][0]["id"], v3["clips"][0]["id"]
    check(s == 201 and sk3 != sk1, "new skeleton: %d" % s)
    want = [{"kind": "skeleton", "name": "rig", "old": sk1, "new": sk3},
            {"kind": "clip", "name": "bend", "old": clip2, "new": clip3}]
    check(v3["replaced"] == want, "replaced: %s" % v3["replaced"])
    for node in f.addrs:
        wait_until("new rig by name on " + node,
                   lambda: f.get(node, pose)[1].get("clip") == clip3,
                   NAME_BOUND_S)
        s, body = f.get(node, "/v1/pose?clip=bend&t=1")
        check(s == 200 and body["clip"] == clip3, "clip name alone: %d" % s)

    # Side by side: every name of the upload qualified.
    s, v4 = upload(c, "?prefix=old/", rig(1, 0.7071068))
    check(s == 201 and v4["skeletons"][0]["name"] == "old/rig" and
          v4["clips"][0]["name"] == "old/bend" and "replaced" not in v4,
          "prefix: %d %s" % (s, v4))
    s, body = f.get(a, "/v1/pose?skeleton=old/rig&clip=old/bend&t=1")
    check(s == 200 and body["clip"] == v4["clips"][0]["id"], "prefixed on A")
    s, body = f.get(a, pose)
    check(s == 200 and body["clip"] == clip3, "the current rig stays")
    print("ok: re-exports across 3 nodes: conflict, replace, prefix")
finally:
    f.stop()
