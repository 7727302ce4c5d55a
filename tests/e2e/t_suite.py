"""Test suites against the real daemon and `animd test`: a suite of three
passing cases and one failing case over HTTP (200 without the failing one,
422 with it, the body the report either way), its JUnit XML read by
xml.etree with the right counts, its TAP lines, its HTML with a picture;
the same suite through `animd test` (exit 0, 1 and 2, the same JSON bytes);
and a golden recorded with `animd eval --format bin --space model` that
passes, then fails once the clip is uploaded again with one key moved.
The rig is built in suite_rig.py."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import BIN, Daemon, check, error_of  # noqa: E402
from suite_rig import ARM, MOVED, pose  # noqa: E402

PASSING = [
    {"name": "hand at rest", "pose": pose(0),
     "expect": [{"joint": "hand", "position": [0.5, 1.5, 0]}]},
    {"name": "hand raised", "pose": pose(1),
     "expect": [{"joint": "hand", "position": [0, 2, 0], "tolerance": 0.001},
                {"joint": "hand", "rotation": [0, 0, 0.7071068, 0.7071068],
                 "tolerance_deg": 0.1}]},
    {"name": "raise is smooth", "check": {"clip": "raise", "fps": 30}},
]
FAILING = {"name": "hand <up> & out", "pose": pose(1),
           "expect": [{"joint": "hand", "position": [0.5, 2, 0]}]}
GOOD = {"name": "arm", "cases": PASSING}
SUITE = {"name": "arm", "cases": PASSING + [FAILING]}


def post(d, suite, fmt=None):
    path = "/v1/test" + ("?format=" + fmt if fmt else "")
    return d.request("POST", path, json.dumps(suite).encode())


def cli(*args):
    r = subprocess.run([BIN, "test"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return r.returncode, r.stdout, r.stderr.decode()


tmp = tempfile.mkdtemp(prefix="animd-suite-")


def write(name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data if isinstance(data, bytes) else json.dumps(data))
    return path


d = Daemon()
try:
    up = d.json("POST", "/v1/assets", ARM, expect=201)
    clip_id = up["clips"][0]["id"]

    # ---- the verdict is the status; the body is the report ---------------
    st, h, body = post(d, GOOD)
    check(st == 200, "all pass: %d %s" % (st, body[:300]))
    check(h["content-type"] == "application/json", h["content-type"])
    r = json.loads(body)
    check((r["name"], r["passed"], r["failed"]) == ("arm", 3, 0), r)
    check([c["kind"] for c in r["cases"]] == ["pose", "pose", "check"], r)
    check(all(c["pass"] and "message" not in c for c in r["cases"]), r)

    st, h, body = post(d, SUITE)
    check(st == 422, "one fails: %d" % st)
    r = json.loads(body)
    check((r["passed"], r["failed"]) == (3, 1), r)
    bad = r["cases"][3]
    check(bad["name"] == FAILING["name"] and not bad["pass"], bad)
    check("hand position off by 0.5" in bad["message"], bad["message"])
    got = bad["detail"]["expect"][0]
    check(abs(got["position"][0]) < 1e-6 and abs(got["position"][1] - 2) < 1e-6
          and abs(got["error"] - 0.5) < 1e-6, got)

    # ---- JUnit XML as CI systems read it ---------------------------------
    st, h, body = post(d, SUITE, "junit")
    check(st == 422 and h["content-type"] == "application/xml", (st, h))
    root = ET.fromstring(body)
    check(root.tag == "testsuites", root.tag)
    suites = root.findall("testsuite")
    check(len(suites) == 1, "one testsuite")
    ts = suites[0]
    check((ts.get("name"), ts.get("tests"), ts.get("failures")) ==
          ("arm", "4", "1"), ts.attrib)
    cases = ts.findall("testcase")
    check([c.get("name") for c in cases] ==
          [c["name"] for c in SUITE["cases"]], [c.attrib for c in cases])
    failures = [c for c in cases if c.find("failure") is not None]
    check(len(failures) == 1 and failures[0].get("name") == "hand <up> & out",
          "the failing testcase")
    msg = failures[0].find("failure").get("message")
    check(msg == bad["message"], msg)
    check(all(float(c.get("time")) >= 0 for c in cases), "times")
    check(cases[2].get("classname") == "arm.check", cases[2].attrib)

    # ---- TAP -------------------------------------------------------------
    st, h, body = post(d, SUITE, "tap")
    check(st == 422 and h["content-type"].startswith("text/plain"), h)
    lines = body.decode().splitlines()
    check(lines[:2] == ["TAP version 13", "1..4"], lines[:2])
    tests = [l for l in lines if l.startswith(("ok ", "not ok "))]
    check(tests == ["ok 1 - hand at rest", "ok 2 - hand raised",
                    "ok 3 - raise is smooth", "not ok 4 - hand <up> & out"],
          tests)
    check("  message: " + json.dumps(bad["message"]) in lines, lines)

    # ---- HTML ------------------------------------------------------------
    st, h, body = post(d, SUITE, "html")
    check(st == 422 and h["content-type"].startswith("text/html"), h)
    html = body.decode()
    check(html.startswith("<!DOCTYPE html>") and html.count("<svg") == 1,
          "one picture, of the failing case")
    check("hand &lt;up&gt; &amp; out" in html, "escaped names")

    # ---- refusals ---------------------------------------------------------
    st, _, body = post(d, {"name": "arm", "cases": PASSING + PASSING[:1]})
    check(st == 400 and error_of(body)["at"] == "cases[3].name",
          "duplicate name: %d %s" % (st, body))
    st, _, body = post(d, {"name": "arm", "cases": [
        {"name": "x", "check": {"clip": "nope"}}]})
    check(st == 404 and error_of(body)["at"] == "cases[0].check.clip",
          "unknown clip: %d %s" % (st, body))

    # ---- animd test: the same suite offline --------------------------------
    arm_path = write("arm.json", ARM)
    good_path = write("good.json", GOOD)
    suite_path = write("suite.json", SUITE)
    rc, out, err = cli(good_path, arm_path)
    check(rc == 0, "animd test all pass: %d %s" % (rc, err))
    rc, out, err = cli(suite_path, arm_path)
    check(rc == 1, "animd test one fails: %d %s" % (rc, err))
    st, _, body = post(d, SUITE)
    check(out == body, "animd test and POST /v1/test differ:\n%s\n%s"
          % (out[:400], body[:400]))
    rc, out, _ = cli(suite_path, arm_path, "--format", "tap")
    check(rc == 1 and "\nnot ok 4 - hand <up> & out\n" in out.decode(), out)
    bad_path = write("bad.json", {"name": "arm", "cases": [{"name": "x"}]})
    rc, out, err = cli(bad_path, arm_path)
    check(rc == 2 and err.startswith("animd test: ")
          and "(bad_value at cases[0])" in err, "bad suite: %d %r" % (rc, err))
    rc, _, err = cli(suite_path)
    check(rc == 2 and "(not_found at cases[0].pose.skeleton)" in err,
          "no assets: %d %r" % (rc, err))
    rc, _, err = cli(suite_path, arm_path, "--format", "xml")
    check(rc == 2, "bad format: %d" % rc)

    # ---- a golden recorded with animd eval ---------------------------------
    rec = subprocess.run(
        [BIN, "eval", arm_path, "--clip", "raise", "--from", "0", "--to", "1",
         "--fps", "30", "--format", "bin", "--space", "model"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    check(rec.returncode == 0, "animd eval: " + rec.stderr.decode())
    golden = rec.stdout
    st, _, ranged = d.request(
        "GET", "/v1/pose?clip=raise&from=0&to=1&fps=30&format=bin&space=model")
    check(st == 200 and ranged == golden, "the golden is the range answer")
    write("raise.golden", golden)
    grid = {"clip": "raise", "from": 0, "to": 1, "fps": 30}
    http_golden = {"name": "golden", "cases": [{"name": "raise as recorded",
        "golden": dict(grid, base64=base64.b64encode(golden).decode())}]}
    cli_golden = {"name": "golden", "cases": [{"name": "raise as recorded",
        "golden": dict(grid, file="raise.golden")}]}
    golden_path = write("golden.json", cli_golden)
    st, _, body = post(d, http_golden)
    check(st == 200, "golden passes: %d %s" % (st, body[:300]))
    rc, _, err = cli(golden_path, arm_path)
    check(rc == 0, "animd test golden: %d %s" % (rc, err))

    # The clip uploaded again with its last key moved.
    st, _, body = d.request("DELETE", "/v1/clips/" + clip_id)
    check(st in (200, 204), "delete: %d %s" % (st, body))
    d.json("POST", "/v1/assets", MOVED, expect=201)
    st, _, body = post(d, http_golden)
    check(st == 422, "golden fails after the move: %d %s" % (st, body[:300]))
    r = json.loads(body)
    detail = r["cases"][0]["detail"]
    # Worst at t = 1, where the hand is 30 degrees around the spine off: a
    # chord of 2 * 0.5 * sin(15 deg) = 0.2588 at least.
    check(detail["max"]["t"] == 1 and detail["max"]["error"] > 0.25,
          detail["max"])
    moved_path = write("moved.json", MOVED)
    rc, _, err = cli(golden_path, moved_path)
    check(rc == 1, "animd test golden after the move: %d %s" % (rc, err))
    print("ok: 200/422/400/404, JUnit, TAP, HTML, animd test 0/1/2, golden")
finally:
    d.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)
