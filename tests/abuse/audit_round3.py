#!/usr/bin/python3
"""The fourteen defects of the third reliability audit (six in a fleet),
and the two checks held over from the round before, reproduced at a small
scale (make abuse).

Each row: the item, the scenario as run here, the figure the audit
measured on 9538bb6 ("before", at the audit's scale) and the figure
$ANIMD_BIN gives now ("after", at the scale of the scenario). A scenario
the binary or the machine cannot run (a flag it refuses, no redis-server,
no tmpfs mount) prints "n/a" with the reason. Fleet items start their own
redis-server on 127.0.0.1 (tests/e2e/fleet.py); every process is stopped
by PID, and each item is bounded to about 20 s.
"""
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from animd_e2e import Daemon  # noqa: E402
from stall_probe import (HealthProbe, WsClient, clip_body,  # noqa: E402
                         many_body, mesh_body, peak_rss, reset_peak, rig,
                         status_bytes)
from hardening_items import (NotApplicable, daemon, post,  # noqa: E402
                             ws_frame, ws_open)

MB = 1e6
# Clips of the fleet items' large uploads (one upload: Redis must take it
# within the node's redis_timeout).
N_CLIPS = 8000


def fleet(nodes):
    if shutil.which("redis-server") is None:
        raise NotApplicable("no redis-server (make deps-test)")
    from fleet import Fleet
    try:
        return Fleet(nodes=nodes, balancer=False)
    except SystemExit as e:
        raise NotApplicable("fleet did not start (%s)" % e)


def req(addr, method, path, body=None, headers=None, timeout=20):
    from fleet import request
    return request(addr, method, path, body, headers, timeout)


def probed(host, port, fn):
    """Runs fn() with /healthz asked back to back on (host, port); returns
    (fn's result, worst wait s, p99 s)."""
    probe = HealthProbe(host, port)
    probe.start()
    try:
        time.sleep(0.2)
        t0 = time.monotonic()
        out = fn()
        time.sleep(0.1)
        lat = sorted(probe.latencies(t0))
        p99 = lat[int(0.99 * (len(lat) - 1))] if lat else 0.0
        return out, probe.worst(t0), p99
    finally:
        probe.stop()


def addr_of(d):
    return "%s:%d" % (d.host, d.port)


def upload_ids(addr, body, query=""):
    st, _, data = req(addr, "POST", "/v1/assets" + query, body, timeout=60)
    if st not in (200, 201):
        raise NotApplicable("upload answered %d %s" % (st, data[:80]))
    return json.loads(data)


# ---- fleet -------------------------------------------------------------------

def item1():
    """A failed publish (Redis down) of 5,000 new clips."""
    f = fleet(1)
    try:
        a = f.addrs[0]
        host, port = a.rsplit(":", 1)
        f.kill_redis()
        st, worst, _ = probed(host, int(port), lambda: req(
            a, "POST", "/v1/assets", many_body(5000), timeout=30)[0])
        return ("Redis down, upload of 5,000 clips",
                "5k clips froze the node 1.4 s",
                "answered %d; /healthz worst %.0f ms" % (st, worst * 1e3))
    finally:
        f.stop()


def item2():
    """Drop events on a node holding many clips."""
    f = fleet(2)
    try:
        a, b = f.addrs
        got = upload_ids(b, many_body(N_CLIPS))
        ids = [c["id"] for c in got.get("clips", [])][:200]
        host, port = b.rsplit(":", 1)

        def deletes():
            for i in ids:
                req(a, "DELETE", "/v1/clips/" + i)
        _, worst, _ = probed(host, int(port), deletes)
        return ("B holds %d clips, 200 DELETEs sent to A" % N_CLIPS,
                "60k clips, 600 DELETEs: B froze 5.4 s",
                "B's /healthz worst %.0f ms" % (worst * 1e3))
    finally:
        f.stop()


def item3():
    """A delete racing B's decode of the same asset after a miss."""
    f = fleet(2)
    try:
        a, b = f.addrs
        sk = upload_ids(a, json.dumps({"skeleton": rig("race")}).encode())
        sk_id = sk["skeletons"][0]["id"]
        served = 0
        for trial in range(4):
            body = clip_body(100000).replace(b'"long"', b'"c%d"' % trial)
            clip = upload_ids(a, body, "?skeleton=" + sk_id)["clips"][0]["id"]
            t = threading.Thread(target=req, args=(
                b, "GET", "/v1/pose?clip=%s&t=0.5" % clip))
            t.start()
            time.sleep(0.02)
            req(a, "DELETE", "/v1/clips/" + clip)
            t.join(20)
            time.sleep(1)
            if req(b, "GET", "/v1/pose?clip=%s&t=0.5" % clip)[0] == 200:
                served += 1
        return ("4 deletes on A while B decodes the clip",
                "B served the deleted clip 10 min later",
                "%d of 4 still served by B 1 s after" % served)
    finally:
        f.stop()


