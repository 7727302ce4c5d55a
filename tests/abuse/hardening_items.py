#!/usr/bin/python3
"""Hardening items of the audit, reproduced at a small scale (make abuse).

For items 1-11 and 15-23 of the hardening audit (12-14 are measured by
loop_stalls.py), starts $ANIMD_BIN on 127.0.0.1, reproduces the item's
scenario at a bounded size and prints one row: item, what was measured and
the figure with its units. A scenario the binary cannot run (a flag or a
request it does not know) prints "n/a" with the reason instead. Each item
is bounded to about 20 s; every daemon is stopped by PID.
"""
import base64
import json
import shutil
import os
import socket
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from animd_e2e import Daemon  # noqa: E402
from stall_probe import (HealthProbe, WsClient, many_body,  # noqa: E402
                         mesh_body, peak_rss, reset_peak, rig, status_bytes)

MB = 1e6


class NotApplicable(Exception):
    pass


def daemon(*flags, **kw):
    """A Daemon, or NotApplicable when the binary refuses the flags."""
    try:
        return Daemon(*flags, **kw)
    except SystemExit:
        raise NotApplicable("daemon refused flags %s" % " ".join(flags))


def rss(d):
    return status_bytes(d.proc.pid, "VmRSS") / MB


def post(d, path, body, ctype="application/json", timeout=20):
    return d.request("POST", path, body, {"Content-Type": ctype},
                     timeout=timeout)


def ws_open(d, rcvbuf=4096):
    """A WebSocket to /v1/stream whose answers are never read."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(5)
    s.connect((d.host, d.port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /v1/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n" % key).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        got = s.recv(1)
        if not got:
            raise NotApplicable("no WebSocket upgrade")
        head += got
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise NotApplicable("upgrade answered %r" % head[:40])
    return s


def ws_frame(payload, opcode=1):
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def send_until(s, frame, total, seconds):
    """Sends frame repeatedly up to total bytes or seconds; bytes sent."""
    sent, end = 0, time.monotonic() + seconds
    batch = frame * max(1, 65536 // len(frame))
    s.settimeout(1)
    while sent < total and time.monotonic() < end:
        try:
            s.sendall(batch)
            sent += len(batch)
        except socket.timeout:
            continue
        except OSError:
            break
    return sent


# ---- items ------------------------------------------------------------------

def item1():
    """Empty clips on a wide skeleton under a memory limit."""
    d = daemon("--data-dir", "", "--memory-limit", str(64 << 20))
    try:
        joints = [{"name": "j%d" % i, "parent": 0 if i else -1,
                   "translation": [0, 0, 0]} for i in range(32767)]
        body = json.dumps({"skeleton": {"name": "wide", "joints": joints},
                           "clips": []}).encode()
        st, _, data = post(d, "/v1/assets", body)
        if st not in (200, 201):
            raise NotApplicable("skeleton upload %d" % st)
        statuses, end = {}, time.monotonic() + 15
        for b in range(12):
            clips = ",".join('{"name":"e%d_%d","tracks":[]}' % (b, i)
                             for i in range(50))
            body = ('{"skeleton":"wide","clips":[%s]}' % clips).encode()
            st, _, _ = post(d, "/v1/assets", body)
            if st == 400:
                st2, _, _ = post(d, "/v1/assets?skeleton=wide",
                                 ('{"clips":[%s]}' % clips).encode())
                st = st2
            statuses[st] = statuses.get(st, 0) + 1
            if time.monotonic() > end:
                break
        return ("600 empty clips, 32767 joints, limit 64 MiB",
                "RSS %.0f MB; uploads %s" % (rss(d), statuses))
    finally:
        d.cleanup()


def item2():
    """WebSocket pose requests from a client that never reads."""
    d = daemon("--demo", "--data-dir", "")
    try:
        base = rss(d)
        s = ws_open(d)
        frame = ws_frame(json.dumps({"op": "pose", "id": 1,
                                     "skeleton": "demo-humanoid",
                                     "clip": "wave", "t": 0.5}).encode())
        reset_peak(d.proc.pid)
        sent = send_until(s, frame, 8 << 20, 12)
        time.sleep(1)
        peak = peak_rss(d.proc.pid) / MB
        s.close()
        time.sleep(1)
        return ("pose requests from a client that never reads",
                "%.0f MB sent; RSS %.0f -> peak %.0f -> %.0f MB after close"
                % (sent / MB, base, peak, rss(d)))
    finally:
        d.cleanup()


def item3():
    """A ping flood from a client that never reads."""
    d = daemon("--demo", "--data-dir", "")
    try:
        base = rss(d)
        s = ws_open(d)
        reset_peak(d.proc.pid)
        sent = send_until(s, ws_frame(b"x" * 125, 9), 32 << 20, 12)
        time.sleep(1)
        peak = peak_rss(d.proc.pid) / MB
        s.close()
        return ("ping flood (125 B pings), never read",
                "%.0f MB sent; RSS %.0f -> peak %.0f MB" % (sent / MB, base,
                                                            peak))
    finally:
        d.cleanup()


def item4():
    """The stream loop's evaluation cache after mesh poses."""
    d = daemon("--data-dir", "", "--max-body-size", str(256 << 20),
               "--stream-threads", "1")
    try:
        post(d, "/v1/assets", mesh_body(200000), timeout=60)
        before = rss(d)
        c = WsClient(d.host, d.port)
        for i in range(16):
            c.send({"op": "pose", "id": i + 1, "mesh": "big",
                    "clip": "wiggle", "t": 0.1 * i})
        got = c.wait_count(16, 15)
        c.close()
        sk = d.json("GET", "/v1/skeletons/stall-rig")["id"]
        d.request("DELETE", "/v1/skeletons/%s?cascade=1" % sk)
        time.sleep(1)
        return ("16 ws mesh poses, 200k vertices, then close+delete",
                "%d answered; RSS %.0f MB -> %.0f MB after"
                % (got, before, rss(d)))
    finally:
        d.cleanup()


