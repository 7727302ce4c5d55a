#!/usr/bin/python3
"""Connections closed without an answer are counted by reason
(animd_http_closed_unanswered_total{reason=...} in /metrics,
docs/operations.md), and the limits that can answer do answer:

- every reason is listed at 0 on a fresh daemon;
- a body that trickles past body_timeout gets 408 with a JSON error at
  "body" (not a silent close), and is not counted;
- an idle keep-alive connection closed by idle_timeout is not counted;
- a client that resets its connection in the middle of a request's
  headers is counted as peer_reset;
- a client that asks for a large range and reads nothing is cut after
  idle_timeout without progress and counted as write_timeout.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import (Daemon, check, error_of, parse_responses,  # noqa: E402
                       read_all)

REASONS = ("peer_reset", "write_failed", "write_timeout", "aborted",
           "shutdown", "other")


def unanswered(d):
    st, _, body = d.request("GET", "/metrics")
    check(st == 200, "metrics %d" % st)
    out = {}
    for line in body.decode().splitlines():
        if line.startswith("animd_http_closed_unanswered_total{reason=\""):
            name = line.split('"')[1]
            out[name] = int(line.rsplit(" ", 1)[1])
    return out


def wait_count(d, reason, want):
    """Polls /metrics (bounded) until reason counts want; returns all."""
    deadline = time.time() + 20
    while True:
        got = unanswered(d)
        if got.get(reason) == want or time.time() > deadline:
            return got
        time.sleep(0.05)


d = Daemon("--demo", "--body-timeout", "1s", "--min-body-rate", "1048576",
           "--idle-timeout", "1500ms")
try:
    got = unanswered(d)
    check(sorted(got) == sorted(REASONS) and set(got.values()) == {0},
          "fresh daemon: %r" % got)

    # ---- a body trickling past body_timeout: 408 at body, not counted -----
    s = d.connect()
    s.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\n"
              b"Content-Type: application/json\r\nContent-Length: 64\r\n\r\n")
    s.settimeout(10)
    got = b""
    for i in range(40):  # a byte every 0.1 s: bounded, past the 1 s
        try:
            s.sendall(b" ")
        except OSError:
            break
        s.settimeout(0.1)
        try:
            part = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not part:
            break
        got += part
    s.settimeout(10)
    got += read_all(s)
    s.close()
    ans = parse_responses(got)
    check(ans and ans[0][0] == 408, "slow body: %r" % got[:80])
    check(ans[0][1].get("content-type", "").startswith("application/json"),
          "408 type %r" % ans[0][1])
    e = error_of(ans[0][2])
    check(e["code"] == "timeout" and e["at"] == "body", "408 error %r" % e)

    # ---- an idle keep-alive connection: closed, not counted ---------------
    s = d.connect()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    s.settimeout(10)
    check(s.recv(4096).startswith(b"HTTP/1.1 200"), "idle: first answer")
    check(read_all(s) == b"", "idle close")
    s.close()
    got = unanswered(d)
    check(set(got.values()) == {0}, "answered or idle counted: %r" % got)

    # ---- reset in the middle of the headers: peer_reset -------------------
    s = d.connect()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: local")
    time.sleep(0.2)  # read by the daemon before the reset (not a timing check)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()  # RST
    got = wait_count(d, "peer_reset", 1)
    check(got["peer_reset"] == 1, "reset mid-request: %r" % got)

    # ---- a large answer nobody reads: write_timeout ------------------------
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.connect((d.host, d.port))
    # 7001 frames of 512 vertices: 43 MB, far more than the sockets hold.
    s.sendall(b"GET /v1/skin?mesh=body&clip=wave&from=0&to=70&fps=100"
              b"&format=bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
    got = wait_count(d, "write_timeout", 1)
    s.close()
    check(got["write_timeout"] == 1, "unread answer: %r" % got)
    check(d.alive(), "daemon alive")
    st, _, _ = d.request("GET", "/healthz")
    check(st == 200, "healthz after: %d" % st)
    print("ok: 408 answered, idle not counted, peer_reset and write_timeout "
          "counted")
finally:
    d.stop()
    d.cleanup()
