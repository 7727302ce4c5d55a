"""Helpful errors against the real daemon: "did you mean" in the message
and the "hint" member of the error (curl for HTTP, Python websockets for a
WebSocket message), for a mistyped option (--lisen), a clip name (wav,
Wave), a joint (hand_R), a query parameter, a body field, a message field;
--demo=1 accepted; a .glb sent as model/gltf+json told it is binary glTF;
every option of `animd eval` and `animd test` as --name=VALUE giving what
--name VALUE gives (the lists read from their --help)."""
import asyncio
import json
import os
import re
import subprocess
import sys

import websockets

from animd_e2e import BIN, Daemon, check, fail, shared_assets

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "..", "config", "demo.json")


def curl(url, *args):
    """(status, parsed JSON body) of curl against 127.0.0.1."""
    out = subprocess.run(
        ["curl", "-s", "--max-time", "20", "-w", "\n%{http_code}", *args, url],
        capture_output=True, check=True, timeout=30).stdout.decode()
    body, status = out.rsplit("\n", 1)
    return int(status), json.loads(body)


def expect_hint(got, status, code, at, hint):
    st, body = got
    e = body.get("error", {})
    check(st == status and e.get("code") == code and e.get("at") == at,
          "wanted %d %s at %s, got %d %s" % (status, code, at, st, body))
    check(e.get("hint") == hint, "hint %r, wanted %r" % (e.get("hint"), hint))
    check(e.get("message", "").endswith("; " + hint),
          "the message does not end with the hint: %r" % e.get("message"))


# ---- the daemon's options -------------------------------------------------
r = subprocess.run([BIN, "--lisen", "127.0.0.1:0"], capture_output=True,
                   timeout=20)
check(r.returncode == 2, "--lisen: exit %d" % r.returncode)
check(b"did you mean '--listen'?" in r.stderr, "--lisen: %r" % r.stderr)
r = subprocess.run([BIN, "--help=1"], capture_output=True, timeout=20)
check(r.returncode == 2 and b"--help takes no value" in r.stderr,
      "--help=1: exit %d %r" % (r.returncode, r.stderr))

