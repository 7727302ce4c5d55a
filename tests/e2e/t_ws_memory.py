#!/usr/bin/python3
"""Memory goes back after WebSocket mesh poses: a 250k-vertex mesh is
uploaded, 32 one-shot poses of it at distinct times are answered (JSON)
over one WebSocket (their frames fill the stream loop's frame cache, about
100 MB), then the client closes. Before, the frames were dropped from the
cache after 2 s idle but glibc kept their memory in the stream loop's
arena, and the loop kept its largest message buffer: 10 s after the close
RSS stayed 27 to 45 MB above its level after the upload (18 -> 110 -> 45
to 63 MB). Now the loop's sweep gives it back (malloc_trim on a worker):
RSS comes back within 12 MB of it (what stays is the workers' evaluation
scratch, sized for the largest mesh). Skipped under a sanitizer (its
allocator quarantines freed memory)."""
import os
import sys
import time

from animd_e2e import Daemon, check
from stall_probe import WsClient, mesh_body, status_bytes

MB = 1 << 20
POSES = 32
FIG = [0, 0, 0]


def main():
    if any(k in os.environ.get("ANIMD_BIN", "") for k in ("/asan/",
                                                          "/tsan/")):
        print("skipped: RSS says nothing under a sanitizer")
        sys.exit(77)
    d = Daemon("--data-dir", "", "--max-body-size", str(64 << 20),
               "--stream-threads", "1", "--access-log", "")
    try:
        def rss():
            return status_bytes(d.proc.pid, "VmRSS")
        st, _, _ = d.request("POST", "/v1/assets", mesh_body(250000),
                             {"Content-Type": "application/json"},
                             timeout=60)
        check(st == 201, "upload: %d" % st)
        time.sleep(0.5)
        uploaded = rss()
        c = WsClient(d.host, d.port)
        got = 0
        for i in range(POSES):  # one at a time: the client reads them all
            c.send({"op": "pose", "id": i + 1, "mesh": "big",
                    "clip": "wiggle", "t": 0.03 * i})
            got = c.wait_count(i + 1, 30)
            if got <= i:
                break
        check(got == POSES, "%d of %d poses answered" % (got, POSES))
        peak = rss()
        c.close()
        check(peak > uploaded + 20 * MB,
              "the poses did not grow the cache: %.0f -> %.0f MB"
              % (uploaded / MB, peak / MB))
        # The sweep drops frames idle for 2 s, once a second: bounded wait.
        deadline = time.time() + 10
        after = rss()
        while time.time() < deadline and after > uploaded + 12 * MB:
            time.sleep(0.25)
            after = rss()
        check(after <= uploaded + 12 * MB,
              "RSS %.0f MB after the upload, %.0f MB after the poses, "
              "%.0f MB 10 s after the close" % (uploaded / MB, peak / MB,
                                                 after / MB))
        FIG[:] = [uploaded, peak, after]
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
    print("ok: RSS %.0f MB after the upload, %.0f MB after the poses, %.0f "
          "MB after the close" % (FIG[0] / MB, FIG[1] / MB, FIG[2] / MB))


if __name__ == "__main__":
    main()
