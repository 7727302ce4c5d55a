#!/usr/bin/python3
"""Loop stalls under heavy requests, measured (make abuse; not a test).

One daemon ($ANIMD_BIN, release build) with two workers and one stream
loop. For each heavy request below, a thread asks GET /healthz back to back
on a keep-alive connection and a WebSocket client plays a 60 fps pose
stream on the stream loop; the script prints the worst /healthz latency,
the longest gap between stream frames while the request runs, the
request's own time and the daemon's peak RSS (VmHWM, reset before each).

  solve      POST /v1/solve with a 60 MiB body (demo skeleton, 17 joints)
  ws-mesh    10 one-shot WebSocket pose messages on a mesh of MESH_VERTICES
             vertices (JSON answers), from a client on the stream loop
  ws-http    6 such messages on a WebSocket whose upgrade was pipelined
             behind a plain request (the connection starts on the HTTP loop)
  clip       GET /v1/clips/{id} of a clip of CLIP_KEYS keys
  delete     DELETE of that clip (unlink and fsync of the data dir)
  assets     GET /v1/assets with LIST_ASSETS assets stored (on a second
             daemon with its store in memory: a file each would take
             minutes to write)

Sizes: MESH_VERTICES (300000), CLIP_KEYS (2000000), LIST_ASSETS (200000),
SOLVE_MIB (60). Every wait is bounded; only 127.0.0.1 is contacted.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from animd_e2e import Daemon, check  # noqa: E402
from stall_probe import (HealthProbe, StreamGap, WsClient,  # noqa: E402
                         clip_body, many_body, mesh_body, peak_rss,
                         reset_peak, solve_body, upload)

MESH_VERTICES = int(os.environ.get("MESH_VERTICES", "300000"))
CLIP_KEYS = int(os.environ.get("CLIP_KEYS", "2000000"))
LIST_ASSETS = int(os.environ.get("LIST_ASSETS", "200000"))
SOLVE_MIB = int(os.environ.get("SOLVE_MIB", "60"))


def measure(d, name, heavy):
    """Runs heavy() with the probes on; returns the row of figures."""
    probe = HealthProbe(d.host, d.port)
    probe.start()
    gap = StreamGap(d.host, d.port)
    time.sleep(0.5)
    reset_peak(d.proc.pid)
    t0 = time.monotonic()
    detail = heavy()
    took = time.monotonic() - t0
    # The loops must have caught up: a probe after the request.
    time.sleep(0.2)
    row = (name, probe.worst(t0) * 1e3, gap.worst_gap(t0) * 1e3, took,
           peak_rss(d.proc.pid) / 1e6, detail)
    print(ROW % row, flush=True)
    gap.close()
    probe.stop()
    check(probe.errors == 0, "%s: /healthz failed %d times" % (name,
                                                               probe.errors))
    return row


def mesh_poses(d, count, before=b""):
    def run():
        c = WsClient(d.host, d.port, before=before)
        for i in range(count):
            c.send({"op": "pose", "id": i + 1, "mesh": "big", "clip": "wiggle",
                    "t": 0.1 * i})
        got = c.wait_count(count, 300)
        c.close()
        # Before the poses left the loop, a client that could not read
        # their answers as fast as they were made was cut off (1008).
        return "%d of %d answered%s" % (got, count, "" if got == count else
                                        ", then closed")
    return run


ROW = "%-8s %14.1f %14.1f %10.2f %12.0f  %s"


def flags():
    return ("--demo", "--stream-threads", "1", "--access-log", "",
            "--max-body-size", "%dMiB" % max(128, SOLVE_MIB + 4),
            "--idle-timeout", "120s")


def main():
    print("binary: %s" % os.environ.get("ANIMD_BIN", "build/release/animd"))
    print("%-8s %14s %14s %10s %12s  %s" % ("request", "healthz max ms",
                                           "stream gap ms", "took s",
                                           "peak RSS MB", "what"), flush=True)
    d = Daemon(*flags())
    try:
        upload(d, mesh_body(MESH_VERTICES))
        sk = d.json("GET", "/v1/skeletons/stall-rig")["id"]
        clip_id = upload(d, clip_body(CLIP_KEYS),
                         "?skeleton=" + sk)["clips"][0]["id"]
        sbody, frames = solve_body(d, SOLVE_MIB << 20)

        def solve():
            st, _, data = d.request("POST", "/v1/solve", sbody,
                                    {"Content-Type": "application/json"},
                                    timeout=300)
            check(st == 200, "solve: %d %s" % (st, data[:200]))
            return "%d frames, %.0f MB answer" % (frames, len(data) / 1e6)

        def delete():
            st, _, data = d.request("DELETE", "/v1/clips/" + clip_id,
                                    timeout=300)
            check(st == 200, "delete: %d %s" % (st, data[:200]))
            return "clip of %d keys" % CLIP_KEYS

        pipelined = ("GET /v1/skin?mesh=big&clip=wiggle&t=0 HTTP/1.1\r\n"
                     "Host: localhost\r\n\r\n").encode()
        measure(d, "solve", solve)
        measure(d, "ws-mesh", mesh_poses(d, 10))
        measure(d, "ws-http", mesh_poses(d, 6, pipelined))
        measure(d, "clip", get(d, "/v1/clips/" + clip_id))
        measure(d, "delete", delete)
    finally:
        d.cleanup()
    d = Daemon(*(flags() + ("--data-dir", "")))
    try:
        upload(d, many_body(LIST_ASSETS))
        measure(d, "assets", get(d, "/v1/assets"))
    finally:
        d.cleanup()


def get(d, path):
    def run():
        st, _, data = d.request("GET", path, timeout=300)
        check(st == 200, "%s: %d" % (path, st))
        return "%.0f MB answer" % (len(data) / 1e6)
    return run


if __name__ == "__main__":
    main()
