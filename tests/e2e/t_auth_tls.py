#!/usr/bin/python3
"""The TLS example (config/nginx-tls.conf) as written, checked with
nginx -t and run in front of animd: its certificate, log and pid paths
moved to a temp folder and its ports to free loopback ones, a self-signed
certificate made with openssl. Through it: HTTPS answers, an upload with a
write token (and 401 without), a wss:// stream with ?token=, plain HTTP
redirected, and no token in nginx's or animd's logs. Skipped (exit 0)
when nginx or openssl is missing."""
import asyncio
import hashlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

import websockets

from animd_e2e import Daemon, E2E_DIR, check, demo_asset, fail

CONF = os.path.join(E2E_DIR, "..", "..", "config", "nginx-tls.conf")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def adapt(text, tmp, animd_port, http_port, https_port):
    """The example with only paths, ports and the upstream changed."""
    subs = [
        (r"/etc/ssl/animd/", tmp + "/"),
        (r"/run/nginx-animd\.pid", tmp + "/nginx.pid"),
        (r"/var/log/nginx/", tmp + "/"),
        (r"server 127\.0\.0\.1:8080;", "server 127.0.0.1:%d;" % animd_port),
        (r"listen \[::\]:80;\n", ""),
        (r"listen \[::\]:443 ssl http2;\n", ""),
        (r"listen 80;", "listen 127.0.0.1:%d;" % http_port),
        (r"listen 443 ssl http2;", "listen 127.0.0.1:%d ssl http2;"
         % https_port),
    ]
    for pat, rep in subs:
        text, n = re.subn(pat, rep, text)
        check(n > 0, "the example no longer has %r" % pat)
    # Temp files of a root-run nginx go to the temp folder too.
    return text.replace("http {\n", "http {\n  client_body_temp_path %s/b;\n"
                        "  proxy_temp_path %s/p;\n" % (tmp, tmp), 1)


def https(port, method, path, body=None, headers=None):
    ctx = ssl._create_unverified_context()
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx,
                                    timeout=20)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


async def wss_pose(port, token):
    ctx = ssl._create_unverified_context()
    url = "wss://127.0.0.1:%d/v1/stream?token=%s" % (port, token)
    async with websockets.connect(url, ssl=ctx, open_timeout=10) as ws:
        await ws.send(json.dumps({"op": "pose", "skeleton": "e2e-rig",
                                  "clip": "sway", "t": 0.5}))
        return json.loads(await asyncio.wait_for(ws.recv(), 10))


def main():
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(nginx) or not shutil.which("openssl"):
        print("skipped: nginx or openssl missing")
        return
    tmp = tempfile.mkdtemp(prefix="animd-e2e-tls-")
    token = secrets.token_hex(32)
    with open(os.path.join(tmp, "tokens"), "w") as f:
        f.write("write sha256:%s\n" % hashlib.sha256(token.encode()).hexdigest())
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-keyout", os.path.join(tmp, "privkey.pem"),
                    "-out", os.path.join(tmp, "fullchain.pem")],
                   check=True, capture_output=True, timeout=60)
    log = os.path.join(tmp, "access.log")
    d = Daemon("--tokens-file", os.path.join(tmp, "tokens"), "--auth-reads",
               "--trusted-proxies", "127.0.0.1", "--access-log", log,
               tmp=tmp)
    ngx = None
    try:
        http_port, https_port = free_port(), free_port()
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(adapt(open(CONF).read(), tmp, d.port, http_port,
                          https_port))
        t = subprocess.run([nginx, "-t", "-p", tmp, "-c", conf, "-e",
                            os.path.join(tmp, "error.log")],
                           capture_output=True, text=True, timeout=30)
        check(t.returncode == 0, "nginx -t: " + t.stderr)
        ngx = subprocess.Popen([nginx, "-p", tmp, "-c", conf, "-e",
                                os.path.join(tmp, "error.log"), "-g",
                                "daemon off; user root;"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", https_port), 1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            fail("nginx did not listen")
        st, _ = https(https_port, "GET", "/healthz")
        check(st == 200, "https /healthz: %d" % st)
        st, body = https(https_port, "POST", "/v1/assets",
                         json.dumps(demo_asset()),
                         {"Content-Type": "application/json",
                          "Authorization": "Bearer " + token})
        check(st == 201, "https upload: %d %r" % (st, body[:200]))
        st, _ = https(https_port, "POST", "/v1/assets",
                      json.dumps(demo_asset()),
                      {"Content-Type": "application/json"})
        check(st == 401, "https upload without a token: %d" % st)
        pose = asyncio.run(wss_pose(https_port, token))
        check("matrices" in pose, "wss pose: %r" % pose)
        # Plain HTTP redirects to HTTPS.
        c = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
        c.request("GET", "/v1/assets")
        r = c.getresponse()
        check(r.status == 301 and r.getheader("Location", "").startswith(
            "https://"), "http redirect: %d" % r.status)
        c.close()
        # Neither log holds the token.
        check(d.stop() == 0, "animd did not exit 0")
        ngx.send_signal(signal.SIGQUIT)
        ngx.wait(timeout=15)
        ngx = None
        text = open(log).read()
        for name in os.listdir(tmp):
            if name.endswith(".log"):
                check(token not in open(os.path.join(tmp, name),
                                        errors="replace").read(),
                      "the token is in " + name)
        check('"GET /v1/stream?token=* HTTP/1.1" 101 ' in text, text)
    finally:
        if ngx is not None:
            ngx.kill()
            ngx.wait()
        d.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
