"""The bad-input matrix: malformed HTTP, oversized headers and bodies,
truncated bodies, bad JSON, wrong types, non-finite numbers, unknown ids,
out-of-range parents, unsorted times, wrong value counts, bad query
parameters. Each case has its expected status, error code and "at"; after
all of them the daemon is alive, the stored assets are exactly the same
(list and data files), and a pose still evaluates."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import (Daemon, check, demo_asset, error_of,  # noqa: E402
                       parse_responses)

d = Daemon("--max-header-size", "2048", "--max-body-size", "65536",
           "--max-frames", "1000")
try:
    up = d.json("POST", "/v1/assets", demo_asset(), expect=201)
    SK, CL, ME = up["skeletons"][0]["id"], up["clips"][0]["id"], \
        up["meshes"][0]["id"]
    before = d.json("GET", "/v1/assets")
    files_before = sorted(os.listdir(d.data_dir))

    J = {"name": "a", "parent": -1, "translation": [0, 0, 0],
         "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]}

    def rig(**over):
        a = {"skeleton": {"name": "bad", "joints": [dict(J)]}}
        a.update(over)
        return a

    def track(**over):
        t = {"joint": "a", "path": "translation", "interpolation": "LINEAR",
             "times": [0, 1], "values": [0, 0, 0, 1, 1, 1]}
        t.update(over)
        return rig(clips=[{"name": "c", "tracks": [t]}])

    def mesh(**over):
        m = {"name": "m", "positions": [0, 0, 0], "joints": [0, 0, 0, 0],
             "weights": [1, 0, 0, 0]}
        m.update(over)
        return rig(meshes=[m])

    raw_cases = [
        ("garbage request line", b"GARBAGE\r\n\r\n", 400, "bad_http",
         "request"),
        ("unknown HTTP version", b"GET /healthz HTTP/7.1\r\n\r\n", 505,
         "http_version", "request"),
        ("header without colon",
         b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nNoColon\r\n\r\n", 400,
         "bad_http", "request"),
        ("Content-Length and Transfer-Encoding",
         b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "bad_http",
         "request"),
        ("non-numeric Content-Length",
         b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Length: ab\r\n\r\n",
         400, "bad_http", "request"),
        ("oversized header",
         b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-A: " + b"a" * 3000 +
         b"\r\n\r\n", 431, "header_too_large", "headers"),
        ("too many headers",
         b"GET /healthz HTTP/1.1\r\n" + b"".join(
             b"X-%d: 1\r\n" % i for i in range(70)) + b"\r\n", 431,
         "too_many_headers", "headers"),
        ("oversized Content-Length",
         b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
         b"application/json\r\nContent-Length: 999999\r\n\r\n", 413,
         "body_too_large", "body"),
        ("oversized chunked body",
         b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
         b"application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
         (b"8000\r\n" + b"x" * 0x8000 + b"\r\n") * 3, 413, "body_too_large",
         "body"),
        ("truncated body",
         b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
         b"application/json\r\nContent-Length: 100\r\n\r\n{\"skel", 400,
         "truncated_request", "body"),
        ("truncated headers", b"GET /healthz HTTP/1.1\r\nHost:", 400,
         "truncated_request", "headers"),
        ("bad chunk size",
         b"POST /v1/assets HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
         b"application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
         400, "bad_http", "body"),
    ]
    # (name, method, path, body, headers, status, code, at)
    JS = {"Content-Type": "application/json"}
    http_cases = [
        ("bad JSON", "POST", "/v1/assets", b"{bad", JS, 400, "bad_json",
         "line 1, column 4"),
        ("JSON array body", "POST", "/v1/assets", b"[1]", JS, 400,
         "wrong_type", None),
        ("joints not an array", "POST", "/v1/assets",
         {"skeleton": {"name": "s", "joints": 5}}, None, 400, "wrong_type",
         "skeleton.joints"),
        ("parent out of range", "POST", "/v1/assets",
         rig(skeleton={"name": "s", "joints": [J, {"name": "b",
                                                   "parent": 7}]}),
         None, 400, "parent_range", "skeleton.joints[1].parent"),
        ("parent cycle", "POST", "/v1/assets",
         rig(skeleton={"name": "s", "joints": [{"name": "a", "parent": 1},
                                               {"name": "b", "parent": 0}]}),
         None, 400, "cycle", "skeleton.joints[0].parent"),
        ("parent wrong type", "POST", "/v1/assets",
         rig(skeleton={"name": "s", "joints": [{"name": "a",
                                                "parent": "x"}]}),
         None, 400, "wrong_type", "skeleton.joints[0].parent"),
        ("duplicate joint name", "POST", "/v1/assets",
         rig(skeleton={"name": "s", "joints": [J, {"name": "a",
                                                   "parent": 0}]}),
         None, 400, "name_duplicate", "skeleton.joints[1].name"),
        ("infinite number", "POST", "/v1/assets",
         b'{"skeleton":{"name":"s","joints":[{"name":"a","parent":-1,'
         b'"translation":[0,1e999,0]}]}}', JS, 400, "bad_json",
         "line 1, column 80"),
        ("NaN literal", "POST", "/v1/assets",
         b'{"skeleton":{"name":"s","joints":[{"name":"a","parent":-1,'
         b'"translation":[0,NaN,0]}]}}', JS, 400, "bad_json",
         "line 1, column 78"),
        ("rotation with 3 numbers", "POST", "/v1/assets",
         rig(skeleton={"name": "s", "joints": [dict(J, rotation=[0, 0, 1])]}),
         None, 400, "value_count", "skeleton.joints[0].rotation"),
        ("unsorted times", "POST", "/v1/assets",
         track(times=[0, 2, 1], values=[0] * 9), None, 400, "times_order",
         "clips[0].tracks[0].times[2]"),
        ("negative time", "POST", "/v1/assets",
         track(times=[-1], values=[0, 0, 0]), None, 400, "time_negative",
         "clips[0].tracks[0].times[0]"),
        ("wrong value count", "POST", "/v1/assets",
         track(values=[0, 0, 0, 1, 1]), None, 400, "value_count",
         "clips[0].tracks[0].values"),
        ("unknown track joint", "POST", "/v1/assets", track(joint="zz"),
         None, 400, "unknown_joint", "clips[0].tracks[0].joint"),
        ("unknown interpolation", "POST", "/v1/assets",
         track(interpolation="CUBE"), None, 400, "bad_value",
         "clips[0].tracks[0].interpolation"),
        ("unknown path", "POST", "/v1/assets", track(path="position"), None,
         400, "bad_value", "clips[0].tracks[0].path"),
        ("negative weight", "POST", "/v1/assets",
         mesh(weights=[-1, 0, 0, 0]), None, 400, "weight",
         "meshes[0].weights[0]"),
        ("mesh joint out of range", "POST", "/v1/assets",
         mesh(joints=[3, 0, 0, 0]), None, 400, "joint_range",
         "meshes[0].joints[0]"),
        ("positions not 3 per vertex", "POST", "/v1/assets",
         mesh(positions=[0, 0]), None, 400, "value_count",
         "meshes[0].positions"),
        ("unsupported Content-Type", "POST", "/v1/assets", b"x",
         {"Content-Type": "text/plain"}, 415, "unsupported_media_type",
         "Content-Type"),
        ("missing Content-Type", "POST", "/v1/assets", b"{}", {}, 415,
         "unsupported_media_type", "Content-Type"),
        ("empty body", "POST", "/v1/assets", b"", JS, 400, "empty_body",
         "body"),
        ("upload onto unknown skeleton", "POST",
         "/v1/assets?skeleton=" + "0" * 64, b"{}", JS, 404, "not_found",
         "skeleton"),
        ("unknown clip", "GET", "/v1/pose?clip=nope&t=0", None, None, 404,
         "not_found", "clip"),
        ("unknown skeleton", "GET", "/v1/pose?skeleton=" + "f" * 64 +
         "&t=0", None, None, 404, "not_found", "skeleton"),
        ("no skeleton nor clip", "GET", "/v1/pose?t=0", None, None, 400,
         "missing_parameter", "clip"),
        ("t not a number", "GET", "/v1/pose?clip=%s&t=abc" % CL, None, None,
         400, "bad_parameter", "t"),
        ("t NaN", "GET", "/v1/pose?clip=%s&t=nan" % CL, None, None, 400,
         "bad_parameter", "t"),
        ("t infinite", "GET", "/v1/pose?clip=%s&t=inf" % CL, None, None, 400,
         "bad_parameter", "t"),
        ("t overflow", "GET", "/v1/pose?clip=%s&t=1e300" % CL, None, None,
         400, "bad_parameter", "t"),
        ("unknown space", "GET", "/v1/pose?clip=%s&t=0&space=world" % CL,
         None, None, 400, "bad_parameter", "space"),
        ("unknown wrap", "GET", "/v1/pose?clip=%s&t=0&wrap=bounce" % CL, None,
         None, 400, "bad_parameter", "wrap"),
        ("unknown format", "GET", "/v1/pose?clip=%s&t=0&format=xml" % CL,
         None, None, 400, "bad_parameter", "format"),
        ("range without fps", "GET", "/v1/pose?clip=%s&from=0&to=1" % CL,
         None, None, 400, "missing_parameter", "fps"),
        ("range fps 0", "GET", "/v1/pose?clip=%s&from=0&to=1&fps=0" % CL,
         None, None, 400, "bad_parameter", "fps"),
        ("range to before from", "GET",
         "/v1/pose?clip=%s&from=2&to=1&fps=10" % CL, None, None, 400,
         "bad_parameter", "to"),
        ("range over max_frames", "GET",
         "/v1/pose?clip=%s&from=0&to=100&fps=60" % CL, None, None, 400,
         "too_many_frames", "fps"),
        ("unknown mesh", "GET", "/v1/skin?mesh=nope&t=0", None, None, 404,
         "not_found", "mesh"),
        ("clip name not UTF-8", "GET", "/v1/pose?clip=%ff&t=0", None, None,
         404, "not_found", "clip"),
        ("message cut inside a character", "GET",
         "/v1/skin?mesh=a" + "%c3%a9" * 300 + "&t=0", None, None, 404,
         "not_found", "mesh"),
        ("skin normals=2", "GET", "/v1/skin?mesh=%s&normals=2" % ME, None,
         None, 400, "bad_parameter", "normals"),
        ("skin method", "GET", "/v1/skin?mesh=%s&method=xyz" % ME, None,
         None, 400, "bad_parameter", "method"),
        ("blend bad JSON", "POST", "/v1/pose", b"{", JS, 400, "bad_json",
         "line 1, column 1"),
        ("solve bad JSON", "POST", "/v1/solve", b'{"a":1,\n]', JS, 400,
         "bad_json", "line 2, column 1"),
        ("blend without layers", "POST", "/v1/pose", {"skeleton": SK}, None,
         400, "missing_field", "layers"),
        ("blend unknown clip", "POST", "/v1/pose",
         {"skeleton": SK, "layers": [{"clip": "zz", "t": 0}]}, None, 404,
         "not_found", "layers[0].clip"),
        ("blend t string", "POST", "/v1/pose",
         {"skeleton": SK, "layers": [{"clip": CL, "t": "0"}]}, None, 400,
         "wrong_type", "layers[0].t"),
        ("blend negative weight", "POST", "/v1/pose",
         {"skeleton": SK, "layers": [{"clip": CL, "t": 0, "weight": -1}]},
         None, 400, "bad_value", "layers[0].weight"),
        ("blend unknown mask joint", "POST", "/v1/pose",
         {"skeleton": SK, "layers": [{"clip": CL, "t": 0,
                                      "mask": ["root", "tail"]}]},
         None, 400, "unknown_joint", "layers[0].mask[1]"),
        ("solve wrong count", "POST", "/v1/solve",
         {"skeleton": SK, "frames": [[0, 0, 0]]}, None, 400, "value_count",
         "frames[0]"),
        ("solve non-number", "POST", "/v1/solve",
         {"skeleton": SK, "frames": [[0, 0, "x"] + [0] * 9]}, None, 400,
         "not_finite", "frames[0][2]"),
        ("delete unknown id", "DELETE", "/v1/clips/" + "a" * 64, None, None,
         404, "not_found", "id"),
        ("delete referenced skeleton", "DELETE", "/v1/skeletons/" + SK, None,
         None, 409, "conflict", "id"),
        ("unknown endpoint", "GET", "/v2/pose", None, None, 404, "not_found",
         None),
        ("method not allowed", "PUT", "/v1/assets", b"", None, 405,
         "method_not_allowed", None),
    ]
    count = 0
    for name, data, status, code, at in raw_cases:
        ans = parse_responses(d.raw(data))
        check(ans, "%s: no answer" % name)
        st, _, body = ans[0]
        if status is None:
            check(st in (400, 505), "%s: status %d" % (name, st))
        else:
            check(st == status, "%s: status %d, want %d" % (name, st, status))
        e = error_of(body)
        check(e["code"] == code and e["at"] == at,
              "%s: got %s at %r, want %s at %r"
              % (name, e["code"], e["at"], code, at))
        count += 1
    for name, method, path, body, headers, status, code, at in http_cases:
        st, h, data = d.request(method, path, body, headers)
        check(st == status, "%s: status %d, want %d: %s"
              % (name, st, status, data[:200]))
        e = error_of(data)
        check(e["code"] == code and e["at"] == at,
              "%s: got %s at %r, want %s at %r"
              % (name, e["code"], e["at"], code, at))
        check(h["content-type"] == "application/json", name + ": type")
        if status == 405:
            check("allow" in h, name + ": Allow")
        count += 1
    check(count >= 40, "only %d cases" % count)

    # The daemon is alive and the store unchanged.
    check(d.alive(), "daemon died")
    check(d.json("GET", "/v1/assets") == before, "store changed")
    check(sorted(os.listdir(d.data_dir)) == files_before, "data files changed")
    p = d.json("GET", "/v1/pose?clip=%s&t=0.5" % CL)
    check(p["joints"] == 4, "pose after the matrix")
    check(d.stop() == 0, "clean exit")
    print("ok: %d bad inputs" % count)
finally:
    d.cleanup()
