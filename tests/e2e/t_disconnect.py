"""Clients that leave mid-job: a long streamed range closed after a few
bytes, skinning requests closed before their answer, an upload cut off,
pipelined requests abandoned. The daemon keeps serving, the open
connection gauge returns to 1 (the scraper), and it exits 0 on SIGTERM
(under ASan that also means nothing leaked)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, demo_asset  # noqa: E402

d = Daemon("--inline-cost", "0")  # every evaluation goes to the pool
try:
    up = d.json("POST", "/v1/assets", demo_asset(), expect=201)
    clip = up["clips"][0]["id"]
    mesh = up["meshes"][0]["id"]
    for i in range(20):
        s = d.connect()
        s.sendall(b"GET /v1/pose?clip=%s&from=0&to=99999&fps=1&format=bin "
                  b"HTTP/1.1\r\nHost: localhost\r\n\r\n" % clip.encode())
        if i % 2:
            s.recv(1000)
        s.close()
        s = d.connect()
        s.sendall(b"GET /v1/skin?mesh=%s&clip=sway&t=0.%d&normals=1 HTTP/1.1"
                  b"\r\nHost: localhost\r\n\r\n" % (mesh.encode(), i) * 5)
        s.close()
        s = d.connect()
        s.sendall(b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                  b"application/json\r\nContent-Length: 5000\r\n\r\n{\"ske")
        s.close()
    deadline = time.time() + 10
    while time.time() < deadline:
        st, _, body = d.request("GET", "/metrics")
        if b"\nanimd_open_connections 1\n" in body:
            break
        time.sleep(0.05)
    check(b"\nanimd_open_connections 1\n" in body, "connections left open")
    p = d.json("GET", "/v1/pose?clip=%s&t=1" % clip)
    check(p["joints"] == 4 and d.alive(), "still serving")
    check(d.stop() == 0, "clean exit")
    print("ok")
finally:
    d.cleanup()