def item4():
    """Eight concurrent per-skeleton listings of many clips."""
    f = fleet(1)
    try:
        a = f.addrs[0]
        got = upload_ids(a, many_body(N_CLIPS))
        sk = got["skeletons"][0]["id"]
        statuses = []

        def listing():
            statuses.append(req(a, "GET", "/v1/skeletons/%s/clips" % sk,
                                timeout=20)[0])
        threads = [threading.Thread(target=listing) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(25)
        clips = f.metric(a, 'animd_assets{kind="clip"}')
        counts = {s: statuses.count(s) for s in sorted(set(statuses))}
        return ("8 concurrent listings of %d clips" % N_CLIPS,
                "60k clips: seven 503s, cache emptied (60,001 -> 0)",
                "statuses %s; clips cached after %s" % (counts, clips))
    finally:
        f.stop()


def item5():
    """A 1,100-byte name; a name two skeletons share, asked on B."""
    f = fleet(2)
    try:
        a, b = f.addrs
        long_st = req(a, "POST", "/v1/assets",
                      json.dumps({"skeleton": rig("n" * 1100)}).encode())[0]
        one = rig("twin")
        two = rig("twin")
        two["joints"][2]["translation"] = [0, 2, 0]
        for s in (one, two):
            req(a, "POST", "/v1/assets", json.dumps({"skeleton": s}).encode())
        st_a = req(a, "GET", "/v1/pose?skeleton=twin&t=0")[0]
        st_b = req(b, "GET", "/v1/pose?skeleton=twin&t=0")[0]
        return ("1,100-byte name upload; shared name asked on A and B",
                "long name stale on B (200 vs 409); B 404 where A 409",
                "long name %d; A %d, B %d" % (long_st, st_a, st_b))
    finally:
        f.stop()


def item6():
    """WebSocket cache misses and Redis connections."""
    f = fleet(1)
    try:
        a = f.addrs[0]
        host, port = a.rsplit(":", 1)

        def connections():
            for line in f.redis_cmd("INFO stats").decode().split("\r\n"):
                if line.startswith("total_connections_received:"):
                    return int(line.split(":")[1])
            return 0
        before = connections()
        clients = [WsClient(host, int(port)) for _ in range(2)]
        end = time.monotonic() + 3
        sent = 0
        while time.monotonic() < end:
            for c in clients:
                c.send({"op": "pose", "id": sent, "skeleton": "nope%d" % (
                    sent % 50), "t": 0})
                sent += 1
            time.sleep(0.002)
        time.sleep(0.5)
        for c in clients:
            c.close()
        return ("2 ws clients, %d poses of missing names in 3 s" % sent,
                "4 clients: ~76,000 connections in 6 s",
                "%d Redis connections opened" % (connections() - before))
    finally:
        f.stop()


# ---- any mode ----------------------------------------------------------------

def item7():
    """A multi-mesh skin answer of one mesh listed 1,024 times."""
    d = daemon("--data-dir", "", "--max-body-size", str(64 << 20))
    try:
        post(d, "/v1/assets", mesh_body(8000), timeout=60)
        base = status_bytes(d.proc.pid, "VmRSS") / MB
        reset_peak(d.proc.pid)
        q = "/v1/skin?skeleton=stall-rig&mesh=%s&clip=wiggle&t=0.5" % (
            ",".join(["big"] * 1024))
        st, _, data = d.request("GET", q + "&format=bin", timeout=60)
        st2, _, _ = d.request("GET", q, timeout=60)
        return ("0.7 MB mesh (8k vertices) x 1,024, binary and JSON",
                "947 MB peak RSS (binary), 1.4 GB (JSON)",
                "%d / %d; RSS %.0f -> peak %.0f MB"
                % (st, st2, base, peak_rss(d.proc.pid) / MB))
    finally:
        d.cleanup()


def item8():
    """WebSocket poses of 256 meshes from six clients that never read."""
    d = daemon("--data-dir", "", "--max-body-size", str(64 << 20))
    try:
        post(d, "/v1/assets", mesh_body(8000), timeout=60)
        base = status_bytes(d.proc.pid, "VmRSS") / MB
        reset_peak(d.proc.pid)
        frame = ws_frame(json.dumps({
            "op": "pose", "skeleton": "stall-rig", "mesh": ["big"] * 256,
            "clip": "wiggle", "t": 0.5}).encode())
        socks = [ws_open(d) for _ in range(6)]
        for _ in range(3):
            for s in socks:
                try:
                    s.sendall(frame)
                except OSError:
                    pass
        time.sleep(4)
        peak = peak_rss(d.proc.pid) / MB
        for s in socks:
            s.close()
        return ("6 non-reading ws clients x 3 poses of 256 x 8k vertices",
                "123 MB a message; 1.6 GB RSS",
                "RSS %.0f -> peak %.0f MB" % (base, peak))
    finally:
        d.cleanup()


def item9():
    """A large gzip-coded JSON skin answer, /healthz probed."""
    d = daemon("--data-dir", "", "--max-body-size", str(256 << 20),
               "--idle-timeout", "120s")
    try:
        post(d, "/v1/assets", mesh_body(150000), timeout=60)
        q = ("/v1/skin?skeleton=stall-rig&mesh=%s&clip=wiggle&t=0.5" %
             ",".join(["big"] * 8))
        hdr = {"Accept-Encoding": "gzip"}
        size = len(d.request("GET", q, timeout=60)[2])

        def one():
            return d.request("GET", q, None, hdr, timeout=60)[0]
        st, worst1, _ = probed(d.host, d.port, one)

        def four():
            out = []
            ts = [threading.Thread(target=lambda: out.append(one()))
                  for _ in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(60)
            return out
        sts, worst4, p99 = probed(d.host, d.port, four)
        return ("%.0f MB JSON skin, gzip: one client, then four" % (size / MB),
                "32 MB: stall 0.29 s; 4 clients p99 1.2-1.5 s",
                "%d: worst %.0f ms; %s: p99 %.0f ms, worst %.0f ms"
                % (st, worst1 * 1e3, sts, p99 * 1e3, worst4 * 1e3))
    finally:
        d.cleanup()


def item10():
    """An upload that fills the disk (a 1 MiB tmpfs data dir)."""
    tmp = tempfile.mkdtemp(prefix="animd-audit-")
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
                        data], stderr=subprocess.DEVNULL) != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise NotApplicable("cannot mount a tmpfs")
    try:
        d = Daemon("--max-body-size", str(64 << 20), data_dir=data, tmp=tmp)
        try:
            statuses = [post(d, "/v1/assets", many_body(2000).replace(
                b'"many"', b'"m%d"' % i), timeout=20)[0] for i in range(4)]
            left = [n for n in os.listdir(data) if "tmp" in n or
                    n.startswith(".")]
            return ("4 uploads of 2,000 clips into a 1 MiB data dir",
                    "temp files left, unlinkat of freed bytes",
                    "statuses %s; %d temp files left" % (statuses, len(left)))
        finally:
            d.kill()
    finally:
        subprocess.call(["umount", data])
        shutil.rmtree(tmp, ignore_errors=True)


