#!/usr/bin/python3
"""The access log of the real daemon: one line per HTTP answer and one per
WebSocket session (peer, close codes sent and received, duration, frames
sent, skipped and dropped, messages), the upgrade counted in /metrics, and
SIGHUP reopening the file after rotation. Client text cannot forge lines,
and a token sent under a name with a NUL or control character ("token%00")
is refused and never written out.
"""
import asyncio
import os
import re
import shutil
import signal
import tempfile
import time

import websockets

from animd_e2e import Daemon, check


def wait_for(path, pattern, seconds=5):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path):
            text = open(path, errors="replace").read()
            m = re.search(pattern, text, re.M)
            if m:
                return m, text
        time.sleep(0.05)
    return None, open(path, errors="replace").read() if os.path.exists(
        path) else ""


async def session(port):
    url = "ws://127.0.0.1:%d/v1/stream" % port
    async with websockets.connect(url) as ws:
        await ws.send('{"op":"play","id":"a","skeleton":"demo-humanoid",'
                      '"clip":"wave","fps":50,"format":"bin"}')
        got = 0
        deadline = time.time() + 5
        while got < 10 and time.time() < deadline:
            msg = await asyncio.wait_for(ws.recv(), 5)
            if isinstance(msg, bytes):
                got += 1
        await ws.close(code=1000)
    return got


def main():
    tmp = tempfile.mkdtemp(prefix="animd-e2e-")
    log = os.path.join(tmp, "access.log")
    d = Daemon("--demo", "--access-log", log, tmp=tmp)
    try:
        st, _, _ = d.request("GET", "/v1/pose?clip=wave&t=0.5&x=%22%0a")
        m, text = wait_for(log, r'"GET /v1/pose\?clip=wave&t=0.5&x=%22%0a '
                                r'HTTP/1.1" \d{3} ')
        check(m is not None, "HTTP line missing:\n" + text)
        # A token under a name that decodes to "token" and a NUL, or with
        # another control character, is refused and never written out.
        for target in ("/v1/stream?token%00=s3cretTOKEN1",
                       "/v1/stream?t%6Fken%00x=s3cretTOKEN2",
                       "/v1/pose?clip=wave&t=0&token%0d=s3cretTOKEN3"):
            st, _, body = d.request("GET", target)
            check(st == 400 and b'"bad_parameter"' in body,
                  "%s: %d %r" % (target, st, body))
        m, text = wait_for(log, r'"GET /v1/pose\?clip=wave&t=0&token%0d=\* '
                                r'HTTP/1.1" 400 ')
        check(m is not None, "redacted line missing:\n" + text)
        check("s3cretTOKEN" not in text, "a token in the log:\n" + text)
        got = asyncio.run(session(d.port))
        check(got >= 10, "only %d frames" % got)
        m, text = wait_for(
            log, r'"WS /v1/stream" close (\d+)/(\d+) ([\d.]+)s frames (\d+) '
                 r'skipped (\d+) dropped (\d+) messages (\d+) stream$')
        check(m is not None, "WebSocket session line missing:\n" + text)
        sent, received = int(m.group(1)), int(m.group(2))
        check(received == 1000 and sent == 1000,
              "close codes %d/%d" % (sent, received))
        check(int(m.group(4)) >= 10, "frames %s" % m.group(4))
        check(int(m.group(7)) == 1, "messages %s" % m.group(7))
        check(float(m.group(3)) > 0.1, "duration %s" % m.group(3))
        m, text = wait_for(log, r'"GET /v1/stream HTTP/1.1" 101 .* stream$')
        check(m is not None, "upgrade line missing:\n" + text)
        st, _, body = d.request("GET", "/metrics")
        check(re.search(rb'animd_requests_total\{route="stream",'
                        rb'status="101"\} 1', body) is not None,
              "upgrade not counted: " +
              "\n".join(l for l in body.decode().splitlines()
                        if "stream" in l))
        # Rotation: the file moves, SIGHUP, new lines go to a new file.
        os.rename(log, log + ".1")
        d.proc.send_signal(signal.SIGHUP)
        time.sleep(0.3)
        d.request("GET", "/healthz")
        m, text = wait_for(log, r'"GET /healthz HTTP/1.1" 200 ')
        check(m is not None, "no line after SIGHUP:\n" + text)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
