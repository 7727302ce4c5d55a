"""A delete that reaches a node while it is loading the same asset
(tests/e2e/fleet.py): node B misses a clip, Redis answers its lookup, and
before B adopts the clip the clip is deleted through node A. B must not
keep the deleted clip: the request that missed answers 404 and so does
every later one. Race-free: ANIMD_TEST_LOAD_HOLD names a file B's loads
wait on between lookup and adoption; the test removes it only once B has
applied the drop event (a second clip B had cached, deleted after the
first, stops being served: events arrive in order)."""
import os
import tempfile
import threading

from animd_e2e import check
from fleet import Fleet, clip_for, request, stick, wait_until

hold = os.path.join(tempfile.mkdtemp(prefix="animd-hold-"), "hold")
os.environ["ANIMD_TEST_LOAD_HOLD"] = hold
f = Fleet(nodes=2, balancer=False)
try:
    a, b = f.addrs
    s, _, up = f.post(a, stick("race-rig"))
    check(s == 201, "rig upload: %d" % s)
    sk = up["skeletons"][0]["id"]
    s, _, doomed = f.post(a, clip_for(sk, "doomed", 0.3))
    check(s == 201, "clip upload: %d" % s)
    doomed = doomed["clips"][0]["id"]
    s, _, marker = f.post(a, clip_for(sk, "marker", 0.5))
    check(s == 201, "marker upload: %d" % s)
    marker = marker["clips"][0]["id"]
    # B caches the marker (no hold yet).
    pose = "/v1/pose?skeleton=%s&clip=%s&t=0.5"
    check(f.get(b, pose % (sk, marker))[0] == 200, "B poses the marker")

    # B misses the doomed clip; its load waits after the lookup.
    open(hold, "w").close()
    evals = f.redis_evals()
    answer = {}
    t = threading.Thread(target=lambda: answer.update(
        status=request(b, "GET", pose % (sk, doomed), timeout=30)[0]))
    t.start()
    wait_until("B's lookup ran in Redis", lambda: f.redis_evals() > evals)
    s, _, _ = request(a, "DELETE", "/v1/clips/" + doomed)
    check(s == 200, "delete through A: %d" % s)
    s, _, _ = request(a, "DELETE", "/v1/clips/" + marker)
    check(s == 200, "delete of the marker through A: %d" % s)
    wait_until("B applied the drops (the marker is gone on B)",
               lambda: f.get(b, "/v1/clips/" + marker)[0] == 404)
    os.unlink(hold)
    t.join(30)
    check(not t.is_alive(), "the pose that missed answered")
    check(answer.get("status") == 404,
          "the pose whose load saw the delete: %s" % answer.get("status"))
    for i in range(3):
        s = f.get(b, pose % (sk, doomed))[0]
        check(s == 404, "B serves the deleted clip: %d" % s)
    s = f.get(b, "/v1/clips/" + doomed)[0]
    check(s == 404, "B's GET of the deleted clip: %d" % s)
    print("ok: a clip deleted while B loaded it answers 404 on B (the load "
          "looked it up again)")
finally:
    if os.path.exists(hold):
        os.unlink(hold)
    os.rmdir(os.path.dirname(hold))
    f.stop()
