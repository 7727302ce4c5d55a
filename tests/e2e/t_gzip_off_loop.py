#!/usr/bin/python3
"""gzip does not stall the HTTP loop (issue 29, item 9), on the real
daemon: a large gzip-coded JSON skin answer is streamed (chunked, a slice
deflated per turn) rather than deflated whole on the loop, and inflates
(zlib, an independent inflater) to exactly the identity answer; so does a
gzip-coded JSON range whose frames are each larger than a slice (deflated
on the worker that made them). While four clients fetch such answers,
/healthz on another connection is answered within a generous bound; the
worst latency is printed.
"""
import http.client
import threading
import time
import zlib

from animd_e2e import Daemon, check
from stall_probe import HealthProbe, mesh_body, upload

V = 150000
BOUND = 0.5


def get(d, path, gzip):
    conn = http.client.HTTPConnection(d.host, d.port, timeout=120)
    try:
        conn.request("GET", path,
                     headers={"Accept-Encoding": "gzip"} if gzip else {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def same_inflated(d, path):
    st, _, plain = get(d, path, False)
    check(st == 200, "%s: %d" % (path, st))
    st, h, coded = get(d, path, True)
    check(st == 200 and h.get("content-encoding") == "gzip",
          "%s: not gzip-coded: %r" % (path, h))
    check(h.get("transfer-encoding") == "chunked" and
          "content-length" not in h,
          "%s: a gzip-coded answer of %d bytes was not streamed: %r"
          % (path, len(plain), h))
    check(zlib.decompress(coded, 16 + 15) == plain,
          "%s: gzip differs from the identity answer" % path)
    print("%s: %d bytes, gzip %d" % (path[:60], len(plain), len(coded)))
    return len(plain)


def main():
    d = Daemon("--access-log", "", "--data-dir", "", "--max-body-size",
               str(256 << 20), "--idle-timeout", "120s")
    try:
        upload(d, mesh_body(V))
        skin = "/v1/skin?skeleton=stall-rig&mesh=big,big,big&clip=wiggle&t=0.5"
        size = same_inflated(d, skin)
        check(size > 8 << 20, "the answer is only %d bytes" % size)
        same_inflated(d, "/v1/skin?mesh=big&clip=wiggle&from=0&to=1&fps=3")
        # A small JSON answer is still deflated whole (Content-Length).
        st, h, _ = get(d, "/v1/skeletons/stall-rig", True)
        check(st == 200 and "content-length" in h, "small answer: %r" % h)

        probe = HealthProbe(d.host, d.port)
        probe.start()
        try:
            time.sleep(0.3)
            t0 = time.monotonic()
            results = []

            def client():
                results.append(get(d, skin, True)[0])
            threads = [threading.Thread(target=client) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            time.sleep(0.1)
            worst = probe.worst(t0)
            n = len(probe.latencies(t0))
        finally:
            probe.stop()
        print("4 clients x %.0f MB gzip: /healthz worst %.0f ms over %d "
              "probes" % (size / 1e6, worst * 1e3, n))
        check(results == [200] * 4, "answers %r" % results)
        check(n > 0 and probe.errors == 0, "/healthz failed")
        check(worst < BOUND, "/healthz waited %.0f ms" % (worst * 1e3))
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()


if __name__ == "__main__":
    main()
