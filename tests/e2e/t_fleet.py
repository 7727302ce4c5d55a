"""A fleet sharing one Redis behind HAProxy (tests/e2e/fleet.py): an upload
through the balancer is answered by every node directly, by id and by name;
one asset uploaded to two nodes at once gets one id; two different clips
racing for one name give one 201 and one 409; a delete on one node is seen
by the others within DELETE_BOUND_S."""
import json
import threading

from animd_e2e import check
from fleet import Fleet, clip_for, request, stick, wait_until

DELETE_BOUND_S = 1.0

f = Fleet()
try:
    # Through the balancer, then every node directly, by id and by name.
    status, _, up = f.post(f.front, stick("fleet-rig"))
    check(status == 201, "upload through haproxy: %d" % status)
    sk = up["skeletons"][0]["id"]
    clip = up["clips"][0]["id"]
    for a in f.addrs:
        s, body = f.get(a, "/v1/skeletons/" + sk)
        check(s == 200 and body["id"] == sk, "node %s by id: %d" % (a, s))
        s, body = f.get(a, "/v1/pose?skeleton=fleet-rig&clip=bend&t=0.5")
        check(s == 200 and body["clip"] == clip, "node %s by name: %d" % (a, s))
        s, body = f.get(a, "/v1/clips/" + clip)
        check(s == 200 and body["skeleton"] == sk, "clip by id on %s" % a)

    # The same new asset to two nodes at once: one id, one 201 at most.
    results = [None, None]

    def upload(i, body):
        results[i] = f.post(f.addrs[i], body)

    body = stick("twin-rig", "twin")
    ts = [threading.Thread(target=upload, args=(i, body)) for i in range(2)]
    [t.start() for t in ts]
    [t.join(20) for t in ts]
    ids = {r[2]["skeletons"][0]["id"] for r in results}
    codes = sorted(r[0] for r in results)
    check(len(ids) == 1, "two ids for one asset: %s" % ids)
    check(codes in ([200, 201], [201, 201]), "twin upload codes %s" % codes)

    # Two different clips, one name, two nodes: one winner, one 409.
    for a in f.addrs[:2]:
        check(f.get(a, "/v1/skeletons/" + sk)[0] == 200, "skeleton cached")
    bodies = [clip_for(sk, "race", 0.5), clip_for(sk, "race", 0.6)]
    ts = [threading.Thread(target=upload, args=(i, bodies[i]))
          for i in range(2)]
    [t.start() for t in ts]
    [t.join(20) for t in ts]
    codes = sorted(r[0] for r in results)
    check(codes == [201, 409], "name race gave %s" % codes)
    loser = [r for r in results if r[0] == 409][0]
    check(loser[2]["error"]["code"] == "name_conflict", "409 code")
    winner = [r for r in results if r[0] == 201][0][2]["clips"][0]["id"]
    for a in f.addrs:
        s, body = f.get(a, "/v1/pose?skeleton=%s&clip=race&t=1" % sk)
        check(s == 200 and body["clip"] == winner, "race winner on %s" % a)

    # A delete on node 0 is seen by nodes 1 and 2 (which cached the clip).
    for a in f.addrs:
        check(f.get(a, "/v1/clips/" + clip)[0] == 200, "cached before delete")
    s, _, _ = request(f.addrs[0], "DELETE", "/v1/clips/" + clip)
    check(s == 200, "delete: %d" % s)
    for a in f.addrs[1:]:
        wait_until("delete seen on " + a,
                   lambda: f.get(a, "/v1/clips/" + clip)[0] == 404,
                   DELETE_BOUND_S)
    s, _, body = request(f.addrs[1], "DELETE", "/v1/skeletons/" + sk)
    check(s == 409 and json.loads(body)["error"]["code"] == "conflict",
          "skeleton with a clip left: %d" % s)
    print("ok: fleet of %d nodes: uploads, names, races, deletes" % len(f.addrs))
finally:
    f.stop()
