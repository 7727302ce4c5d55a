#!/usr/bin/python3
"""The safe default: listening on 0.0.0.0 (the test talks to it over
127.0.0.1 only) with no tokens file, uploads and deletes get 403 with a
message saying how to allow them, reads stay open, and the start-up line
names the mode; allow_anonymous_writes opens writes; on loopback the
daemon is open as before. Rate limits are on by default off loopback."""
import json
import time

from animd_e2e import Daemon, check, demo_asset, error_of


def startup_line(d):
    deadline = time.time() + 5
    while time.time() < deadline:
        for line in d.read_log().splitlines():
            if " listening on " in line:
                return line
        time.sleep(0.05)
    return ""


def main():
    d = Daemon("--listen", "0.0.0.0:0", "--demo")
    try:
        d.host = "127.0.0.1"  # listening everywhere, spoken to on loopback
        line = startup_line(d)
        check("listening on 0.0.0.0:" in line, line)
        check("access: read-only beyond loopback" in line, line)
        check("rate limits per address: connections 50/s (burst 200), "
              "writes 10/s (burst 50)" in line, line)
        st, _, body = d.request("POST", "/v1/assets", demo_asset())
        check(st == 403, "upload off loopback without tokens: %d" % st)
        e = error_of(body)
        check(e["code"] == "forbidden", e)
        check("tokens_file" in e["message"] and
              "allow_anonymous_writes = true" in e["message"], e["message"])
        st, _, body = d.request("DELETE", "/v1/clips/wave")
        check(st == 403, "delete off loopback without tokens: %d" % st)
        st, _, body = d.request("GET", "/v1/pose?clip=wave&t=0.5")
        check(st == 200, "reads stay open: %d" % st)
        st, _, body = d.request("GET", "/v1/clips/wave")
        check(st == 200, "the clip is still there: %d" % st)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()

    d = Daemon("--listen", "0.0.0.0:0", "--allow-anonymous-writes",
               "--rate-limits", "off")
    try:
        d.host = "127.0.0.1"
        line = startup_line(d)
        check("access: open to anonymous writes beyond loopback" in line,
              line)
        check("rate limits off" in line, line)
        st, _, body = d.request("POST", "/v1/assets", demo_asset())
        check(st == 201, "allow_anonymous_writes: %d %r" % (st, body))
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()

    d = Daemon()  # 127.0.0.1: open, as it always was
    try:
        line = startup_line(d)
        check("access: open (loopback only, no tokens_file); rate limits "
              "off" in line, line)
        st, _, body = d.request("POST", "/v1/assets", demo_asset())
        check(st == 201, "upload on loopback: %d" % st)
        cid = json.loads(body)["clips"][0]["id"]
        st, _, _ = d.request("DELETE", "/v1/clips/" + cid)
        check(st == 200, "delete on loopback: %d" % st)
        check(d.stop() == 0, "daemon did not exit 0")
    finally:
        d.cleanup()
    print("ok")


if __name__ == "__main__":
    main()
