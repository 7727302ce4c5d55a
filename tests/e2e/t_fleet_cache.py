"""A node's bounded cache of a shared store (tests/e2e/fleet.py): with a
memory_limit that holds a few clips, reading many more clips than fit
through a node that has none cached answers every one (misses load from
Redis), the bytes it accounts for (animd_store_bytes) never pass the
limit, and the least recently used go first: a clip read between every
other load stays cached (no Redis call for it)."""
from animd_e2e import check
from fleet import Fleet, clip_for, stick

LIMIT = 8000  # Bytes: the skeleton (~0.7 KB) and about five clips.
CLIPS = 24

f = Fleet(nodes=2, balancer=False, node_args=["--memory-limit", str(LIMIT)])
try:
    up_node, reader = f.addrs
    s, _, up = f.post(up_node, stick("lru-rig"))
    check(s == 201, "rig upload: %d" % s)
    sk = up["skeletons"][0]["id"]
    clips = [up["clips"][0]["id"]]
    for i in range(CLIPS - 1):
        s, _, b = f.post(up_node, clip_for(sk, "c%d" % i, 0.01 * (i + 1)))
        check(s == 201, "clip upload %d: %d" % (i, s))
        clips.append(b["clips"][0]["id"])
        held = f.metric(up_node, "animd_store_bytes")
        check(held <= LIMIT, "uploading node holds %d bytes > %d" % (held, LIMIT))

    peak = 0
    for rnd in range(2):
        for c in clips:
            s, body = f.get(reader, "/v1/clips/" + c)
            check(s == 200 and body["id"] == c, "clip %s: %d" % (c, s))
            s, body = f.get(reader, "/v1/pose?skeleton=%s&clip=%s&t=0.5"
                            % (sk, c))
            check(s == 200, "pose of clip %s: %d" % (c, s))
            held = f.metric(reader, "animd_store_bytes")
            peak = max(peak, held)
            check(held <= LIMIT, "reader holds %d bytes > %d" % (held, LIMIT))
    print("ok: %d clips read twice through a %d-byte cache, peak %d bytes"
          % (len(clips), LIMIT, peak))

    # Least recently used first: clip 0, read between each load, stays.
    hot = clips[0]
    f.get(reader, "/v1/clips/" + hot)
    reloads = 0
    for c in clips[1:]:
        f.get(reader, "/v1/clips/" + c)
        before = f.redis_evals()
        s, _ = f.get(reader, "/v1/clips/" + hot)
        check(s == 200, "hot clip: %d" % s)
        reloads += f.redis_evals() - before
    check(reloads == 0, "the most recently used clip was evicted %d times"
          % reloads)
    print("ok: the clip read between loads was never evicted (%d loads)"
          % (len(clips) - 1))
finally:
    f.stop()
