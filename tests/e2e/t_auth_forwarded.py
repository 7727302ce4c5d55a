#!/usr/bin/python3
"""Behind a trusted proxy on loopback (--trusted-proxies 127.0.0.1), the
write policy and the rate limits follow the client the proxy forwards, not
the listen address. Before, a client forwarded as 203.0.113.7 made
anonymous uploads and deletes (201, 200), was never rate limited, and the
access log showed only 127.0.0.1. Now, without a tokens file: forwarded
from beyond loopback, writes get 403 forbidden and count against that
client's write rate limit (429 beyond it); forwarded from loopback (or not
forwarded), writes are open and unlimited; the access log names the
forwarded client and the proxy."""
import os
import re
import shutil
import tempfile
import time

from animd_e2e import Daemon, check, demo_asset, error_of

REMOTE = {"X-Forwarded-For": "203.0.113.7"}


def wait_for(path, pattern, seconds=5):
    deadline = time.time() + seconds
    text = ""
    while time.time() < deadline:
        if os.path.exists(path):
            text = open(path, errors="replace").read()
            if re.search(pattern, text, re.M):
                return True, text
        time.sleep(0.05)
    return False, text


def main():
    tmp = tempfile.mkdtemp(prefix="animd-e2e-")
    log = os.path.join(tmp, "access.log")
    d = Daemon("--demo", "--trusted-proxies", "127.0.0.1", "--write-rate",
               "1/h", "--write-burst", "2", "--access-log", log, tmp=tmp)
    try:
        st, _, body = d.request("POST", "/v1/assets", demo_asset(),
                                headers=REMOTE)
        check(st == 403, "anonymous upload forwarded from 203.0.113.7: %d %r"
              % (st, body[:200]))
        e = error_of(body)
        check(e["code"] == "forbidden" and "beyond loopback" in e["message"],
              e)
        st, _, _ = d.request("DELETE", "/v1/clips/wave", headers=REMOTE)
        check(st == 403, "anonymous delete forwarded: %d" % st)
        # Its write rate limit (burst 2) is spent: 429, with Retry-After.
        st, h, _ = d.request("DELETE", "/v1/clips/wave", headers=REMOTE)
        check(st == 429 and "retry-after" in h, "third write: %d" % st)
        # The clip is still there.
        st, _, _ = d.request("GET", "/v1/clips/wave")
        check(st == 200, "wave after refused deletes: %d" % st)
        # A client forwarded from loopback, or not forwarded: open, and
        # not rate limited (more writes than the burst).
        for i in range(4):
            st, _, body = d.request("DELETE", "/v1/clips/nope%d" % i,
                                    headers={"X-Forwarded-For": "127.0.0.1"})
            check(st == 404, "delete forwarded from loopback: %d" % st)
        st, _, body = d.request("POST", "/v1/assets", demo_asset(),
                                headers={"X-Forwarded-For": "127.0.0.1"})
        check(st == 201, "upload forwarded from loopback: %d %r"
              % (st, body[:200]))
        st, _, _ = d.request("POST", "/v1/assets", demo_asset())
        check(st in (200, 201), "upload on loopback: %d" % st)
        ok, text = wait_for(log, r'^\S+ 203\.0\.113\.7 via 127\.0\.0\.1:\d+ - '
                                 r'"POST /v1/assets HTTP/1\.1" 403 ')
        check(ok, "the forwarded client is not in the log:\n" + text)
        ok, text = wait_for(log, r'^\S+ 127\.0\.0\.1:\d+ - '
                                 r'"POST /v1/assets HTTP/1\.1" 20[01] ')
        check(ok, "a direct client's line:\n" + text)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