def item11():
    """A DNS-rebinding Host with its matching Origin."""
    d = daemon("--demo", "--data-dir", "")
    try:
        evil = "evil.test:%d" % d.port
        h = {"Host": evil, "Origin": "http://" + evil,
             "Content-Type": "application/json"}
        up = d.request("POST", "/v1/assets",
                       json.dumps({"skeleton": rig("rebind")}).encode(), h)[0]
        pre = d.request("OPTIONS", "/v1/assets", None, dict(h, **{
            "Access-Control-Request-Method": "DELETE"}))[0]
        return ("Host and Origin evil.test:PORT: upload / preflight",
                "201 / 204 (and DELETE 200, upgrade 101)",
                "%d / %d" % (up, pre))
    finally:
        d.cleanup()


def item12():
    """Anonymous uploads forwarded by a trusted proxy on loopback."""
    d = daemon("--demo", "--data-dir", "", "--trusted-proxies", "127.0.0.1")
    try:
        ok = 0
        for i in range(30):
            st = d.request("POST", "/v1/assets", json.dumps(
                {"skeleton": rig("fw%d" % i)}).encode(), {
                "Content-Type": "application/json",
                "X-Forwarded-For": "203.0.113.7"})[0]
            ok += st in (200, 201)
        return ("30 uploads forwarded for 203.0.113.7, no token",
                "30 of 30 accepted, no rate limit",
                "%d of 30 accepted" % ok)
    finally:
        d.cleanup()