d = Daemon("--demo=1", "--max-frames=500", "--access-log=")
try:
    base = "http://127.0.0.1:%d" % d.port
    st, info = curl(base + "/v1/assets")
    check(st == 200 and any(c["name"] == "wave" for c in info["clips"]),
          "--demo=1 did not load the demo: %s" % info)
    # Names: nearest by edit distance, and by case first.
    expect_hint(curl(base + "/v1/pose?clip=wav&t=0.5"), 404, "not_found",
                "clip", "did you mean 'wave'?")
    expect_hint(curl(base + "/v1/pose?clip=Wave&t=0.5"), 404, "not_found",
                "clip", "did you mean 'wave'?")
    expect_hint(curl(base + "/v1/pose?skeleton=demo-humanod&t=0"), 404,
                "not_found", "skeleton", "did you mean 'demo-humanoid'?")
    expect_hint(curl(base + "/v1/skin?mesh=bdy"), 404, "not_found", "mesh",
                "did you mean 'body'?")
    expect_hint(curl(base + "/v1/pose?clip=wave&t=0.5&joints=hips,hand_R"),
                400, "unknown_joint", "joints[1]", "did you mean 'hand_r'?")
    # Far-off names: no hint at all (the v1 shape).
    st, body = curl(base + "/v1/pose?clip=zzzzzz&t=0.5")
    check(st == 404 and "hint" not in body["error"], "far-off: %s" % body)
    # Parameters and fields.
    expect_hint(curl(base + "/v1/pose?clip=wave&tt=0.5"), 400,
                "unknown_parameter", "tt", "did you mean 't'?")
    expect_hint(curl(base + "/v1/pose?clip=wave&t=0.5&spcae=local"), 400,
                "unknown_parameter", "spcae", "did you mean 'space'?")
    expect_hint(curl(base + "/v1/pose", "-d",
                     '{"skeleton": "demo-humanoid", "layres": []}'),
                400, "unknown_field", "layres", "did you mean 'layers'?")
    expect_hint(curl(base + "/v1/pose", "-d",
                     '{"skeleton": "demo-humanoid", "layers": [{"clip": '
                     '"wave", "t": 0.1, "mask": ["hand_R"]}]}'),
                400, "unknown_joint", "layers[0].mask[0]",
                "did you mean 'hand_r'?")
    # Bytes of another type than the Content-Type.
    body = os.path.join(d.tmp, "body.json")
    with open(body, "w") as f:
        f.write('{"skeleton": {"joints": []}}')
    expect_hint(curl(base + "/v1/assets", "-H",
                     "Content-Type: model/gltf-binary", "--data-binary",
                     "@" + body),
                400, "bad_magic", "glb.magic",
                "the body looks like JSON: send it with Content-Type: "
                "application/json")
    bvh = os.path.join(d.tmp, "take.bvh")
    with open(bvh, "w") as f:
        f.write("HIERARCHY\nROOT hips\n{\n")
    st, b = curl(base + "/v1/assets", "-H", "Content-Type: application/json",
                 "--data-binary", "@" + bvh)
    check(st == 400 and b["error"].get("hint") ==
          "the body looks like BVH: send it with Content-Type: "
          "application/x-bvh", "BVH as JSON: %s" % b)

    # A WebSocket message's field and op.
    async def ws_errors():
        uri = "ws://127.0.0.1:%d/v1/stream" % d.port
        async with websockets.connect(uri) as ws:
            await ws.send(json.dumps({"op": "pose", "skeleton": "demo-humanoid",
                                      "clip": "wave", "t": 0.5, "spaec":
                                      "local", "id": 1}))
            a = json.loads(await asyncio.wait_for(ws.recv(), 10))
            await ws.send(json.dumps({"op": "plya", "id": 2}))
            b = json.loads(await asyncio.wait_for(ws.recv(), 10))
            await ws.send(json.dumps({"op": "pose", "skeleton": "demo-humanoid",
                                      "clip": "Wave", "t": 0.5, "id": 3}))
            c = json.loads(await asyncio.wait_for(ws.recv(), 10))
            await ws.send(json.dumps({"op": "pose", "skeleton": "demo-humanoid",
                                      "clip": "wave", "t": 0.5, "id": 4,
                                      "joints": ["hand_R"]}))
            e = json.loads(await asyncio.wait_for(ws.recv(), 10))
            return a, b, c, e
    a, b, c, e = asyncio.run(ws_errors())
    for msg, code, at, hint in (
            (a, "unknown_field", "spaec", "did you mean 'space'?"),
            (b, "unknown_op", "op", "did you mean 'play'?"),
            (c, "not_found", "clip", "did you mean 'wave'?"),
            (e, "unknown_joint", "joints[0]", "did you mean 'hand_r'?")):
        err = msg.get("error", {})
        check(err.get("code") == code and err.get("at") == at and
              err.get("hint") == hint and err["message"].endswith(hint),
              "WebSocket: %s" % msg)
finally:
    d.stop()
    d.cleanup()

