"""Faults in a fleet (tests/e2e/fleet.py). Redis killed and restarted:
cached poses keep answering, uploads meanwhile get 503 store_unavailable
with Retry-After and succeed once it is back, nothing acknowledged before
the kill is lost (appendfsync always). A node killed (kill -9) under a
bounded load through HAProxy: no acknowledged upload is lost, the failed
requests are counted (at most those in flight on that node), HAProxy stops
sending to it within its health-check interval (plus its timeouts), and
the node restarted serves every asset from Redis."""
import threading
import time

from animd_e2e import check
from fleet import Fleet, request, stick, wait_until

CHECK_MS = 500
LOAD_S = 4.0

f = Fleet(check_ms=CHECK_MS)
try:
    acked = {}  # id -> name of every upload acknowledged (200/201)
    status, _, up = f.post(f.front, stick("fault-rig"))
    check(status == 201, "first upload: %d" % status)
    acked[up["skeletons"][0]["id"]] = "skeleton"
    acked[up["clips"][0]["id"]] = "clip"
    pose = "/v1/pose?skeleton=fault-rig&clip=bend&t=0.25"
    # Distinct times (no unknown parameters: they are refused).
    poses = "/v1/pose?skeleton=fault-rig&clip=bend&t=0.2"
    for a in f.addrs:
        check(f.get(a, pose)[0] == 200, "pose cached on " + a)

    # ---- Redis down ----------------------------------------------------------
    f.kill_redis()
    for a in f.addrs:
        wait_until("degraded on " + a, lambda: f.get(a, "/healthz")[1].get(
            "status") == "degraded", 5)
    served = 0
    for i in range(30):
        s, _ = f.get(f.addrs[i % 3], pose)
        check(s == 200, "cached pose during the outage: %d" % s)
        served += 1
    s, h, body = f.post(f.addrs[0], stick("outage-rig"))
    check(s == 503 and body["error"]["code"] == "store_unavailable" and
          "Retry-After" in h, "upload during the outage: %d %s" % (s, body))
    s, h, body = f.post(f.front, stick("outage-rig"))
    check(s == 503, "upload through haproxy during the outage: %d" % s)
    f.start_redis()
    for a in f.addrs:
        wait_until("ok on " + a, lambda: f.get(a, "/healthz")[1].get(
            "status") == "ok", 10)
    s, _, body = f.post(f.front, stick("outage-rig"))
    check(s == 201, "upload after the outage: %d" % s)
    acked[body["skeletons"][0]["id"]] = "skeleton"
    for ident, kind in acked.items():
        s, _ = f.get(f.addrs[1], "/v1/%ss/%s" % (
            "skeleton" if kind == "skeleton" else "clip", ident))
        check(s == 200, "%s %s kept across the Redis restart" % (kind, ident))
    print("ok: Redis outage: %d cached poses served, uploads 503 then 201"
          % served)

    # ---- a node killed under load ------------------------------------------------
    stop = threading.Event()
    lock = threading.Lock()
    counts = {"ok": 0, "failed": 0, "uploads": 0}
    failures = []

    def load(worker):
        n = 0
        while not stop.is_set() and n < 5000:
            n += 1
            if n % 10 == 0:
                s, _, body = f.post(f.front, stick("load-%d-%d" % (worker, n)))
                if s in (200, 201):
                    with lock:
                        counts["uploads"] += 1
                        acked[body["skeletons"][0]["id"]] = "skeleton"
                        acked[body["clips"][0]["id"]] = "clip"
            else:
                s, _, _ = request(f.front, "GET", poses + "%02d" % (n % 100))
            with lock:
                if s in (200, 201):
                    counts["ok"] += 1
                else:
                    counts["failed"] += 1
                    failures.append((time.time(), s))

    workers = [threading.Thread(target=load, args=(w,)) for w in range(4)]
    [t.start() for t in workers]
    time.sleep(LOAD_S / 2)
    killed_at = time.time()
    f.kill_node(2)
    time.sleep(LOAD_S / 2)
    stop.set()
    [t.join(30) for t in workers]
    # HAProxy retries a request that found the node gone on another node,
    # so at most the requests in flight on it (one per load worker) fail;
    # none may fail once the health check has marked it down.
    late = [s for t, s in failures if t > killed_at + CHECK_MS / 1000.0 + 1.5]
    check(counts["failed"] <= len(workers),
          "%d requests failed, more than were in flight" % counts["failed"])
    check(not late, "requests still failing after the health check: %s" % late)
    print("ok: node killed under load: %d answered, %d failed (in flight), "
          "%d uploads acknowledged" % (counts["ok"], counts["failed"],
                                       counts["uploads"]))

    f.start_node(2)
    for ident, kind in acked.items():
        s, _ = f.get(f.addrs[2], "/v1/%ss/%s" % (kind, ident))
        check(s == 200, "restarted node lacks %s %s: %d" % (kind, ident, s))
    print("ok: the restarted node serves all %d acknowledged assets"
          % len(acked))
finally:
    f.stop()
