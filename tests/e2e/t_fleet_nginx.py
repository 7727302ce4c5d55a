"""config/nginx-fleet.conf, with only its addresses and paths changed,
checked with nginx -t and run in front of three daemons sharing one Redis
(tests/e2e/fleet.py): an upload through nginx is answered by every node;
pose queries of one clip all reach one node (hashing on the clip: the
others never load it); a WebSocket upgrade passes through (101 and a
pose); a node killed with kill -9: requests through nginx keep answering
(proxy_next_upstream). Skipped (77) without nginx or redis-server."""
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time

from animd_e2e import check
from fleet import TOP, Fleet, free_port, need, request, stick, wait_until

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
if not os.path.exists(NGINX):
    need("nginx")


def adapt(text, tmp, front, nodes):
    subs = [(r"/run/nginx-animd-fleet\.pid", tmp + "/nginx.pid"),
            (r"/var/log/nginx/", tmp + "/"),
            (r"listen 127\.0\.0\.1:8080;", "listen %s;" % front)]
    for i, addr in enumerate(nodes):
        subs.append((r"127\.0\.0\.1:808%d " % (i + 1), addr + " "))
    for pat, rep in subs:
        text, n = re.subn(pat, rep, text)
        check(n > 0, "the example no longer has %r" % pat)
    return text.replace("http {\n", "http {\n  client_body_temp_path %s/b;\n"
                        "  proxy_temp_path %s/p;\n" % (tmp, tmp), 1)


def ws_pose(addr, skeleton, clip):
    """A raw WebSocket handshake and one pose command; (status line, the
    answer's JSON)."""
    host, port = addr.rsplit(":", 1)
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection((host, int(port)), 10) as s:
        s.settimeout(10)
        s.sendall(("GET /v1/stream HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket"
                   "\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n" % (addr, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
        status = head.split(b"\r\n", 1)[0].decode()
        rest = head.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in head else b""
        msg = json.dumps({"op": "pose", "id": "p", "skeleton": skeleton,
                          "clip": clip, "t": 0.5}).encode()
        mask = os.urandom(4)
        frame = bytes([0x81, 0x80 | len(msg)]) + mask + bytes(
            b ^ mask[i % 4] for i, b in enumerate(msg))
        s.sendall(frame)
        data = rest
        while True:
            if len(data) >= 2:
                n = data[1] & 0x7F
                off = 2
                if n == 126:
                    n = int.from_bytes(data[2:4], "big")
                    off = 4
                if len(data) >= off + n:
                    return status, json.loads(data[off:off + n])
            chunk = s.recv(65536)
            if not chunk:
                return status, None
            data += chunk


f = Fleet(nodes=3, balancer=False)
ngx = None
try:
    tmp = f.tmp
    front = "127.0.0.1:%d" % free_port()
    with open(os.path.join(TOP, "config", "nginx-fleet.conf")) as src:
        text = adapt(src.read(), tmp, front, f.addrs)
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as out:
        out.write(text)
    t = subprocess.run([NGINX, "-t", "-p", tmp, "-c", conf, "-e",
                        tmp + "/error.log"], capture_output=True, text=True)
    check(t.returncode == 0, "nginx -t: " + t.stderr)
    ngx = subprocess.Popen([NGINX, "-p", tmp, "-c", conf, "-e",
                            tmp + "/error.log", "-g", "daemon off;"])
    wait_until("nginx", lambda: request(front, "GET", "/healthz")[0] == 200)

    s, _, up = f.post(front, stick("nginx-rig"))
    check(s == 201, "upload through nginx: %d" % s)
    clip = up["clips"][0]["id"]
    for a in f.addrs:
        check(f.get(a, "/v1/clips/" + clip)[0] == 200, "clip on " + a)
    # Forget what the GETs above cached: a fresh hash test needs a clip
    # no node has loaded.
    s, _, b2 = f.post(front, json.dumps({"clips": [{
        "name": "hashed", "skeleton": up["skeletons"][0]["id"], "tracks": [{
            "joint": "tip", "path": "rotation", "interpolation": "LINEAR",
            "times": [0, 1], "values": [0, 0, 0, 1, 0, 0, 0.6, 0.8]}]}]}))
    check(s in (200, 201), "second clip: %d" % s)
    hashed = b2["clips"][0]["id"]
    before = [f.metric(a, "animd_store_bytes") for a in f.addrs]
    for i in range(12):
        s, _, _ = request(front, "GET", "/v1/pose?skeleton=nginx-rig&clip=%s"
                          "&t=0.%d" % (hashed, i))
        check(s == 200, "pose through nginx: %d" % s)
    grew = [i for i, a in enumerate(f.addrs)
            if f.metric(a, "animd_store_bytes") > before[i]]
    check(len(grew) <= 1, "poses of one clip loaded it on nodes %s" % grew)
    status, answer = ws_pose(front, "nginx-rig", "bend")
    check(" 101 " in status + " " and answer and "error" not in answer,
          "WebSocket through nginx: %s %s" % (status, answer))
    print("ok: nginx front: upload, clip hashing (one node loads it), "
          "WebSocket upgrade (a pose with %s)" % sorted(answer))

    f.kill_node(1)
    answered = 0
    for i in range(30):
        s, _, _ = request(front, "GET", "/v1/skeletons/" +
                          up["skeletons"][0]["id"])
        check(s == 200, "request %d after a node was killed: %d" % (i, s))
        answered += 1
    print("ok: a node killed: %d requests through nginx all answered"
          % answered)
finally:
    if ngx is not None and ngx.poll() is None:
        ngx.send_signal(signal.SIGQUIT)
        try:
            ngx.wait(10)
        except subprocess.TimeoutExpired:
            ngx.kill()
            ngx.wait(5)
    f.stop()
