#!/usr/bin/python3
"""Revoking a token reaches open WebSocket sessions: with auth_reads on, two
streams are opened, one with a token A (?token=) and one with a token B
(Authorization header), and play frames. The tokens file then loses A and
SIGHUP reloads it. Before, new upgrades with A got 401 but the open session
kept streaming and answered a new pose. Now the session of A is closed
with 1008 (policy violation) soon after the reload, while B's keeps
streaming and answering."""
import asyncio
import hashlib
import json
import os
import secrets
import shutil
import signal
import tempfile
import time

import websockets

from animd_e2e import Daemon, check


def token_line(scope, token):
    return "%s sha256:%s\n" % (scope, hashlib.sha256(token.encode()).hexdigest())


PLAY = json.dumps({"op": "play", "id": "s", "skeleton": "demo-humanoid",
                   "clip": "wave", "fps": 30, "format": "bin"})
POSE = json.dumps({"op": "pose", "skeleton": "demo-humanoid", "clip": "wave",
                   "t": 0.5})


async def frames(ws, n):
    got = 0
    while got < n:
        msg = await asyncio.wait_for(ws.recv(), 10)
        if isinstance(msg, bytes):
            got += 1
    return got


async def pose_answer(ws):
    """Sends a pose and returns its JSON answer, skipping stream frames."""
    await ws.send(POSE)
    deadline = time.time() + 10
    while time.time() < deadline:
        msg = await asyncio.wait_for(ws.recv(), 10)
        if isinstance(msg, str):
            return json.loads(msg)
    return None


async def scenario(d, path, a, b):
    base = "ws://127.0.0.1:%d/v1/stream" % d.port
    async with websockets.connect(base + "?token=" + a,
                                  open_timeout=10) as wa, \
            websockets.connect(base, open_timeout=10,
                               extra_headers={"Authorization":
                                              "Bearer " + b}) as wb:
        for ws in (wa, wb):
            await ws.send(PLAY)
            check(await frames(ws, 3) == 3, "no frames before the reload")
        with open(path, "w") as f:
            f.write(token_line("read", b))
        d.proc.send_signal(signal.SIGHUP)
        # A's session ends with 1008 (bounded wait; frames may come first).
        code = None
        deadline = time.time() + 10
        try:
            while time.time() < deadline:
                await asyncio.wait_for(wa.recv(), 10)
        except websockets.exceptions.ConnectionClosed as e:
            code = e.rcvd.code if e.rcvd is not None else None
        check(code == 1008, "A's session after revocation: close %r" % code)
        # B's goes on: frames and a pose answer.
        check(await frames(wb, 3) == 3, "B's stream stopped")
        ans = await pose_answer(wb)
        check(ans is not None and "error" not in ans, "B's pose: %r" % ans)
    # A new upgrade with A is refused.
    try:
        async with websockets.connect(base + "?token=" + a, open_timeout=10):
            check(False, "upgrade with a revoked token accepted")
    except websockets.exceptions.InvalidStatusCode as e:
        check(e.status_code == 401, "upgrade with A: %d" % e.status_code)


def main():
    tmp = tempfile.mkdtemp(prefix="animd-e2e-")
    a, b = secrets.token_hex(32), secrets.token_hex(32)
    path = os.path.join(tmp, "tokens")
    with open(path, "w") as f:
        f.write(token_line("read", a) + token_line("read", b))
    d = Daemon("--demo", "--tokens-file", path, "--auth-reads", tmp=tmp)
    try:
        asyncio.run(scenario(d, path, a, b))
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
