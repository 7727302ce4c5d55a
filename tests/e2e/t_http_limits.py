"""HTTP/1.1 behaviour and limits against the real daemon, with raw sockets:
pipelining answered in order, a slow client, Expect: 100-continue, chunked
bodies, HTTP/1.0, and every limit configured small and checked: header
size (431), body size (413 from Content-Length before the body is sent, and
for chunked bodies), header timeout (408), idle timeout (close), max
connections (503 + close). The daemon must still answer afterwards."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import (Daemon, check, error_of, parse_responses,  # noqa: E402
                       read_all)

d = Daemon("--max-header-size", "1024", "--max-body-size", "4096",
           "--header-timeout", "700ms", "--idle-timeout", "1500ms",
           "--body-timeout", "1500ms",
           "--max-connections", "8")
try:
    # ---- pipelining: 50 requests in one write, answers in order ------------
    reqs = b""
    for i in range(50):
        if i % 3 == 0:
            reqs += b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
        elif i % 3 == 1:
            reqs += b"GET /nope/%d HTTP/1.1\r\nHost: localhost\r\n\r\n" % i
        else:
            reqs += (b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\n"
                     b"Content-Length: 5\r\n\r\n{bad}")
    reqs += b"GET /v1/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    answers = parse_responses(d.raw(reqs))
    check(len(answers) == 51, "pipelined answers: %d" % len(answers))
    for i, (st, h, body) in enumerate(answers[:50]):
        want = [200, 404, 400][i % 3]
        check(st == want, "pipelined #%d: %d != %d" % (i, st, want))
        if i % 3 == 1:
            check(b"/nope/%d" % i in body, "answer %d out of order" % i)
    check(answers[50][0] == 200 and b'"version"' in answers[50][2],
          "last pipelined answer")

    # ---- a slow client: one byte at a time ----------------------------------
    s = d.connect()
    for ch in b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n":
        s.send(bytes([ch]))
        time.sleep(0.005)
    s.settimeout(5)
    got = s.recv(4096)
    check(got.startswith(b"HTTP/1.1 200"), "slow client: %r" % got[:40])
    s.close()

    # ---- Expect: 100-continue, then the body ----------------------------------
    s = d.connect()
    s.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
              b"Content-Type: application/json\r\nExpect: 100-continue\r\n\r\n")
    s.settimeout(5)
    interim = s.recv(4096)
    check(interim == b"HTTP/1.1 100 Continue\r\n\r\n", "100: %r" % interim)
    s.sendall(b"{}")
    st, h, body = parse_responses(s.recv(65536))[0]
    check(st == 400 and error_of(body)["at"] == "skeleton", "after 100")
    s.close()

    # ---- chunked request body ------------------------------------------------
    ans = parse_responses(d.raw(
        b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
        b"Connection: close\r\n\r\n3\r\n{\"s\r\n6\r\nkeleto\r\n"
        b"7\r\nn\":5}  \r\n0\r\n\r\n"))
    check(ans[0][0] == 400, "chunked body status %d" % ans[0][0])
    e = error_of(ans[0][2])
    check(e["code"] == "wrong_type" and e["at"] == "skeleton",
          "chunked body parsed: %r" % e)

    # ---- HTTP/1.0: keep-alive only when asked --------------------------------
    ans = parse_responses(d.raw(b"GET /healthz HTTP/1.0\r\n\r\n"))
    check(ans[0][0] == 200 and ans[0][1].get("connection") == "close",
          "HTTP/1.0 close")

    # ---- header size limit: 431 -------------------------------------------------
    ans = parse_responses(d.raw(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: "
                                + b"a" * 2000 + b"\r\n\r\n"))
    check(ans[0][0] == 431, "big header status %d" % ans[0][0])
    e = error_of(ans[0][2])
    check(e["code"] == "header_too_large" and e["at"] == "headers", "431 %r" % e)

    # ---- body limit from Content-Length: 413 before the body is sent ----------
    s = d.connect()
    s.sendall(b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
              b"application/json\r\nContent-Length: 1000000\r\n\r\n")
    s.settimeout(5)
    first = read_all(s)
    s.close()
    ans = parse_responses(first)
    check(ans and ans[0][0] == 413, "413 early: %r" % first[:60])
    check(error_of(ans[0][2])["at"] == "body", "413 at")

    # ---- chunked body over the limit: 413 -------------------------------------
    big = b"1000\r\n" + b"x" * 4096 + b"\r\n"
    ans = parse_responses(d.raw(b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\n"
                                b"Content-Type: application/json\r\n"
                                b"Transfer-Encoding: chunked\r\n\r\n" + big * 2))
    check(ans and ans[0][0] == 413, "chunked 413")

    # ---- header timeout: 408 ----------------------------------------------------
    s = d.connect()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")  # never finished
    t0 = time.time()
    s.settimeout(10)
    got = read_all(s)
    s.close()
    ans = parse_responses(got)
    check(ans and ans[0][0] == 408, "header timeout: %r" % got[:60])
    check(error_of(ans[0][2])["at"] == "headers", "408 at")
    check(time.time() - t0 < 8, "408 took too long")

    # ---- body timeout: 408 at body --------------------------------------------
    s = d.connect()
    s.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n"
              b"\r\n{")
    s.settimeout(10)
    ans = parse_responses(read_all(s))
    s.close()
    check(ans and ans[0][0] == 408 and error_of(ans[0][2])["at"] == "body",
          "body timeout")

    # ---- idle keep-alive connection closes ------------------------------------
    s = d.connect()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    s.settimeout(10)
    first = s.recv(4096)
    check(first.startswith(b"HTTP/1.1 200"), "idle: first answer")
    t0 = time.time()
    rest = read_all(s)
    s.close()
    check(rest == b"" and 1.0 < time.time() - t0 < 8,
          "idle close after %.2fs (%r)" % (time.time() - t0, rest[:40]))

    # ---- max connections: the 9th gets 503 and is closed ----------------------
    # One kept-alive connection watches /metrics until it is the only one
    # open (earlier connections may still be closing), then seven more fill
    # the limit of 8.
    m = d.connect()
    m.settimeout(5)
    deadline = time.time() + 10
    while time.time() < deadline:
        m.sendall(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        buf = b""
        while True:
            buf += m.recv(65536)
            ans = parse_responses(buf)
            if ans and len(ans[0][2]) == int(ans[0][1]["content-length"]):
                break
        if b"\nanimd_open_connections 1\n" in ans[0][2]:
            break
        time.sleep(0.05)
    held = [m] + [d.connect() for _ in range(7)]
    for h in held[1:]:  # each is accepted and served
        h.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        h.settimeout(5)
        check(h.recv(4096).startswith(b"HTTP/1.1 200"), "held conn served")
    extra = d.connect()
    extra.settimeout(5)
    got = read_all(extra)
    extra.close()
    ans = parse_responses(got)
    check(ans and ans[0][0] == 503, "max connections: %r" % got[:60])
    check(ans[0][1].get("retry-after") == "1", "Retry-After on 503")
    check(error_of(ans[0][2])["code"] == "too_many_connections", "503 code")
    for h in held:
        h.close()
    time.sleep(0.2)

    # ---- malformed request line: 400 and close --------------------------------
    ans = parse_responses(d.raw(b"GARBAGE\r\n\r\n"))
    check(ans and ans[0][0] == 400, "garbage")
    check(error_of(ans[0][2])["code"] == "bad_http", "bad_http")

    # ---- HEAD has headers only -----------------------------------------------
    s = d.connect()
    s.sendall(b"HEAD /v1/info HTTP/1.1\r\nHost: localhost\r\n\r\n"
              b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    got = read_all(s)
    s.close()
    head, _, rest = got.partition(b"\r\n\r\n")
    check(b"Content-Length: " in head and rest.startswith(b"HTTP/1.1 200"),
          "HEAD sent a body: %r" % rest[:40])

    # Still alive and serving.
    st, _, _ = d.request("GET", "/healthz")
    check(st == 200 and d.alive(), "daemon alive")
    rc = d.stop()
    check(rc == 0, "exit status %d" % rc)
    print("ok")
finally:
    d.cleanup()
