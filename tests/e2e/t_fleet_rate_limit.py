"""A write that misses a node's cache is charged once to the write rate
limit (tests/e2e/fleet.py): with a write burst of 1, deleting a clip
through a node that has not cached it loads the clip from Redis and runs
the delete's handler again on the same request, answering 200 (not 429
from a second charge); the next write from the same address is then the
one refused, and /metrics counts exactly that one refusal."""
import re

from animd_e2e import check, error_of
from fleet import Fleet, request, stick

f = Fleet(nodes=2, balancer=False,
          node_args=["--rate-limits", "on", "--write-rate", "1/min",
                     "--write-burst", "1", "--connection-rate", "0"])
try:
    up_node, node = f.addrs
    s, _, up = f.post(up_node, stick("limit-rig"))
    check(s == 201, "rig upload: %d" % s)
    clip = up["clips"][0]["id"]
    cached = f.metric(node, 'animd_assets{kind="clip"}')
    check(cached == 0, "the deleting node has %r clips cached" % cached)

    evals = f.redis_evals()
    s, _, body = request(node, "DELETE", "/v1/clips/" + clip)
    check(s == 200, "delete through a cache miss: %d %r" % (s, body))
    check(b'"deleted"' in body, body)
    check(f.redis_evals() >= evals + 2,
          "the delete did not load the clip first (%d Redis calls)"
          % (f.redis_evals() - evals))

    s, h, body = request(node, "DELETE", "/v1/clips/nope")
    check(s == 429, "the second write: %d" % s)
    check(error_of(body)["code"] == "rate_limited", body)

    _, _, text = request(node, "GET", "/metrics")
    m = re.search(rb'animd_rate_limited_total\{kind="write"\} (\d+)', text)
    check(m is not None and int(m.group(1)) == 1,
          "write refusals counted: %r" % (m and m.group(1)))
    print("ok: a delete that loaded its clip was charged once; the next "
          "write was refused")
finally:
    f.stop()