# ---- animd eval and animd test: every option as --name=VALUE --------------
def run(*args):
    r = subprocess.run([BIN, *args], capture_output=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def options_of(command):
    """(name, takes a value) of each option line of COMMAND --help."""
    rc, out, _ = run(command, "--help")
    check(rc == 0, "%s --help: exit %d" % (command, rc))
    opts = re.findall(r"^  (?:-\w, )?--([a-z_]+)(?: (\S+))?  ",
                      out.decode(), re.M)
    check(len(opts) >= 3, "%s --help lists %d options" % (command, len(opts)))
    return [(n, a != "") for n, a in opts]


GOOD = {"skeleton": "demo-humanoid", "clip": "wave", "t": "0.5",
        "space": "local", "wrap": "loop", "format": "json", "joints": "hips",
        "method": "dqs", "normals": "1", "view": "side", "layout": "overlay",
        "type": "application/json", "from": "0", "to": "0.2", "fps": "10",
        "mesh": "body", "root_motion": "hips", "weights": "x",
        "request": '{"skeleton": "demo-humanoid", "t": 0.5}',
        "retarget": "{}"}
seen = 0
for name, takes in options_of("eval"):
    if not takes:
        continue
    value = GOOD.get(name, "x")
    rest = [] if name in ("request", "retarget") else ["--t", "0.25"]
    if name in ("t", "from", "to", "fps", "request", "retarget"):
        rest = []
    if name in ("from", "to", "fps"):
        rest = ["--from", "0", "--to", "0.2", "--fps", "10"]
        rest = [x for i, x in enumerate(rest)
                if not (rest[i - (i % 2)] == "--" + name)]
    glued = run("eval", DEMO, "--clip", "wave", *rest,
                "--%s=%s" % (name, value))
    apart = run("eval", DEMO, "--clip", "wave", *rest, "--" + name, value)
    check(glued == apart, "eval --%s=%s differs from --%s %s: %r / %r"
          % (name, value, name, value, glued[2][:200], apart[2][:200]))
    seen += 1
check(seen >= 15, "eval: only %d options tried" % seen)
rc, out, _ = run("eval", DEMO, "--clip=wave", "--t=0.5", "--joints=hips")
check(rc == 0 and out == run("eval", DEMO, "--clip", "wave", "--t", "0.5",
                             "--joints", "hips")[1] and json.loads(out),
      "eval --clip=wave --t=0.5: exit %d" % rc)
rc, _, err = run("eval", DEMO, "--clip", "wave", "--spcae", "local")
check(rc == 2 and b"did you mean '--space'?" in err, "eval --spcae: %r" % err)
rc, _, err = run("eval", DEMO, "--clip", "wav", "--t", "0")
check(rc == 1 and b"did you mean 'wave'?" in err, "eval clip=wav: %r" % err)
rc, _, err = run("eval", DEMO, "--help=yes")
check(rc == 2 and b"--help takes no value" in err, "eval --help=yes: %r" % err)

suite = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                     "animd-hints-%d.json" % os.getpid())
with open(suite, "w") as f:
    json.dump({"name": "s", "cases": [{"name": "c", "check": {
        "clip": "wave"}}]}, f)
try:
    for name, takes in options_of("test"):
        if not takes:
            continue
        value = {"format": "tap", "output": suite + ".out"}.get(name, "x")
        glued = run("test", suite, DEMO, "--%s=%s" % (name, value))
        apart = run("test", suite, DEMO, "--" + name, value)
        check(glued[0] == apart[0] and glued[2] == apart[2],
              "test --%s=%s differs from --%s %s" % (name, value, name, value))
    rc, _, err = run("test", suite, DEMO, "--fromat", "tap")
    check(rc == 2 and b"did you mean '--format'?" in err,
          "test --fromat: %r" % err)
finally:
    for p in (suite, suite + ".out"):
        if os.path.exists(p):
            os.unlink(p)

# ---- a .glb sent as model/gltf+json (needs the shared assets) --------------
assets = shared_assets()
d = Daemon()
try:
    glb = os.path.join(assets, "gltf", "khronos", "CesiumMan.glb")
    expect_hint(curl("http://127.0.0.1:%d/v1/assets" % d.port, "-H",
                     "Content-Type: model/gltf+json", "--data-binary",
                     "@" + glb),
                400, "bad_json", "line 1, column 4",
                "the body looks like binary glTF (.glb): send it with "
                "Content-Type: model/gltf-binary")
    rc, _, err = run("eval", "--type", "model/gltf+json", glb, "list")
    check(rc == 1 and b"send it with Content-Type: model/gltf-binary" in err,
          "eval --type of a .glb: %r" % err)
finally:
    d.stop()
    d.cleanup()
print("ok")
