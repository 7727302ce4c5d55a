"""Overload and memory bounds: a full worker queue answers 503 with
Retry-After (and the refusals are counted in /metrics), the store's memory
limit answers 507 and stores nothing, and a long range read slowly keeps
the daemon's memory bounded (backpressure, not buffering)."""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, demo_asset, error_of  # noqa: E402


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# ---- a full queue: 503 + Retry-After ----------------------------------------------
d = Daemon("--inline-cost", "0", "--queue-max", "1", "--workers", "1")
try:
    up = d.json("POST", "/v1/assets", demo_asset(), expect=201)
    clip = up["clips"][0]["id"]
    statuses = []
    lock = threading.Lock()

    # A 1000-joint skeleton's pose in JSON takes the worker a while; many
    # clients at once overflow the one-slot queue.
    big = {"skeleton": {"name": "big", "joints": [
        {"name": "j%d" % i, "parent": i - 1, "translation": [0, 0.01, 0]}
        for i in range(1000)]}}
    big_id = d.json("POST", "/v1/assets", big, expect=201)["skeletons"][0]["id"]

    def singles():
        for i in range(40):
            st, h, body = d.request("GET", "/v1/pose?skeleton=%s&t=0.%d"
                                    % (big_id, i))
            with lock:
                statuses.append((st, h.get("retry-after"), body))

    ths = [threading.Thread(target=singles) for _ in range(8)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(60)
    codes = [s for s, _, _ in statuses]
    check(set(codes) <= {200, 503}, "statuses %r" % set(codes))
    check(codes.count(200) > 0, "some answered")
    refused = [(s, ra, b) for s, ra, b in statuses if s == 503]
    check(len(refused) > 0, "no 503 with a 1-slot queue and 8 clients")
    for s, ra, b in refused:
        check(ra == "1" and error_of(b)["code"] == "overloaded", "503 form")
    st, _, m = d.request("GET", "/metrics")
    line = [l for l in m.decode().split("\n")
            if l.startswith("animd_pool_rejected_total ")]
    check(line and int(line[0].split()[1]) == len(refused),
          "pool_rejected_total %r vs %d" % (line, len(refused)))
    check(d.stop() == 0, "clean exit")
finally:
    d.cleanup()

# ---- the store's memory limit: 507, nothing stored ------------------------------
d = Daemon("--memory-limit", "100")
try:
    st, _, body = d.request("POST", "/v1/assets", demo_asset())
    check(st == 507, "memory limit: %d %s" % (st, body[:200]))
    check(error_of(body)["code"] == "insufficient_storage", "507 code")
    lst = d.json("GET", "/v1/assets")
    check(lst == {"skeletons": [], "clips": [], "meshes": []}, "nothing stored")
    check(os.listdir(d.data_dir) == [], "no files: %r" % os.listdir(d.data_dir))
    check(d.stop() == 0, "clean exit")
finally:
    d.cleanup()

# ---- a slow reader of a long range: bounded memory ----------------------------------
d = Daemon("--stream-high-water", "64k")
try:
    up = d.json("POST", "/v1/assets", demo_asset(), expect=201)
    clip = up["clips"][0]["id"]
    base = rss_kb(d.proc.pid)
    s = d.connect()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # 100,000 frames of 16 + 64 * 4 bytes: 27 MB if it were buffered.
    s.sendall(b"GET /v1/pose?clip=%s&from=0&to=99999&fps=1&format=bin "
              b"HTTP/1.1\r\nHost: localhost\r\n\r\n" % clip.encode())
    got = 0
    peak = base
    t_end = time.time() + 1.5
    while time.time() < t_end:
        got += len(s.recv(2048))
        peak = max(peak, rss_kb(d.proc.pid))
        time.sleep(0.01)
    s.close()
    check(got > 0, "range started at once")
    check(peak - base < 16 * 1024, "memory grew by %d kB" % (peak - base))
    # Other clients are served meanwhile and after.
    check(d.json("GET", "/v1/pose?clip=%s&t=1" % clip)["joints"] == 4, "pose")
    check(d.stop() == 0, "clean exit")
    print("ok: %d refused with 503, range memory +%d kB" % (len(refused),
                                                          peak - base))
finally:
    d.cleanup()
