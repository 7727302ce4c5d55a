"""A fleet's drop and name events cost a node what they drop, never a walk
of its whole cache (tests/e2e/fleet.py): node B caches a rig of 2,000
clips (its own upload); node A then uploads 50 clips of those names on
another skeleton (50 name events: B forgets its copies, which are now
ambiguous by name) and deletes 20 more of the rig's clips by id (20 drop
events). B's animd_store_scanned_total grows by what it dropped (a name's
group, then each asset by id), not by 70 times its 2,000 clips."""
import json

from animd_e2e import check
from fleet import Fleet, request, stick, wait_until

CLIPS = 2000
NAMED = 50
DELETED = 20


def rig(name, clips, z0):
    body = json.loads(stick(name))
    track = body["clips"][0]["tracks"][0]
    body["clips"] = []
    for i in range(clips):
        z = z0 + 0.0001 * i
        t = dict(track, values=[0, 0, 0, 1, 0, 0, z, (1 - z * z) ** 0.5])
        body["clips"].append({"name": "c%d" % i, "tracks": [t]})
    return json.dumps(body)


f = Fleet(nodes=2, balancer=False)
try:
    a, b = f.addrs
    s, _, up = f.post(b, rig("ev-rig", CLIPS, 0.1))
    check(s == 201, "rig upload on B: %d" % s)
    clip = 'animd_assets{kind="clip"}'
    check(f.metric(b, clip) == CLIPS, "B caches %s clips" % f.metric(b, clip))
    ids = [c["id"] for c in up["clips"]]
    before = f.metric(b, "animd_store_scanned_total")

    s, _, _ = f.post(a, rig("ev-other", NAMED, 0.5))
    check(s == 201, "other upload on A: %d" % s)
    wait_until("B drops the %d clips whose names are shared" % NAMED,
               lambda: f.metric(b, clip) == CLIPS - NAMED)
    for c in ids[-DELETED:]:
        s, _, _ = request(a, "DELETE", "/v1/clips/" + c)
        check(s == 200, "delete on A: %d" % s)
    wait_until("B drops the %d deleted clips" % DELETED,
               lambda: f.metric(b, clip) == CLIPS - NAMED - DELETED)
    cost = f.metric(b, "animd_store_scanned_total") - before
    # A name event: its group of one, read twice, then the drop by id; a
    # drop event: one read.
    check(cost == 3 * NAMED + DELETED,
          "B read %d assets for %d events" % (cost, NAMED + DELETED))
    print("ok: %d name and %d drop events cost B %d asset reads (%d cached)"
          % (NAMED, DELETED, cost, CLIPS))

    # B still answers what it kept, and what it dropped loads again (the
    # name is ambiguous now; the id is not).
    s, body = f.get(b, "/v1/clips/" + ids[0])
    check(s == 200 and body["id"] == ids[0], "dropped clip by id: %d" % s)
    s, body = f.get(b, "/v1/clips/" + ids[NAMED])
    check(s == 200, "kept clip: %d" % s)
    s, _ = f.get(b, "/v1/clips/" + ids[-1])
    check(s == 404, "deleted clip on B: %d" % s)
    print("ok: B answers the kept, reloaded and deleted clips")
finally:
    f.stop()
