#!/usr/bin/python3
"""Bearer tokens against the real daemon: tokens made as docs/operations.md says
(random hex, its sha256sum in the tokens file); every protected route
without a token, with a wrong one, a too weak one and the right one; the
WebSocket upgrade with ?token= and with the header; SIGHUP re-reading a
good file and keeping the old tokens over a bad one; and no token text in
any log line (access log and the daemon's own output)."""
import asyncio
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import tempfile
import time

import websockets

from animd_e2e import Daemon, check, demo_asset, error_of


def token_line(scope, token):
    return "%s sha256:%s\n" % (scope, hashlib.sha256(token.encode()).hexdigest())


def wait_for(fn, seconds=5):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if fn():
            return True
        time.sleep(0.05)
    return False


def bearer(token):
    return {"Authorization": "Bearer " + token} if token else {}


async def ws_try(port, query="", headers=None):
    """Opens /v1/stream, asks for one pose; returns the answer or the
    refusal's status."""
    url = "ws://127.0.0.1:%d/v1/stream%s" % (port, query)
    try:
        async with websockets.connect(url, extra_headers=headers or {},
                                      open_timeout=10) as ws:
            await ws.send(json.dumps({"op": "pose", "skeleton": "e2e-rig",
                                      "clip": "sway", "t": 0.5}))
            msg = await asyncio.wait_for(ws.recv(), 10)
            return json.loads(msg)
    except websockets.exceptions.InvalidStatusCode as e:
        return e.status_code


