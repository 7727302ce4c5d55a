#!/usr/bin/python3
"""Hardening against careless and hostile clients, on the real daemon:

- answers to clients that stop reading: a connection that makes no write
  progress for the idle timeout is closed, and its answer's memory is
  given back (RSS measured from /proc);
- slow bodies: one byte every 0.5 s cannot hold a connection open past
  body_timeout (+ size at min_body_rate): 408 at "body", and the slots come
  back (no 503 for a new client);
- keep-alive connections do not keep a large body's buffer after their
  answer (RSS after 8 idle connections that each sent 8 MiB);
- a 1-byte WebSocket close payload is answered 1002.
"""
import os
import socket
import struct
import time

from animd_e2e import (Daemon, check, parse_responses, error_of,
                       metric_in, read_all)


def rss(d):
    with open("/proc/%d/status" % d.proc.pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def metric(d, name):
    st, _, body = d.request("GET", "/metrics")
    check(st == 200, "metrics: %d" % st)
    v = metric_in(body, name)
    check(v is not None, "no metric " + name)
    return v


# Under a sanitizer the allocator keeps freed memory in quarantine: RSS
# says nothing about what the daemon gives back there.
SANITIZED = any(k in os.environ.get("ANIMD_BIN", "") for k in ("/asan/",
                                                               "/tsan/"))


def main():
    d = Daemon("--demo", "--idle-timeout", "2s", "--body-timeout", "2s",
               "--min-body-rate", "1M", "--max-connections", "40",
               "--access-log", "")
    try:
        base = rss(d)

        # ---- clients that do not read a large answer -------------------------
        # 8 JSON skin ranges (each about 7 MB) to sockets that read nothing.
        target = ("/v1/skin?mesh=body&clip=wave&from=0&to=10&fps=60")
        socks = []
        for _ in range(8):
            s = d.connect()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % target).encode())
            socks.append(s)
        time.sleep(1.0)
        held = rss(d) - base
        # Backpressure holds at most about high water + a batch per client.
        check(SANITIZED or held < 64 << 20,
              "8 non-reading ranges hold %d bytes" % held)
        # Nothing read for twice the idle timeout: the daemon has closed
        # every one (its own count of open connections is the /metrics
        # request's alone).
        time.sleep(4.0)
        open_now = metric(d, "animd_open_connections")
        check(open_now == 1, "%d connections still open after 4 s of "
              "stalled writes" % (open_now - 1))
        for s in socks:
            s.close()
        check(SANITIZED or rss(d) - base < 64 << 20, "memory held after the "
              "stalled connections closed: %d" % (rss(d) - base))

        # ---- slow bodies -------------------------------------------------------
        slow = []
        for _ in range(30):
            s = d.connect()
            s.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\n"
                      b"Content-Length: 100\r\n\r\n{")
            slow.append(s)
        t0 = time.time()
        # Trickle one byte every 0.5 s: bytes do not extend the deadline.
        for _ in range(8):
            for s in slow:
                try:
                    s.send(b" ")
                except OSError:
                    pass
            time.sleep(0.5)
        answered = 0
        for s in slow:
            s.settimeout(5)
            got = read_all(s)
            ans = parse_responses(got)
            if ans and ans[0][0] == 408 and error_of(ans[0][2])["at"] == "body":
                answered += 1
            s.close()
        check(answered == 30, "slow bodies: %d of 30 got 408 at body" %
              answered)
        check(time.time() - t0 < 12, "slow bodies took %.1f s" %
              (time.time() - t0))
        # The slots are free again.
        st, _, _ = d.request("GET", "/healthz")
        check(st == 200, "healthz after slow bodies: %d" % st)

        # ---- keep-alive connections give a big body's buffer back ---------------
        before = rss(d)
        body = b"x" * (8 << 20)  # 8 MiB, refused (415) once read
        keep = []
        for _ in range(8):
            s = d.connect()
            s.sendall(b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\n"
                      b"Content-Type: application/x-unknown\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body)
            keep.append(s)
        for s in keep:
            s.settimeout(20)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                check(chunk, "keep-alive: connection closed early")
                data += chunk
        time.sleep(0.3)
        grown = rss(d) - before
        check(SANITIZED or grown < 24 << 20,
              "8 idle keep-alive connections after 8 MiB bodies hold %d "
              "bytes more" % grown)
        for s in keep:
            s.close()

        # ---- WebSocket: a 1-byte close payload is a protocol error -------------
        s = d.connect()
        s.sendall(b"GET /v1/stream HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
                  b"Connection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  b"Sec-WebSocket-Version: 13\r\n\r\n")
        s.settimeout(5)
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        check(head.startswith(b"HTTP/1.1 101"), "upgrade: %r" % head[:40])
        rest = head.split(b"\r\n\r\n", 1)[1]
        mask = b"\x01\x02\x03\x04"
        s.sendall(b"\x88\x81" + mask + bytes([0x03 ^ mask[0]]))
        data = rest + read_all(s)
        check(len(data) >= 4 and data[0] == 0x88, "no close frame: %r" %
              data[:8])
        code = struct.unpack(">H", data[2:4])[0]
        check(code == 1002, "close code %d, want 1002" % code)
        s.close()

        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
    print("ok")


if __name__ == "__main__":
    main()
