"""Probes of event-loop stalls on a running daemon, shared by the loop-stall
regression test (tests/e2e/t_loop_stalls.py) and the measurement script
(tests/abuse/loop_stalls.py):

- HealthProbe: a thread that asks GET /healthz over one keep-alive
  connection, back to back, and keeps each answer's latency: the HTTP
  loop's responsiveness while heavy work runs;
- WsClient: a minimal WebSocket client over a raw socket (RFC 6455: masked
  text frames out; frames in, with their arrival times, on a thread); it
  can also pipeline the upgrade behind a plain request;
- StreamGap: a WsClient playing a 60 fps pose stream: the largest gap
  between frames says how long its stream loop stalled;
- peak_rss: VmHWM of the daemon, reset by reset_peak (/proc clear_refs);
  status_bytes: any size of /proc/PID/status.

Every wait is bounded; only 127.0.0.1 is contacted.
"""
import base64
import json
import os
import socket
import struct
import threading
import time


class HealthProbe(threading.Thread):
    def __init__(self, host, port, pause=0.002):
        super().__init__(daemon=True)
        self.host, self.port, self.pause = host, port, pause
        self.samples = []      # (start, latency seconds)
        self.current = None    # start of the request in flight
        self.errors = 0
        self._halt = threading.Event()

    def run(self):
        s = None
        req = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
        while not self._halt.is_set():
            try:
                if s is None:
                    s = socket.create_connection((self.host, self.port), 30)
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                t0 = time.monotonic()
                self.current = t0
                s.sendall(req)
                data = b""
                while b"\r\n\r\n" not in data or not data.endswith(b"}\n"):
                    d = s.recv(4096)
                    if not d:
                        raise OSError("closed")
                    data += d
                self.samples.append((t0, time.monotonic() - t0))
                self.current = None
            except OSError:
                self.errors += 1
                self.current = None
                if s is not None:
                    s.close()
                s = None
            time.sleep(self.pause)
        if s is not None:
            s.close()

    def worst(self, since=0.0):
        """The largest latency of probes started after since (a probe still
        waiting counts its time so far), in seconds."""
        w = max([lat for t0, lat in self.samples if t0 >= since] or [0.0])
        cur = self.current
        if cur is not None and cur >= since:
            w = max(w, time.monotonic() - cur)
        return w

    def latencies(self, since=0.0):
        return [lat for t0, lat in self.samples if t0 >= since]

    def stop(self):
        self._halt.set()
        self.join(35)


class WsClient:
    def __init__(self, host, port, path="/v1/stream", before=b""):
        """Opens a WebSocket; before: bytes of plain requests sent ahead of
        the upgrade on the same connection (their answers are skipped)."""
        self.s = socket.create_connection((host, port), 30)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(before + (
            "GET %s HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n" % (path, key)).encode())
        self.buf = bytearray()
        # Skip answers until the 101.
        while True:
            while b"\r\n\r\n" not in self.buf:
                d = self.s.recv(65536)
                if not d:
                    raise OSError("closed before the upgrade")
                self.buf += d
            head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            self.buf = bytearray(rest)
            if status == 101:
                break
            n = 0
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    n = int(v)
            while len(self.buf) < n:
                self.buf += self.s.recv(65536)
            del self.buf[:n]
        self.messages = []   # (arrival, opcode, payload)
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        self.closed = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def send(self, obj):
        data = json.dumps(obj).encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.s.sendall(head + mask + body)

    def _need(self, n):
        while len(self.buf) < n:
            d = self.s.recv(1 << 20)
            if not d:
                raise OSError("closed")
            self.buf += d

    def _read(self):
        try:
            while True:
                self._need(2)
                b0, b1 = self.buf[0], self.buf[1]
                n, off = b1 & 0x7F, 2
                if n == 126:
                    self._need(4)
                    n, off = struct.unpack_from("!H", self.buf, 2)[0], 4
                elif n == 127:
                    self._need(10)
                    n, off = struct.unpack_from("!Q", self.buf, 2)[0], 10
                self._need(off + n)
                payload = bytes(self.buf[off:off + n])
                del self.buf[:off + n]
                with self.lock:
                    self.messages.append((time.monotonic(), b0 & 0x0F,
                                          payload))
                    self.arrived.notify_all()
                if b0 & 0x0F == 8:
                    break
        except OSError:
            pass
        with self.lock:
            self.closed = True
            self.arrived.notify_all()

    def _is_answer(self, op, p):
        """An answer to a message: text that is no stream frame or play
        acknowledgement, or a binary one-shot pose."""
        if op == 1:
            return not (p.startswith(b'{"op":"play"') or b'"frame":' in p[:200])
        return op == 2 and struct.unpack_from("<I", p, 0)[0] == 0xFFFFFFFF

    def wait_count(self, count, timeout):
        """Waits (bounded) for count answers, parsing nothing (the probes'
        threads are not held up). Returns how many came."""
        end = time.monotonic() + timeout
        seen, n = 0, 0
        with self.lock:
            while True:
                n += sum(1 for _, op, p in self.messages[seen:]
                         if self._is_answer(op, p))
                seen = len(self.messages)
                left = end - time.monotonic()
                if n >= count or self.closed or left <= 0:
                    return n
                self.arrived.wait(left)

    def wait(self, count, timeout):
        """As wait_count, then returns the answers (text parsed, binary as
        bytes)."""
        self.wait_count(count, timeout)
        with self.lock:
            msgs = list(self.messages)
        return [json.loads(p) if op == 1 else p for _, op, p in msgs
                if self._is_answer(op, p)]

    def close(self):
        try:
            self.s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.s.close()
        self.thread.join(5)


