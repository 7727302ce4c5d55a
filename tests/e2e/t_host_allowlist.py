#!/usr/bin/python3
"""DNS rebinding against the real daemon: a page of evil.test whose name
resolves to 127.0.0.1 sends Host: evil.test:P and Origin http://evil.test:P
(its own origin). Even with allowed_origins restricted, an upload got 201, a
DELETE 200, a preflight 204 and a WebSocket upgrade 101. Now each gets 421
misdirected_request; the daemon's own names (localhost, 127.0.0.1, [::1])
are served, and a name in --allowed-hosts is too (its Origin then counts as
the daemon's own)."""
import json

from animd_e2e import Daemon, check, demo_asset, error_of, parse_responses

KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def answers(d, host, method, path, headers=(), body=b""):
    head = "%s %s HTTP/1.1\r\nHost: %s\r\n" % (method, path, host)
    for h in headers:
        head += h + "\r\n"
    if body:
        head += "Content-Type: application/json\r\nContent-Length: %d\r\n" \
                % len(body)
    head += "Connection: close\r\n\r\n"
    return parse_responses(d.raw(head.encode() + body))


def status(d, host, method, path, headers=(), body=b""):
    ans = answers(d, host, method, path, headers, body)
    check(ans, "%s %s (Host %s): no answer" % (method, path, host))
    return ans[0]


def upgrade_status(d, host, origin):
    s = d.connect()
    try:
        s.sendall(("GET /v1/stream HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\n"
                   "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n"
                   % (host, origin, KEY)).encode())
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return int(data.split()[1])
    finally:
        s.close()


def main():
    d = Daemon("--demo", "--allowed-origins", "http://app.example")
    try:
        evil = "evil.test:%d" % d.port
        origin = ["Origin: http://" + evil]
        body = json.dumps(demo_asset()).encode()
        cases = [
            ("upload", "POST", "/v1/assets", origin, body),
            ("delete", "DELETE", "/v1/clips/wave", origin, b""),
            ("preflight", "OPTIONS", "/v1/assets",
             origin + ["Access-Control-Request-Method: POST"], b""),
            ("read", "GET", "/v1/assets", [], b""),
        ]
        for name, method, path, headers, data in cases:
            st, h, b = status(d, evil, method, path, headers, data)
            check(st == 421, "%s with Host %s: %d %r" % (name, evil, st, b))
            check(error_of(b)["code"] == "misdirected_request", b)
            check("access-control-allow-origin" not in h, "%s: %r" % (name, h))
        st = upgrade_status(d, evil, "http://" + evil)
        check(st == 421, "upgrade with Host %s: %d" % (evil, st))
        # The clip is still there: nothing went through.
        st, _, _ = d.request("GET", "/v1/clips/wave")
        check(st == 200, "wave after the refused DELETE: %d" % st)
        # The daemon's own names, any port.
        for host in ("localhost:%d" % d.port, "127.0.0.1:%d" % d.port,
                     "[::1]:%d" % d.port, "localhost"):
            st, _, b = status(d, host, "GET", "/healthz")
            check(st == 200, "Host %s: %d %r" % (host, st, b))
        st = upgrade_status(d, "127.0.0.1:%d" % d.port,
                            "http://127.0.0.1:%d" % d.port)
        check(st == 101, "upgrade from the daemon's own page: %d" % st)
        st, _, _ = status(d, "localhost:%d" % d.port, "POST", "/v1/assets",
                          body=body)
        check(st == 201, "upload on localhost: %d" % st)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()

    d = Daemon("--demo", "--allowed-hosts", "animd.example")
    try:
        host = "animd.example:%d" % d.port
        st, h, _ = status(d, host, "OPTIONS", "/v1/assets",
                          ["Origin: http://" + host,
                           "Access-Control-Request-Method: POST"])
        check(st == 204, "preflight on a configured name: %d" % st)
        st = upgrade_status(d, host, "http://" + host)
        check(st == 101, "upgrade on a configured name: %d" % st)
        st, _, _ = status(d, "evil.test", "GET", "/healthz")
        check(st == 421, "another name: %d" % st)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
    print("ok")


if __name__ == "__main__":
    main()