def item5():
    """Large answers to clients that do not read."""
    d = daemon("--data-dir", "", "--max-body-size", str(256 << 20),
               "--idle-timeout", "3s")
    try:
        post(d, "/v1/assets", mesh_body(100000), timeout=60)
        base = rss(d)
        socks = []
        for _ in range(4):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect((d.host, d.port))
            s.sendall(b"GET /v1/skin?mesh=big&clip=wiggle&t=0 HTTP/1.1\r\n"
                      b"Host: localhost\r\n\r\n")
            socks.append(s)
        time.sleep(8)
        held = rss(d)
        got = []
        for s in socks:
            s.settimeout(1)
            n, end = 0, "open"
            try:
                while True:
                    b = s.recv(1 << 20)
                    if not b:
                        end = "closed"
                        break
                    n += len(b)
            except OSError:
                pass
            got.append("%.1f MB %s" % (n / MB, end))
            s.close()
        return ("4 non-reading skin answers, idle-timeout 3s, 8 s later",
                "RSS %.0f -> %.0f MB; then readable: %s"
                % (base, held, ", ".join(got)))
    finally:
        d.cleanup()


def item6():
    """Slow request bodies."""
    flags = ("--data-dir", "", "--idle-timeout", "3s",
             "--max-connections", "20")
    try:
        d, note = daemon(*(flags + ("--body-timeout", "5s"))), "body-timeout 5s"
    except NotApplicable:
        d, note = daemon(*flags), "no --body-timeout flag"
    try:
        socks = []
        for _ in range(20):
            s = d.connect()
            s.sendall(b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\n"
                      b"Content-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n")
            socks.append(s)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            for s in socks:
                try:
                    s.sendall(b" ")
                except OSError:
                    pass
            time.sleep(1)
        alive = 0
        for s in socks:
            s.settimeout(0.2)
            try:
                if s.recv(1) == b"":
                    continue
                continue  # an answer (408) came: cut off
            except socket.timeout:
                alive += 1
            except OSError:
                pass
        try:
            st = d.request("GET", "/healthz", timeout=3)[0]
        except OSError as e:
            st = type(e).__name__
        for s in socks:
            s.close()
        return ("20 slow bodies (1 B/s), idle-timeout 3s, 10 s (%s)" % note,
                "%d of 20 still open; new client /healthz: %s" % (alive, st))
    finally:
        d.cleanup()


