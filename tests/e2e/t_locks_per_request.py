"""What a request locks on the HTTP loop that serves it: the daemon runs
with the lock-counting preload (tests/locks/lock_count.c) and one HTTP
loop, serves 100 and then 1,100 binary poses on one keep-alive connection
with the access log on, and the difference of the loop's lock counts over
1,000 requests is its locks per request. Metrics and access log lines are
the loop's own (nothing shared, no lock), and the store's lookups of the
skeleton and of the clip are answered by the loop thread's lookup cache
(store_find_cached: an acquire load of the store's generation, no lock),
so a pose takes none: 0 per pose. What remains shared per request is the
atomic retain and release of the two assets the request holds (a count
on each asset, not a lock); the lock is taken again only when the store
changes, once per lookup key per loop. Release build only (a sanitizer's
runtime must be the first library)."""
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from animd_e2e import BIN, check

build = os.path.dirname(os.path.abspath(BIN))
preload = os.path.join(build, "lock_count.so")
if not os.path.exists(preload):
    print("skipped: %s is not built (release builds only)" % preload)
    sys.exit(77)

PAD_S = 2.0


def loop_locks(requests):
    """The HTTP loop thread's lock count over a run of `requests` poses,
    padded to the same wall time whatever the count."""
    tmp = tempfile.mkdtemp(prefix="animd-locks-")
    ready = os.path.join(tmp, "addr")
    env = dict(os.environ, LD_PRELOAD=preload)
    p = subprocess.Popen(
        [BIN, "--listen", "127.0.0.1:0", "--ready-file", ready, "--demo",
         "--http-threads", "1", "--workers", "1",
         "--access-log", os.path.join(tmp, "access.log")],
        env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 10
        while time.time() < deadline and not (
                os.path.exists(ready) and os.path.getsize(ready) > 0):
            time.sleep(0.02)
        host, port = open(ready).read().strip().rsplit(":", 1)
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        t0 = time.time()
        for i in range(requests):
            c.request("GET", "/v1/pose?skeleton=demo-humanoid&clip=wave"
                      "&t=%.3f&format=bin" % (i % 100 / 100))
            r = c.getresponse()
            r.read()
            check(r.status == 200, "pose %d: %d" % (i, r.status))
        c.close()
        time.sleep(max(0.0, PAD_S - (time.time() - t0)))
    finally:
        p.send_signal(signal.SIGTERM)
        err = p.communicate(timeout=20)[1].decode()
        shutil.rmtree(tmp, ignore_errors=True)
    line = [x for x in err.splitlines() if x.startswith("locks: ")]
    check(len(line) == 1, "no lock count from the preload: %r" % err[-400:])
    fields = dict(kv.split("=") for kv in line[0][7:].split())
    return int(fields["main"])


few, many = loop_locks(100), loop_locks(1100)
per_request = (many - few) / 1000.0
print("locks per binary pose on the HTTP loop: %.3f (%d over 1,000 "
      "requests)" % (per_request, many - few))
check(-0.1 <= per_request <= 0.1,
      "expected no lock per pose (cached lookups), got %.3f" % per_request)
print("ok")
