#!/usr/bin/python3
"""Per-address rate limits against the real daemon: writes beyond the
burst get 429 with Retry-After, then pass again once it has passed; new
connections beyond theirs get 429 at accept, then pass again; both counted
in /metrics. X-Forwarded-For picks the client only from a trusted proxy:
from 127.0.0.1 listed in trusted_proxies each forwarded client has its own
bucket; from an untrusted peer the header changes nothing."""
import re
import socket
import time

from animd_e2e import Daemon, check, error_of, read_all


def delete(d, xff=None):
    headers = {"X-Forwarded-For": xff} if xff else {}
    return d.request("DELETE", "/v1/clips/nope", headers=headers)


def wait_until_allowed(fn, seconds):
    """Calls fn until it is not 429, for at most seconds (bounded)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        st = fn()
        if st != 429:
            return st
        time.sleep(0.25)
    return 429


def metric(d, name):
    """A counter of /metrics (asking again while the connection itself is
    rate limited, for at most 10 s)."""
    deadline = time.time() + 10
    while True:
        st, _, body = d.request("GET", "/metrics")
        if st != 429 or time.time() > deadline:
            break
        time.sleep(0.25)
    m = re.search(re.escape(name).encode() + rb" (\d+)", body)
    return int(m.group(1)) if m else -1


def main():
    # Writes: 2 at once, then one every 2 s.
    d = Daemon("--rate-limits", "on", "--write-rate", "30/min",
               "--write-burst", "2", "--connection-rate", "0")
    try:
        for i in range(2):
            st, _, _ = delete(d)
            check(st == 404, "write %d within the burst: %d" % (i, st))
        st, h, body = delete(d)
        check(st == 429, "write beyond the burst: %d" % st)
        check(error_of(body)["code"] == "rate_limited", body)
        retry = int(h.get("retry-after", "0"))
        check(1 <= retry <= 2, "Retry-After: %r" % h.get("retry-after"))
        # Reads are not limited.
        for _ in range(5):
            st, _, _ = d.request("GET", "/v1/assets")
            check(st == 200, "read: %d" % st)
        time.sleep(retry)
        st = wait_until_allowed(lambda: delete(d)[0], 10)
        check(st == 404, "write after Retry-After: %d" % st)
        check(metric(d, 'animd_rate_limited_total{kind="write"}') >= 1,
              "write refusals not counted")
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()

    # Connections: 3 at once, then one every 2 s; 429 at accept.
    d = Daemon("--rate-limits", "on", "--connection-rate", "30/min",
               "--connection-burst", "3")
    try:
        socks = [d.connect() for _ in range(3)]
        # Each answered once, so each was admitted (one HTTP loop per CPU
        # accept in parallel: unanswered, a later connection could be
        # admitted first).
        for k in socks:
            k.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            k.settimeout(10)
            got = k.recv(4096)
            check(got.startswith(b"HTTP/1.1 200 "), "connection within "
                  "the burst: %r" % got[:40])
        s = d.connect()
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        data = read_all(s)
        s.close()
        check(data.startswith(b"HTTP/1.1 429 "), "4th connection: %r"
              % data[:80])
        check(b"\r\nRetry-After: 1\r\n" in data, data[:300])
        check(b'"rate_limited"' in data, data)
        for s in socks:
            s.close()
        st = wait_until_allowed(lambda: d.request("GET", "/healthz")[0], 10)
        check(st == 200, "connection after the wait: %d" % st)
        check(metric(d, 'animd_rate_limited_total{kind="connection"}') >= 1,
              "connection refusals not counted")
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()

    # X-Forwarded-For from a trusted proxy (127.0.0.1 here): per client.
    # Forwarded clients beyond loopback may write without tokens only with
    # allow_anonymous_writes (t_auth_forwarded.py).
    d = Daemon("--rate-limits", "on", "--write-rate", "1/h", "--write-burst",
               "1", "--trusted-proxies", "127.0.0.1, 10.0.0.0/8",
               "--allow-anonymous-writes")
    try:
        st, _, _ = delete(d, "203.0.113.10")
        check(st == 404, "client A, first write: %d" % st)
        st, _, _ = delete(d, "203.0.113.10")
        check(st == 429, "client A, second write: %d" % st)
        st, _, _ = delete(d, "203.0.113.11")
        check(st == 404, "client B has its own bucket: %d" % st)
        # What a client writes left of the proxies' entries is not believed.
        st, _, _ = delete(d, "198.51.100.1, 203.0.113.10, 10.1.2.3")
        check(st == 429, "spoofed left entry, client A again: %d" % st)
        st, _, _ = delete(d)  # no header: the proxy itself
        check(st == 404, "the proxy's own bucket: %d" % st)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()

    # The same from an untrusted peer: the header is ignored.
    d = Daemon("--rate-limits", "on", "--write-rate", "1/h", "--write-burst",
               "1", "--trusted-proxies", "10.0.0.0/8")
    try:
        st, _, _ = delete(d, "203.0.113.10")
        check(st == 404, "first write: %d" % st)
        st, _, _ = delete(d, "203.0.113.11")
        check(st == 429, "X-Forwarded-For from an untrusted peer was "
              "honoured: %d" % st)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
    print("ok")


if __name__ == "__main__":
    main()