def item7():
    """Body buffers kept by idle keep-alive connections."""
    d = daemon("--demo", "--data-dir", "", "--max-body-size", str(64 << 20))
    try:
        body = b'{"skeleton":"demo-humanoid","frames":[]' + b" " * (24 << 20) \
            + b"}"
        base = rss(d)
        socks = []
        for _ in range(6):
            s = d.connect(20)
            s.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\n"
                      b"Content-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body)
            s.recv(65536)
            socks.append(s)
        time.sleep(1)
        after = rss(d)
        for s in socks:
            s.close()
        return ("6 keep-alive conns idle after a 24 MiB body each",
                "RSS %.0f -> %.0f MB held" % (base, after))
    finally:
        d.cleanup()


def item8():
    """A large JSON upload refused by the memory limit."""
    d = daemon("--data-dir", "", "--max-body-size", str(64 << 20),
               "--memory-limit", str(8 << 20))
    try:
        n = 1400000
        body = ('{"skeleton":' + json.dumps(rig("up")) +
                ',"clips":[{"name":"long","tracks":[{"joint":"mid","path":'
                '"translation","interpolation":"LINEAR","times":[' +
                ",".join(str(i) for i in range(n)) + '],"values":[' +
                ",".join(["0.0000001,1.0000001,0.0000001"] * n) +
                "]}]}]}").encode()
        base = rss(d)
        reset_peak(d.proc.pid)
        st = post(d, "/v1/assets", body, timeout=20)[0]
        time.sleep(1)
        return ("%.0f MiB JSON upload, memory limit 8 MiB"
                % (len(body) / 1048576.0),
                "status %d; RSS %.0f -> peak %.0f -> %.0f MB after"
                % (st, base, peak_rss(d.proc.pid) / MB, rss(d)))
    finally:
        d.cleanup()


def item9():
    """A tiny BVH announcing many frames of zero channels."""
    d = daemon("--data-dir", "")
    try:
        bvh = (b"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 0\n"
               b" End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\n"
               b"Frames: 10000000\nFrame Time: 0.03\n")
        base = rss(d)
        reset_peak(d.proc.pid)
        st = post(d, "/v1/assets", bvh, "application/x-bvh")[0]
        return ("BVH, CHANNELS 0, 1e7 frames (%d B)" % len(bvh),
                "status %d; RSS %.0f -> peak %.0f MB"
                % (st, base, peak_rss(d.proc.pid) / MB))
    finally:
        d.cleanup()


def item10():
    """One upload of many clips, with /healthz probed meanwhile."""
    d = daemon("--demo", "--data-dir", "", "--max-body-size", str(64 << 20))
    try:
        probe = HealthProbe(d.host, d.port)
        probe.start()
        time.sleep(0.3)
        t0 = time.monotonic()
        st = post(d, "/v1/assets", many_body(20000), timeout=20)[0]
        took = time.monotonic() - t0
        time.sleep(0.2)
        probe.stop()
        return ("one upload of 20000 clips",
                "status %d in %.2f s; /healthz worst %.0f ms"
                % (st, took, probe.worst(t0) * 1e3))
    finally:
        d.cleanup()


def md5mesh(verts):
    """An md5mesh of one joint and one mesh of verts vertices, one weight
    each."""
    out = ["MD5Version 10", "commandline \"\"", "numJoints 1", "numMeshes 1",
           "joints {", '\t"root" -1 ( 0 0 0 ) ( 0 0 0 )', "}", "mesh {",
           "\tshader \"s\"", "\tnumverts %d" % verts]
    out += ["\tvert %d ( 0 0 ) %d 1" % (i, i) for i in range(verts)]
    tris = verts // 3
    out.append("\tnumtris %d" % tris)
    out += ["\ttri %d %d %d %d" % (i, 3 * i, 3 * i + 1, 3 * i + 2)
            for i in range(tris)]
    out.append("\tnumweights %d" % verts)
    out += ["\tweight %d 0 1 ( %d 0 0 )" % (i, i % 100) for i in range(verts)]
    out.append("}")
    return ("\n".join(out) + "\n").encode()


def item11():
    """An md5mesh import's time."""
    d = daemon("--demo", "--data-dir", "")
    try:
        body = md5mesh(12000)
        t0 = time.monotonic()
        st, _, data = post(d, "/v1/assets", body, "application/x-md5mesh",
                           timeout=20)
        return ("md5mesh import of %.2f MB" % (len(body) / MB),
                "status %d in %.2f s" % (st, time.monotonic() - t0))
    finally:
        d.cleanup()


