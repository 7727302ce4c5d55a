"""A fleet on loopback for the t_fleet* scripts: redis-server (appendonly,
appendfsync always), animd daemons with store = redis://..., and HAProxy
with config/haproxy.cfg in front. Every process is started here on
127.0.0.1 with free ports and stopped by PID; waits are bounded. Without
redis-server or haproxy (make deps-test installs them) a script exits 77,
skipped, saying which is missing.
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

from animd_e2e import BIN, check, fail

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(addr, method, path, body=None, headers=None, timeout=10):
    """(status, headers dict, body bytes); status 0 when the connection
    failed."""
    host, port = addr.rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        h = dict(headers or {})
        if body is not None and "Content-Type" not in h:
            h["Content-Type"] = "application/json"
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    except (OSError, http.client.HTTPException):
        return 0, {}, b""
    finally:
        c.close()


def wait_until(what, cond, limit=10.0):
    deadline = time.time() + limit
    while time.time() < deadline:
        if cond():
            return time.time()
        time.sleep(0.05)
    fail("timed out waiting for " + what)


def need(*programs):
    """Exits 77 (skipped) when a program is not installed."""
    for p in programs:
        if shutil.which(p) is None:
            print("skipped: %s is not installed (make deps-test)" % p)
            sys.exit(77)


class Fleet:
    def __init__(self, nodes=3, check_ms=500, balancer=True, node_args=(),
                 haproxy_cfg=None):
        need("redis-server", *(["haproxy"] if balancer else []))
        self.node_args = list(node_args)
        self.haproxy_cfg = haproxy_cfg or os.path.join(TOP, "config",
                                                        "haproxy.cfg")
        self.tmp = tempfile.mkdtemp(prefix="animd-fleet-")
        self.check_ms = check_ms
        self.redis_port = free_port()
        self.redis = None
        self.nodes = [None] * nodes
        self.addrs = [None] * nodes
        self.haproxy = None
        self.front = None
        self.start_redis()
        for i in range(nodes):
            self.start_node(i)
        if balancer:
            self.start_haproxy()

    def start_redis(self):
        self.redis = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port",
             str(self.redis_port), "--dir", self.tmp, "--appendonly", "yes",
             "--appendfsync", "always", "--save", "", "--logfile",
             os.path.join(self.tmp, "redis.log")])
        wait_until("redis", lambda: self._redis_ping())

    def _redis_ping(self):
        return self.redis_cmd("PING").startswith(b"+PONG")

    def redis_cmd(self, line):
        """One inline command to Redis; its raw reply (b"" when Redis
        cannot be reached)."""
        try:
            with socket.create_connection(("127.0.0.1", self.redis_port),
                                          2) as s:
                s.settimeout(2)
                s.sendall(line.encode() + b"\r\n")
                data = b""
                while not data.endswith(b"\r\n"):
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                return data
        except OSError:
            return b""

    def redis_evals(self):
        """EVAL calls Redis has run (every upload, delete, listing page
        and load from a node is one)."""
        for line in self.redis_cmd("INFO commandstats").decode().split("\r\n"):
            if line.startswith("cmdstat_eval:"):
                return int(line.split("calls=")[1].split(",")[0])
        return 0

    def signal_redis(self, sig):
        """SIGSTOP leaves a Redis that accepts connections but never
        answers; SIGCONT wakes it."""
        os.kill(self.redis.pid, sig)

    def metric(self, addr, name):
        """A value of /metrics, or None."""
        status, _, body = request(addr, "GET", "/metrics")
        for line in body.decode("utf-8", "replace").splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None

    def kill_redis(self):
        self.redis.kill()
        self.redis.wait(10)

    def start_node(self, i):
        ready = os.path.join(self.tmp, "node%d.addr" % i)
        if os.path.exists(ready):
            os.unlink(ready)
        log = open(os.path.join(self.tmp, "node%d.log" % i), "ab")
        port = self.addrs[i].rsplit(":", 1)[1] if self.addrs[i] else "0"
        self.nodes[i] = subprocess.Popen(
            [BIN, "--listen", "127.0.0.1:" + port, "--ready-file", ready,
             "--store", "redis://127.0.0.1:%d/0" % self.redis_port,
             "--workers", "2", "--stream-threads", "1", "--access-log", ""] +
            self.node_args,
            stdout=log, stderr=subprocess.STDOUT)
        wait_until("node %d" % i, lambda: os.path.exists(ready) and
                   os.path.getsize(ready) > 0)
        self.addrs[i] = open(ready).read().strip()
        wait_until("node %d healthy" % i,
                   lambda: self.get(self.addrs[i], "/healthz")[1].get(
                       "status") == "ok")

    def kill_node(self, i):
        self.nodes[i].kill()
        self.nodes[i].wait(10)

    def start_haproxy(self):
        env = dict(os.environ)
        self.front = "127.0.0.1:%d" % free_port()
        env["ANIMD_FRONT"] = self.front
        env["ANIMD_CHECK_MS"] = str(self.check_ms)
        for k in range(3):
            env["ANIMD_NODE%d" % (k + 1)] = self.addrs[min(k, len(self.addrs) - 1)]
        log = open(os.path.join(self.tmp, "haproxy.log"), "ab")
        self.haproxy = subprocess.Popen(
            ["haproxy", "-f", self.haproxy_cfg, "-db"], env=env, stdout=log, stderr=subprocess.STDOUT)
        wait_until("haproxy", lambda: self.get(self.front, "/healthz")[0] == 200)

    def get(self, addr, path):
        status, _, body = request(addr, "GET", path)
        try:
            return status, json.loads(body) if body else {}
        except ValueError:
            return status, {}

    def post(self, addr, body):
        status, headers, data = request(addr, "POST", "/v1/assets", body)
        try:
            return status, headers, json.loads(data) if data else {}
        except ValueError:
            return status, headers, {}

    def stop(self):
        procs = [self.haproxy] + self.nodes + [self.redis]
        if self.redis is not None and self.redis.poll() is None:
            os.kill(self.redis.pid, signal.SIGCONT)  # If a test stopped it.
        for p in procs:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            if p is None:
                continue
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        shutil.rmtree(self.tmp, ignore_errors=True)


def stick(name, clip="bend", angle=0.7071068):
    """A two-joint skeleton with one clip, as upload JSON text."""
    return json.dumps({
        "skeleton": {"name": name, "joints": [
            {"name": "root", "parent": -1, "translation": [0, 1, 0]},
            {"name": "tip", "parent": 0, "translation": [0, 1, 0]}]},
        "clips": [{"name": clip, "tracks": [{
            "joint": "tip", "path": "rotation", "interpolation": "LINEAR",
            "times": [0, 1], "values": [0, 0, 0, 1, 0, 0, angle, angle]}]}]})


def clip_for(skeleton_id, name, z):
    """A clip of skeleton_id turning tip to the unit quaternion (0, 0, z,
    w): different z, different clip."""
    w = (1 - z * z) ** 0.5
    return json.dumps({"clips": [{"name": name, "skeleton": skeleton_id,
                                  "tracks": [{
        "joint": "tip", "path": "rotation", "interpolation": "LINEAR",
        "times": [0, 1], "values": [0, 0, 0, 1, 0, 0, z, w]}]}]})
