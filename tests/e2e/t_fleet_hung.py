"""A Redis that accepts but never answers (kill -STOP, then -CONT) under a
node with redis_timeout = 500ms (tests/e2e/fleet.py): a cached pose keeps
answering; an upload and a miss get 503 store_unavailable with Retry-After
within the timeout (plus the check period, a quarter of it, and slack for
a loaded machine); /healthz says degraded; once Redis runs again the node
reconnects (its back-off is at most 2 s) and the upload succeeds; nothing
acknowledged is lost."""
import signal
import time

from animd_e2e import check
from fleet import Fleet, request, stick, wait_until

TIMEOUT_S = 0.5
BOUND_S = TIMEOUT_S * 1.25 + 1.0

f = Fleet(nodes=1, balancer=False, node_args=["--redis-timeout", "500ms"])
try:
    node = f.addrs[0]
    s, _, up = f.post(node, stick("hung-rig"))
    check(s == 201, "upload before: %d" % s)
    acked = [up["skeletons"][0]["id"], up["clips"][0]["id"]]
    pose = "/v1/pose?skeleton=hung-rig&clip=bend&t=0.25"
    check(f.get(node, pose)[0] == 200, "pose before")

    f.signal_redis(signal.SIGSTOP)
    t0 = time.time()
    s, h, body = f.post(node, stick("hung-upload"))
    took = time.time() - t0
    check(s == 503 and body["error"]["code"] == "store_unavailable" and
          "Retry-After" in h, "upload to a hung Redis: %d %s" % (s, body))
    check(took <= BOUND_S, "upload answered after %.2f s > %.2f s"
          % (took, BOUND_S))
    t0 = time.time()
    s, h, _ = request(node, "GET", "/v1/clips/" + "ab" * 32)
    took_miss = time.time() - t0
    check(s == 503 and "Retry-After" in h, "miss on a hung Redis: %d" % s)
    check(took_miss <= BOUND_S, "miss answered after %.2f s" % took_miss)
    check(f.get(node, pose)[0] == 200, "cached pose while Redis hangs")
    wait_until("degraded", lambda: f.get(node, "/healthz")[1].get(
        "status") == "degraded", 5)
    print("ok: hung Redis: upload 503 in %.2f s, miss 503 in %.2f s, cached "
          "pose 200, degraded" % (took, took_miss))

    f.signal_redis(signal.SIGCONT)
    back = time.time()
    wait_until("ok again", lambda: f.get(node, "/healthz")[1].get(
        "status") == "ok", 10)
    s, _, body = f.post(node, stick("hung-upload"))
    # 200 when the script sent before the timeout ran once Redis woke.
    check(s in (200, 201), "upload after: %d %s" % (s, body))
    acked += [body["skeletons"][0]["id"], body["clips"][0]["id"]]
    s, listing = f.get(node, "/v1/assets")
    listed = {a["id"] for k in ("skeletons", "clips") for a in listing[k]}
    for ident in acked:
        check(ident in listed, "acknowledged %s lost" % ident)
    print("ok: reconnected %.2f s after SIGCONT; %d acknowledged assets all "
          "in Redis" % (time.time() - back, len(acked)))
finally:
    f.stop()