def item15():
    """Pose latency with many assets stored."""
    d = daemon("--demo", "--data-dir", "", "--max-body-size", str(64 << 20))
    try:
        def median_pose():
            lat = []
            for _ in range(100):
                t0 = time.monotonic()
                d.request("GET", "/v1/pose?clip=wave&t=0.5")
                lat.append(time.monotonic() - t0)
            return sorted(lat)[50] * 1e3
        few = median_pose()
        st = post(d, "/v1/assets", many_body(50000), timeout=20)[0]
        return ("pose median latency, demo vs +50000 assets (upload %d)" % st,
                "%.2f ms -> %.2f ms" % (few, median_pose()))
    finally:
        d.cleanup()


def item16():
    """SIGTERM drain bounded by --drain-timeout."""
    d = daemon("--demo", "--data-dir", "", "--drain-timeout", "2s",
               "--max-body-size", str(64 << 20))
    try:
        body = md5mesh(30000)
        s = d.connect(20)
        s.sendall(b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                  b"application/x-md5mesh\r\nContent-Length: %d\r\n\r\n"
                  % len(body) + body)
        time.sleep(0.5)
        t0 = time.monotonic()
        d.proc.send_signal(15)
        try:
            d.proc.wait(timeout=18)
            took = "exit after %.2f s" % (time.monotonic() - t0)
        except Exception:
            took = "still running after 18 s"
        s.close()
        return ("SIGTERM during a long import, drain-timeout 2s", took)
    finally:
        d.cleanup()


def item17():
    """UTF-8 of WebSocket error messages quoting client names."""
    d = daemon("--demo", "--data-dir", "")
    try:
        c = WsClient(d.host, d.port)
        name = "a" * 39 + "\u00e9" * 10
        c.send({"op": "pose", "id": 1, "clip": "wave", "t": 0, "wrap": name})
        c.send({"op": "pose", "id": 2, "clip": "wave", "t": 0, name: 1})
        time.sleep(1.5)
        with c.lock:
            texts = [p for _, op, p in c.messages if op == 1]
        c.close()
        if not texts:
            return ("ws errors quoting a wrap / key 'a'*39+'é'*10", "no text answer")
        bad = 0
        for p in texts:
            try:
                (p if isinstance(p, bytes) else str(p).encode()).decode()
            except UnicodeDecodeError:
                bad += 1
        return ("ws errors quoting a wrap / key 'a'*39+'é'*10",
                "%d of %d text messages invalid UTF-8" % (bad, len(texts)))
    finally:
        d.cleanup()


def item18():
    """A duration given as a bare number."""
    try:
        d = daemon("--data-dir", "", "--header-timeout", "2000")
    except NotApplicable:
        return ("--header-timeout 2000 (bare number)", "refused at start")
    try:
        s = d.connect(6)
        s.sendall(b"GET /healthz HTTP/1.1\r\n")
        t0 = time.monotonic()
        try:
            got = s.recv(100)
            what = "%r after %.1f s" % (got[:12], time.monotonic() - t0)
        except socket.timeout:
            what = "no answer within 6 s"
        s.close()
        return ("--header-timeout 2000, partial headers", what)
    finally:
        d.cleanup()


def item19():
    """HTTP strictness."""
    d = daemon("--data-dir", "")
    try:
        def status(req):
            r = d.raw(req, 5)
            return r.split(b"\r\n", 1)[0].split(b" ")[1].decode() if r \
                else "closed"
        host_ws = status(b"GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n")
        h2 = status(b"GET /healthz HTTP/2.0\r\nHost: localhost\r\n\r\n")
        cont = status(b"POST /nowhere HTTP/1.1\r\nHost: localhost\r\nContent-Length:"
                      b" 5\r\nExpect: 100-continue\r\n\r\n")
        return ("'Host : x' / HTTP/2.0 / Expect on 404",
                "%s / %s / first answer %s" % (host_ws, h2, cont))
    finally:
        d.cleanup()


