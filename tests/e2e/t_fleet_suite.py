"""POST /v1/test in a fleet (tests/e2e/fleet.py, two nodes on one Redis):
a suite sent to a node whose cache has never seen its assets loads each
from the shared store as its names are resolved and runs the handler
again, answering exactly what the node that took the upload answers; a
name Redis does not hold either is 404 at its spot in the suite."""
import json

from animd_e2e import check
from fleet import Fleet, request
from suite_rig import ARM, pose

SUITE = {"name": "fleet", "cases": [
    {"name": "hand raised", "pose": pose(1),
     "expect": [{"joint": "hand", "position": [0, 2, 0], "tolerance": 1e-3}]},
    {"name": "smooth", "check": {"clip": "raise", "fps": 30}},
    {"name": "same", "compare": {"a": {"clip": "raise"},
                                 "b": {"skeleton": "arm", "clip": "raise"}}},
    {"name": "hand elsewhere", "pose": pose(0),
     "expect": [{"joint": "hand", "position": [0, 2, 0]}]}]}

f = Fleet(nodes=2, balancer=False)
try:
    status, _, up = f.post(f.addrs[0], json.dumps(ARM))
    check(status == 201, "upload: %d %s" % (status, up))
    body = json.dumps(SUITE)
    answers = [request(a, "POST", "/v1/test", body) for a in reversed(f.addrs)]
    for (status, _, data), node in zip(answers, (1, 0)):
        check(status == 422, "node %d: %d %s" % (node, status, data[:300]))
        r = json.loads(data)
        check((r["passed"], r["failed"]) == (3, 1), "node %d: %s" % (node, r))
    check(answers[0][2] == answers[1][2], "the nodes' reports differ")

    missing = {"name": "fleet", "cases": [
        {"name": "gone", "check": {"clip": "no-such-clip"}}]}
    status, _, data = request(f.addrs[1], "POST", "/v1/test",
                              json.dumps(missing))
    err = json.loads(data)["error"]
    check(status == 404 and err["at"] == "cases[0].check.clip",
          "missing: %d %s" % (status, data))
    print("ok: a cold node loads a suite's assets and answers the same report")
finally:
    f.stop()