def main():
    tmp = tempfile.mkdtemp(prefix="animd-e2e-")
    tokens = {s: secrets.token_hex(32) for s in ("read", "write", "admin")}
    path = os.path.join(tmp, "tokens")
    with open(path, "w") as f:
        f.write("# animd tokens\n")
        for scope, tok in tokens.items():
            f.write(token_line(scope, tok))
    log = os.path.join(tmp, "access.log")
    d = Daemon("--tokens-file", path, "--auth-reads", "--auth-metrics",
               "--access-log", log, tmp=tmp)
    try:
        check(wait_for(lambda: "access: tokens (3 tokens" in d.read_log()),
              "start-up line: " + d.read_log())
        R, W, A = tokens["read"], tokens["write"], tokens["admin"]
        wrong = secrets.token_hex(32)
        # The asset first (a write token), then the matrix.
        st, _, body = d.request("POST", "/v1/assets", demo_asset(),
                                bearer(W))
        check(st == 201, "upload with a write token: %d %r" % (st, body))
        ids = json.loads(body)
        clip_id = ids["clips"][0]["id"]
        routes = [  # method, path, body, too weak (None: none), right, ok
            ("POST", "/v1/assets", demo_asset(), R, A, 200),
            ("GET", "/v1/assets", None, None, R, 200),
            ("GET", "/v1/skeletons/e2e-rig", None, None, R, 200),
            ("GET", "/v1/pose?skeleton=e2e-rig&clip=sway&t=0.5", None, None,
             R, 200),
            ("POST", "/v1/pose", {"skeleton": "e2e-rig", "layers": [
                {"clip": "sway", "t": 0.5}]}, None, R, 200),
            ("GET", "/v1/skin?mesh=blob&clip=sway&t=0.5", None, None, W, 200),
            ("GET", "/v1/pose?clip=sway&from=0&to=1&fps=4", None, None, R,
             200),
            ("GET", "/v1/info", None, None, A, 200),
            ("GET", "/metrics", None, W, A, 200),
            ("DELETE", "/v1/clips/" + clip_id, None, R, W, 200),
        ]
        for method, target, body, weak, right, ok in routes:
            st, h, data = d.request(method, target, body)
            check(st == 401, "%s %s without a token: %d" % (method, target, st))
            check(h.get("www-authenticate", "").startswith("Bearer"),
                  "%s %s: no WWW-Authenticate" % (method, target))
            check(error_of(data)["code"] == "unauthorized", data)
            st, h, data = d.request(method, target, body, bearer(wrong))
            check(st == 401 and "invalid_token" in h.get("www-authenticate",
                                                         ""),
                  "%s %s with a wrong token: %d" % (method, target, st))
            if weak is not None:
                st, _, data = d.request(method, target, body, bearer(weak))
                check(st == 403 and error_of(data)["code"] == "forbidden",
                      "%s %s too weak: %d %r" % (method, target, st, data))
            st, _, data = d.request(method, target, body, bearer(right))
            check(st == ok, "%s %s with the right token: %d %r"
                  % (method, target, st, data[:200]))
        st, _, _ = d.request("GET", "/healthz")
        check(st == 200, "/healthz is open: %d" % st)
        st, _, _ = d.request("POST", "/v1/assets", demo_asset(), bearer(W))
        check(st == 201, "the clip back: %d" % st)

        # WebSocket: ?token= or the header; nothing, or a wrong one: 401.
        got = asyncio.run(ws_try(d.port))
        check(got == 401, "upgrade without a token: %r" % got)
        got = asyncio.run(ws_try(d.port, "?token=" + wrong))
        check(got == 401, "upgrade with a wrong token: %r" % got)
        got = asyncio.run(ws_try(d.port, "?token=" + R))
        check(isinstance(got, dict) and "matrices" in got,
              "upgrade with ?token=: %r" % got)
        got = asyncio.run(ws_try(d.port, "", bearer(R)))
        check(isinstance(got, dict) and "matrices" in got,
              "upgrade with the header: %r" % got)
        st, _, _ = d.request("GET", "/v1/info?token=" + R)
        check(st == 401, "?token= outside /v1/stream: %d" % st)

        # SIGHUP with a good file: the new set is in force.
        R2 = secrets.token_hex(32)
        with open(path, "w") as f:
            f.write(token_line("admin", A) + token_line("read", R2))
        d.proc.send_signal(signal.SIGHUP)
        check(wait_for(lambda: "reloaded: 2 tokens" in d.read_log()),
              "no reload line: " + d.read_log())
        st, _, _ = d.request("GET", "/v1/info", headers=bearer(R2))
        check(st == 200, "new token after SIGHUP: %d" % st)
        st, _, _ = d.request("GET", "/v1/info", headers=bearer(R))
        check(st == 401, "removed token after SIGHUP: %d" % st)
        # A bad file: the old set stays, the log says why.
        with open(path, "w") as f:
            f.write("write sha256:" + "ab" * 31 + "\n")
        d.proc.send_signal(signal.SIGHUP)
        check(wait_for(lambda: "not reloaded" in d.read_log()),
              "no failed-reload line: " + d.read_log())
        check(re.search(r"tokens_file not reloaded: \S+:1: expected .*; "
                        r"keeping the 2 tokens", d.read_log()) is not None,
              d.read_log())
        st, _, _ = d.request("GET", "/v1/info", headers=bearer(R2))
        check(st == 200, "token kept over a bad file: %d" % st)
        st, _, body = d.request("GET", "/metrics", headers=bearer(A))
        check(b'animd_auth_reloads_total{result="failed"} 1' in body and
              b'animd_auth_reloads_total{result="ok"} 1' in body,
              "reload counters")

        # The access log names tokens by 8 hex digits of their hash.
        check(wait_for(lambda: os.path.exists(log) and
                       "/v1/info" in open(log).read()), "access log")
        check(d.stop() == 0, "daemon did not exit 0")
        text = open(log).read() + d.read_log()
        for tok in list(tokens.values()) + [wrong, R2]:
            check(tok not in text, "a token is in a log line")
            check(tok[:16] not in text, "part of a token is in a log line")
        wid = hashlib.sha256(W.encode()).hexdigest()[:8]
        check(re.search(r' %s "POST /v1/assets HTTP/1.1" 201 ' % wid, text),
              "no line naming the write token %s:\n%s" % (wid, text[-2000:]))
        check(re.search(r' - "GET /v1/assets HTTP/1.1" 401 ', text),
              "no line for a request without a token")
        check('"GET /v1/stream?token=* HTTP/1.1" 101 ' in text,
              "the stream's query token is not hidden:\n" + text[-2000:])
    finally:
        d.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
