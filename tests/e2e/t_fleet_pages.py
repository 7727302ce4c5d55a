"""Listing pages (?limit=N&after=CURSOR), one API on a fleet node (Redis
read a page at a time, tests/e2e/fleet.py) and on a single node: a skeleton
with 100 clips listed 40 at a time (list_limit) gives 40, 40 and 20, each
page but the last naming the next in "next", together every clip once in
id order, the same ids on both; /v1/assets pages across kinds; a page of
a fleet listing costs Redis one script call; a limit past list_limit_max,
0, or a cursor not from a page is 400 bad_parameter."""
import json

from animd_e2e import Daemon, check
from fleet import Fleet, request, stick

FLAGS = ["--list-limit", "40", "--list-limit-max", "100"]
CLIPS = 99  # Besides the rig's own.


def get(addr, path):
    status, _, body = request(addr, "GET", path)
    return status, json.loads(body) if body else {}


def walk(addr, path, key):
    """Every page of a listing: (ids of `key` in order, page sizes, pages'
    next values)."""
    ids, sizes, nexts, after = [], [], [], None
    for _ in range(100):
        sep = "&" if "?" in path else "?"
        s, page = get(addr, path + ("%safter=%s" % (sep, after) if after
                                    else ""))
        check(s == 200, "page after %s: %d" % (after, s))
        items = [a["id"] for k in ("skeletons", "clips", "meshes")
                 for a in page.get(k, []) if k == key or key is None]
        ids += items
        sizes.append(sum(len(page.get(k, [])) for k in
                         ("skeletons", "clips", "meshes")))
        after = page.get("next")
        nexts.append(after)
        if after is None:
            return ids, sizes, nexts
    check(False, "more than 100 pages")


def upload(addr, post):
    s, _, up = post(addr, stick("pages-rig"))
    check(s == 201, "rig: %d" % s)
    sk = up["skeletons"][0]["id"]
    clips = [{"name": "c%03d" % i, "skeleton": sk, "tracks": [{
        "joint": "tip", "path": "rotation", "interpolation": "LINEAR",
        "times": [0, 1], "values": [0, 0, 0, 1, 0, 0, 0.001 * (i + 1),
                                    (1 - (0.001 * (i + 1)) ** 2) ** 0.5]}]}
             for i in range(CLIPS)]
    s, _, more = post(addr, json.dumps({"clips": clips}))
    check(s == 201, "clips: %d" % s)
    return sk, {up["clips"][0]["id"]} | {c["id"] for c in more["clips"]}


def check_pages(addr, sk, clips, evals=None):
    ids, sizes, nexts = walk(addr, "/v1/skeletons/%s/clips" % sk, "clips")
    check(sizes == [40, 40, 20], "page sizes %s" % sizes)
    check(ids == sorted(clips) and len(set(ids)) == len(clips),
          "the clips once each, in id order")
    check(nexts[0] == "clip:" + ids[39] and nexts[-1] is None,
          "next: %s" % nexts)
    s, whole = get(addr, "/v1/skeletons/%s/clips?limit=100" % sk)
    check(s == 200 and [a["id"] for a in whole["clips"]] == ids and
          "next" not in whole, "one page of 100")
    if evals is not None:
        before = evals()
        s, _ = get(addr, "/v1/skeletons/%s/clips?limit=40" % sk)
        check(s == 200 and evals() - before == 1,
              "a page cost %d script calls" % (evals() - before))
    everything, sizes, _ = walk(addr, "/v1/assets?limit=30", None)
    check(sizes == [30, 30, 30, 11] and everything == [sk] + sorted(clips),
          "assets pages %s" % sizes)
    for query, at in (("limit=101", "limit"), ("limit=0", "limit"),
                      ("limit=x", "limit"), ("after=clip:zz", "after"),
                      ("after=" + sk, "after")):
        s, body = get(addr, "/v1/skeletons/%s/clips?%s" % (sk, query))
        check(s == 400 and body["error"]["code"] == "bad_parameter" and
              body["error"]["at"] == at, "%s: %d %s" % (query, s, body))
    return ids


f = Fleet(nodes=2, balancer=False, node_args=FLAGS)
try:
    up_node, fresh = f.addrs
    sk, clips = upload(up_node, f.post)
    fleet_ids = check_pages(fresh, sk, clips, f.redis_evals)
    print("ok: a fleet node lists %d clips in pages of 40, 40, 20 (one "
          "Redis script call a page)" % len(clips))
finally:
    f.stop()

d = Daemon(*FLAGS)
try:
    addr = "%s:%d" % (d.host, d.port)

    def post(a, body):
        s, h, data = request(a, "POST", "/v1/assets", body)
        return s, h, json.loads(data) if data else {}

    sk, clips = upload(addr, post)
    check(check_pages(addr, sk, clips) == fleet_ids,
          "a single node pages the same ids")
    print("ok: a single node pages the same listing the same way")
finally:
    d.stop()
    d.cleanup()