def item20():
    """An upload interrupted by SIGKILL: all or nothing on disk."""
    tmp = tempfile.mkdtemp(prefix="animd-items-")
    data = os.path.join(tmp, "data")
    outcomes = []
    for i in range(5):
        d = daemon(data_dir=data, tmp=tmp)
        try:
            body = many_body(3000).replace(b'"many"', b'"m%d"' % i)
            s = d.connect(20)
            s.sendall(b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type:"
                      b" application/json\r\nContent-Length: %d\r\n\r\n"
                      % len(body) + body)
            time.sleep(0.05 + 0.12 * i)
            d.kill()
            s.close()
        finally:
            d.kill()
        d = daemon(data_dir=data, tmp=tmp)
        try:
            outcomes.append(len(d.json("GET", "/v1/assets")["clips"]))
        finally:
            d.cleanup()
        for f in os.listdir(data):
            os.unlink(os.path.join(data, f))
    shutil.rmtree(tmp, ignore_errors=True)
    partial = sum(1 for n in outcomes if 0 < n < 3000)
    return ("SIGKILL during a 3000-clip upload, restart, x5",
            "%d of 5 partly visible (clips: %s)" % (partial, outcomes))


def item21():
    """A FIFO in the data dir at start-up."""
    tmp = tempfile.mkdtemp(prefix="animd-items-")
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    os.mkfifo(os.path.join(data, "skeleton-" + "0" * 64 + ".json"))
    t0 = time.monotonic()
    try:
        d = Daemon(data_dir=data, tmp=tmp)
        what = "ready after %.2f s" % (time.monotonic() - t0)
        d.cleanup()
    except SystemExit:
        what = "not ready within 15 s"
    shutil.rmtree(tmp, ignore_errors=True)
    return ("FIFO named like an asset in the data dir", what)


def item22():
    """Time precision of wrap=loop."""
    d = daemon("--demo", "--data-dir", "")
    try:
        clips = d.json("GET", "/v1/assets")["clips"]
        dur = [c for c in clips if c.get("name") == "wave"][0]["duration"]
        worst = 0.0
        for t in (18.77, 3600.37, 86400.77):
            a = d.json("GET", "/v1/pose?clip=wave&wrap=loop&t=%r" % t)
            b = d.json("GET", "/v1/pose?clip=wave&t=%r" % (t % dur))
            worst = max(worst, max(abs(x - y) for x, y in
                                   zip(a["matrices"], b["matrices"])))
        return ("wrap=loop t=18.77/3600.37/86400.77 vs t mod duration",
                "max matrix difference %.2e" % worst)
    finally:
        d.cleanup()


def item23():
    """HEAD of a range."""
    d = daemon("--demo", "--data-dir", "", "--max-frames", "2000000")
    try:
        path = "/v1/pose?clip=wave&from=0&to=5000&fps=30&space=model"
        t0 = time.monotonic()
        st, h, _ = d.request("HEAD", path, timeout=20)
        head = time.monotonic() - t0
        t0 = time.monotonic()
        st2, _, body = d.request("GET", path, timeout=20)
        return ("HEAD vs GET of a 150k-frame range",
                "HEAD %d in %.3f s; GET %d in %.2f s (%.0f MB)"
                % (st, head, st2, time.monotonic() - t0, len(body) / MB))
    finally:
        d.cleanup()


ITEMS = [(1, item1), (2, item2), (3, item3), (4, item4), (5, item5),
         (6, item6), (7, item7), (8, item8), (9, item9), (10, item10),
         (11, item11), (15, item15), (16, item16), (17, item17),
         (18, item18), (19, item19), (20, item20), (21, item21),
         (22, item22), (23, item23)]


def main():
    only = set(int(x) for x in sys.argv[1:])
    print("binary: %s" % os.environ.get("ANIMD_BIN", "build/release/animd"))
    print("%-4s | %-55s | %s" % ("item", "scenario", "figure"), flush=True)
    for n, fn in ITEMS:
        if only and n not in only:
            continue
        t0 = time.monotonic()
        try:
            what, figure = fn()
        except NotApplicable as e:
            what, figure = fn.__doc__ or "", "n/a (%s)" % e
        except (Exception, SystemExit) as e:
            what, figure = fn.__doc__, "n/a (%s: %s)" % (type(e).__name__,
                                                str(e)[:120])
        print("%-4d | %-55s | %s  [%.1f s]" % (n, what, figure,
                                               time.monotonic() - t0),
              flush=True)


if __name__ == "__main__":
    main()