class StreamGap(WsClient):
    """A 60 fps binary pose stream of the demo rig."""

    def __init__(self, host, port):
        super().__init__(host, port)
        self.send({"op": "play", "id": "gap", "skeleton": "demo-humanoid",
                   "clip": "idle", "fps": 60, "format": "bin"})

    def worst_gap(self, since=0.0):
        """The largest time between two stream frames that arrived after
        since (the time since the last one counts too), in seconds."""
        with self.lock:
            times = [t for t, op, p in self.messages
                     if op == 2 and t >= since]
        if not times:
            return time.monotonic() - since
        gaps = [b - a for a, b in zip(times, times[1:])]
        gaps.append(time.monotonic() - times[-1])
        return max(gaps)


def reset_peak(pid):
    """Resets the daemon's peak RSS (VmHWM); False when not allowed."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def status_bytes(pid, field):
    """A size field of /proc/PID/status ("VmRSS", "VmHWM"), in bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def peak_rss(pid):
    return status_bytes(pid, "VmHWM")


# ---- heavy bodies ---------------------------------------------------------
# Built by repetition (tens of megabytes in well under a second). Numbers
# carry a few digits more than needed: the decoders refuse a body whose
# parse would take more than about eight times its size, which many short
# numbers would.

def rig(name):
    """A three-joint skeleton."""
    return {"name": name, "joints": [
        {"name": "root", "parent": -1, "translation": [0, 0, 0]},
        {"name": "mid", "parent": 0, "translation": [0, 1, 0]},
        {"name": "tip", "parent": 1, "translation": [0, 1, 0]}]}


def mesh_body(vertices):
    """Skeleton "stall-rig", its clip "wiggle" and its mesh "big" of
    `vertices` vertices, as a native JSON upload."""
    head = json.dumps({"skeleton": rig("stall-rig"), "clips": [
        {"name": "wiggle", "tracks": [
            {"joint": "mid", "path": "rotation", "interpolation": "LINEAR",
             "times": [0, 2], "values": [0, 0, 0, 1, 0, 0, 0.38268343,
                                         0.92387953]}]}]})
    v = vertices
    mesh = ('{"name":"big","positions":[' +
            ",".join(["0.500000001,1.50000001,0.250000001"] * v) +
            '],"joints":[' + ",".join(["0,1,2,0"] * v) + '],"weights":[' +
            ",".join(["0.500000001,0.299999999,0.200000000,0.0000000"] * v) +
            "]}")
    return (head[:-1] + ',"meshes":[' + mesh + "]}").encode()


def clip_body(keys):
    """A clip "long" of `keys` translation keys on joint "mid" (upload it
    with ?skeleton=)."""
    return ('{"clips":[{"name":"long","tracks":[{"joint":"mid","path":'
            '"translation","interpolation":"LINEAR","times":[' +
            ",".join(str(i) for i in range(keys)) + '],"values":[' +
            ",".join(["0.0000001,1.0000001,0.0000001"] * keys) +
            "]}]}]}").encode()


def many_body(count):
    """Skeleton "many" with `count` clips without tracks."""
    return ('{"skeleton":' + json.dumps(rig("many")) + ',"clips":[' +
            ",".join('{"name":"c%d","tracks":[]}' % i for i in range(count)) +
            "]}").encode()


def solve_body(d, size):
    """A POST /v1/solve body of about size bytes: the demo's wave pose at
    t=0.5 (its joints' positions), repeated. Returns (body, frames)."""
    m = d.json("GET", "/v1/pose?clip=wave&t=0.5")["matrices"]
    frame = "[" + ",".join("%.6f" % x for j in range(len(m) // 16)
                           for x in m[16 * j + 12:16 * j + 15]) + "]"
    count = size // (len(frame) + 1)
    return ('{"skeleton":"demo-humanoid","frames":[' +
            ",".join([frame] * count) + "]}").encode(), count


def upload(d, body, query=""):
    """POST /v1/assets of a JSON body; the answer."""
    st, _, data = d.request("POST", "/v1/assets" + query, body,
                            {"Content-Type": "application/json"}, timeout=300)
    if st not in (200, 201):
        raise AssertionError("upload: %d %s" % (st, data[:300]))
    return json.loads(data)