def item13():
    """An open WebSocket session after its token is revoked."""
    tmp = tempfile.mkdtemp(prefix="animd-audit-")
    tokens = os.path.join(tmp, "tokens")
    token = "t" * 32
    with open(tokens, "w") as f:
        f.write("read sha256:%s\n" % hashlib.sha256(token.encode()).hexdigest())
    d = daemon("--demo", "--data-dir", "", "--tokens-file", tokens,
               "--auth-reads", tmp=tmp)
    try:
        c = WsClient(d.host, d.port, path="/v1/stream?token=" + token)
        c.send({"op": "pose", "id": 1, "clip": "wave", "t": 0.5})
        c.wait(1, 5)
        open(tokens, "w").close()
        d.proc.send_signal(signal.SIGHUP)
        time.sleep(1)
        c.send({"op": "pose", "id": 2, "clip": "wave", "t": 0.5})
        time.sleep(1)
        with c.lock:
            msgs = list(c.messages)
        c.close()
        answered = any(op == 1 and b'"id":2' in p and b"error" not in p
                       for _, op, p in msgs)
        closes = [int.from_bytes(p[:2], "big") for _, op, p in msgs
                  if op == 8 and len(p) >= 2]
        return ("tokens file emptied + SIGHUP, then a pose on the session",
                "the open session answered the pose",
                "pose answered: %s; close codes %s" % (answered, closes))
    finally:
        d.cleanup()


def item14():
    """A token given as ?token%00= and the access log."""
    tmp = tempfile.mkdtemp(prefix="animd-audit-")
    log = os.path.join(tmp, "access.log")
    d = daemon("--demo", "--data-dir", "", "--access-log", log, tmp=tmp)
    try:
        st = d.request("GET", "/v1/assets?token%00=SECRETSECRET")[0]
        time.sleep(0.3)
        leaked = "SECRETSECRET" in open(log, errors="replace").read()
        return ("GET /v1/assets?token%00=SECRETSECRET",
                "accepted, the token written to the access log",
                "status %d; token in the log: %s" % (st, leaked))
    finally:
        d.cleanup()


def held1():
    """A request line without an HTTP version."""
    d = daemon("--data-dir", "")
    try:
        r = d.raw(b"GET /\r\n\r\n", 5)
        st = r.split(b"\r\n", 1)[0].split(b" ")[1].decode() if r else "closed"
        return ("'GET /' (no version)", "505", st)
    finally:
        d.cleanup()


def held2():
    """RSS after many WebSocket mesh poses, close and DELETE."""
    d = daemon("--data-dir", "", "--max-body-size", str(256 << 20),
               "--stream-threads", "1", "--stream-high-water", "1MiB")
    try:
        post(d, "/v1/assets", mesh_body(250000), timeout=60)
        up = status_bytes(d.proc.pid, "VmRSS") / MB
        c = WsClient(d.host, d.port)
        for i in range(32):
            c.send({"op": "pose", "id": i + 1, "mesh": "big",
                    "clip": "wiggle", "t": 0.01 * i, "format": "bin"})
        got = c.wait_count(32, 20)
        c.close()
        peak = peak_rss(d.proc.pid) / MB
        sk = d.json("GET", "/v1/skeletons/stall-rig")["id"]
        d.request("DELETE", "/v1/skeletons/%s?cascade=1" % sk)
        time.sleep(2)
        return ("32 ws mesh poses of 250k vertices, close, DELETE",
                "128 poses: 26 -> 120 -> 60 MB (2.3x)",
                "%d answered; %.0f -> peak %.0f -> %.0f MB"
                % (got, up, peak, status_bytes(d.proc.pid, "VmRSS") / MB))
    finally:
        d.cleanup()


ITEMS = [("1", item1), ("2", item2), ("3", item3), ("4", item4),
         ("5", item5), ("6", item6), ("7", item7), ("8", item8),
         ("9", item9), ("10", item10), ("11", item11), ("12", item12),
         ("13", item13), ("14", item14), ("h1", held1), ("h2", held2)]


def main():
    only = set(sys.argv[1:])
    print("binary: %s" % os.environ.get("ANIMD_BIN", "build/release/animd"))
    print("%-4s | %-55s | %-45s | %s" % ("item", "scenario", "before (9538bb6)",
                                         "after"), flush=True)
    for n, fn in ITEMS:
        if only and n not in only:
            continue
        t0 = time.monotonic()
        try:
            what, before, figure = fn()
        except NotApplicable as e:
            what, before, figure = fn.__doc__, "", "n/a (%s)" % e
        except (Exception, SystemExit) as e:
            what, before, figure = fn.__doc__, "", "n/a (%s: %s)" % (
                type(e).__name__, str(e)[:120])
        print("%-4s | %-55s | %-45s | %s  [%.1f s]" % (
            n, what, before, figure, time.monotonic() - t0), flush=True)


if __name__ == "__main__":
    main()
