"""Shared helpers for the Python end-to-end scripts (tests/e2e/t_*.py).

Daemon(...) starts $ANIMD_BIN on 127.0.0.1 port 0 with a temp data dir and
ready file, waits for the port (bounded), and stops it by PID (SIGTERM, then
SIGKILL after a bounded wait). request() is a small HTTP/1.1 client on
http.client; raw() speaks bytes over a socket for malformed requests,
pipelining and slow clients. Only 127.0.0.1 is ever contacted.
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

BIN = os.environ.get("ANIMD_BIN", "build/release/animd")
E2E_DIR = os.path.dirname(os.path.abspath(__file__))


def shared_assets():
    """The shared assets folder; exits 77 (skipped) when it is missing."""
    shared = os.environ.get("ANIMD_SHARED") or os.path.join(
        E2E_DIR, "..", "..", "..", "shared")
    assets = os.path.join(shared, "assets")
    if not os.path.exists(os.path.join(assets, "README.md")):
        print("needs the shared test assets (%s; set ANIMD_SHARED)" % assets)
        sys.exit(77)
    return assets


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


class Daemon:
    def __init__(self, *flags, data_dir=None, tmp=None):
        self.tmp = tmp or tempfile.mkdtemp(prefix="animd-e2e-")
        self.own_tmp = tmp is None
        self.data_dir = data_dir or os.path.join(self.tmp, "data")
        self.flags = list(flags)
        self.proc = None
        self.log_path = os.path.join(self.tmp, "animd.log")
        self.start()

    def start(self):
        ready = os.path.join(self.tmp, "ready")
        if os.path.exists(ready):
            os.unlink(ready)
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [BIN, "--listen", "127.0.0.1:0", "--ready-file", ready,
             "--data-dir", self.data_dir, "--workers", "2"] + self.flags,
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 15
        while time.time() < deadline:
            if os.path.exists(ready) and os.path.getsize(ready) > 0:
                break
            if self.proc.poll() is not None:
                fail("animd exited at start:\n" + self.read_log())
            time.sleep(0.05)
        else:
            self.kill()
            fail("animd did not become ready")
        addr = open(ready).read().strip()
        self.host, port = addr.rsplit(":", 1)
        self.port = int(port)

    def read_log(self):
        try:
            return open(self.log_path, errors="replace").read()
        except OSError:
            return ""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=15):
        """SIGTERM, bounded wait; returns the exit status."""
        if self.proc is None:
            return 0
        if self.proc.poll() is not None:
            # It ended on its own before the test stopped it (a crash, a
            # sanitizer's report): its last words, which cleanup deletes.
            sys.stderr.write("animd exited with %d before it was stopped; "
                             "the end of its log:\n%s\n"
                             % (self.proc.returncode, self.read_log()[-4000:]))
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            fail("animd did not stop after SIGTERM")
        self.proc = None
        self.log.close()
        return rc

    def kill(self):
        if self.proc is not None:
            died = self.proc.poll()
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            self.log.close()
            if died is not None:
                # It ended on its own before the test was done with it (a
                # crash, a sanitizer's report): its last words.
                sys.stderr.write("animd exited with %d; the end of its log:\n%s\n"
                                 % (died, self.read_log()[-4000:]))

    def cleanup(self):
        self.kill()
        if self.own_tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- clients --------------------------------------------------------------
    def request(self, method, path, body=None, headers=None, timeout=20):
        """Returns (status, headers dict lower-cased, body bytes)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            if isinstance(body, (dict, list)):
                body = json.dumps(body).encode()
                headers = dict(headers or {})
                headers.setdefault("Content-Type", "application/json")
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data
        finally:
            conn.close()

    def json(self, method, path, body=None, headers=None, expect=200):
        st, h, data = self.request(method, path, body, headers)
        check(st == expect, "%s %s: expected %d, got %d: %s"
              % (method, path, expect, st, data[:300]))
        return json.loads(data)

    def connect(self, timeout=10):
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def raw(self, data, timeout=10):
        """Sends bytes, half-closes, reads until the server closes."""
        s = self.connect(timeout)
        try:
            s.sendall(data)
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            return read_all(s)
        finally:
            s.close()


def read_all(s, limit=1 << 26):
    out = b""
    while len(out) < limit:
        try:
            d = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not d:
            break
        out += d
    return out


def parse_responses(data):
    """Splits a byte stream into (status, headers, body) answers (Content-
    Length or chunked bodies)."""
    out = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if not sep:
            break
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for l in lines[1:]:
            k, _, v = l.partition(":")
            headers[k.strip().lower()] = v.strip()
        if "content-length" in headers:
            n = int(headers["content-length"])
            body, data = rest[:n], rest[n:]
        elif headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                size_line, _, rest = rest.partition(b"\r\n")
                n = int(size_line, 16)
                body += rest[:n]
                rest = rest[n + 2:]
                if n == 0:
                    break
            data = rest
        else:
            body, data = rest, b""
        out.append((status, headers, body))
    return out


def metric_in(text, name):
    """The value of an unlabelled series in a /metrics text (bytes), or
    None when it is absent."""
    for line in text.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def error_of(body):
    """The error object of an error answer: code, message and at, and a
    hint (a string the message ends with) only when there is one."""
    e = json.loads(body)["error"]
    keys = set(e) - {"hint"}
    check(keys == {"code", "message", "at"}, "error keys: %r" % e)
    if "hint" in e:
        check(isinstance(e["hint"], str) and e["message"].endswith(e["hint"]),
              "hint not at the end of the message: %r" % e)
    return e


def demo_asset():
    """A small native JSON rig: 4 joints, one clip, one skinned mesh."""
    return {
        "skeleton": {"name": "e2e-rig", "joints": [
            {"name": "root", "parent": -1, "translation": [0, 1, 0],
             "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]},
            {"name": "spine", "parent": 0, "translation": [0, 0.5, 0],
             "rotation": [0, 0, 0.0998334, 0.9950042], "scale": [1, 1, 1]},
            {"name": "head", "parent": 1, "translation": [0, 0.4, 0.1],
             "rotation": [0, 0, 0, 1], "scale": [1.2, 1, 0.8]},
            {"name": "arm", "parent": 1, "translation": [0.3, 0.2, 0],
             "rotation": [0.2588190, 0, 0, 0.9659258], "scale": [1, 1, 1]}]},
        "clips": [{"name": "sway", "tracks": [
            {"joint": "spine", "path": "rotation", "interpolation": "LINEAR",
             "times": [0, 1, 2],
             "values": [0, 0, 0, 1, 0, 0.3826834, 0, 0.9238795, 0, 0, 0, 1]},
            {"joint": "root", "path": "translation", "interpolation": "LINEAR",
             "times": [0, 2], "values": [0, 1, 0, 2, 1, 0]},
            {"joint": "arm", "path": "scale", "interpolation": "STEP",
             "times": [0, 1], "values": [1, 1, 1, 2, 2, 2]}]}],
        "meshes": [{"name": "blob",
                    "positions": [0, 1, 0, 0.2, 1.6, 0, 0, 2, 0.1, 0.5, 1.7, 0],
                    "normals": [0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0.6, 0.8],
                    "joints": [0, 0, 0, 0, 0, 1, 0, 0, 2, 1, 0, 0, 3, 1, 2, 0],
                    "weights": [1, 0, 0, 0, 0.5, 0.5, 0, 0, 0.7, 0.3, 0, 0,
                                0.6, 0.2, 0.2, 0]}]}
