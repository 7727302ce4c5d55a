"""POST /v1/retarget in a fleet sharing one Redis (tests/e2e/fleet.py):
node B, which has nothing cached, loads the clip and the target skeleton
from the shared store and runs the route again, bakes, and publishes the
clip before answering 201; node A then finds the new clip by name and
answers the same bake with 200 (content-addressed: already stored)."""
import json

from animd_e2e import check
from fleet import Fleet, request, stick

f = Fleet(nodes=2, balancer=False)
try:
    a, b = f.addrs
    # The tips hang below the roots: root heights 1 and 1.5, k = 1.5.
    short = json.loads(stick("short"))
    short["skeleton"]["joints"][1]["translation"] = [0, -1, 0]
    s, _, up = f.post(a, json.dumps(short))
    check(s == 201, "upload short: %d" % s)
    body = json.loads(stick("tall"))
    body["skeleton"]["joints"][0]["translation"] = [0, 1.5, 0]
    body["skeleton"]["joints"][1]["translation"] = [0, -1.5, 0]
    body["clips"] = []
    s, _, tall = f.post(a, json.dumps(body))
    check(s == 201, "upload tall: %d" % s)
    ask = json.dumps({"clip": up["clips"][0]["id"], "to": "tall",
                      "map": "auto", "name": "bend@tall", "fps": 10})
    s, _, data = request(b, "POST", "/v1/retarget", ask)
    check(s == 201, "retarget on node B: %d %s" % (s, data[:300]))
    ans = json.loads(data)
    check(ans["retarget"]["scale"] == 1.5, "scale: %r" % ans["retarget"])
    check(len(ans["retarget"]["mapped"]) == 2, "mapped: %r" % ans["retarget"])
    new_id = ans["clips"][0]["id"]
    s, pose = f.get(a, "/v1/pose?skeleton=tall&clip=bend@tall&t=1")
    check(s == 200 and pose["clip"] == new_id,
          "node A finds the published clip: %d %r" % (s, pose))
    s, _, data = request(a, "POST", "/v1/retarget", ask)
    check(s == 200 and json.loads(data)["clips"][0]["id"] == new_id,
          "the same bake on node A: %d %s" % (s, data[:300]))
finally:
    f.stop()
print("ok")
