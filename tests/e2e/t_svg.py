"""Pictures (format=svg) from the real daemon, read with xml.etree: one
<line data-joint> per joint with a parent, whose ends are the joints' model
positions (GET /v1/pose space=model) under one scale for both axes with
model up drawn up, in each view; a range's grid cells and an overlay's
fading opacities; POST /v1/pose; HEAD; names escaped; the max_frames_svg
limit with its "at"; and `animd eval --format svg` printing the same
bytes."""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import BIN, Daemon, check, demo_asset, error_of  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
SVG_TYPE = "image/svg+xml"


def svg_of(d, path, method="GET", body=None):
    st, h, data = d.request(method, path, body)
    check(st == 200, "%s %s: %d %s" % (method, path, st, data[:300]))
    check(h.get("content-type") == SVG_TYPE, "content type %r" % h)
    root = ET.fromstring(data)  # Well-formed XML, or this raises.
    check(root.tag == NS + "svg", "root %s" % root.tag)
    check(root.find(NS + "title") is not None and root.find(NS + "title").text,
          "no title")
    return root, data


def lines_of(el):
    return el.iter(NS + "line")


def model_positions(d, query):
    pose = d.json("GET", "/v1/pose?%s&space=model" % query)
    m = pose["matrices"]  # 16 floats per joint, column-major
    return [m[16 * j + 12:16 * j + 15] for j in range(pose["joints"])]


def check_projection(root, names, parents, pos, plane):
    """Every line goes from the parent's projected position to the joint's
    under px = ox + s*u, py = oy - s*v with one s > 0."""
    ends = {}
    for ln in lines_of(root):
        j = names.index(ln.get("data-joint"))
        ends[j] = [(float(ln.get("x1")), float(ln.get("y1"))),
                   (float(ln.get("x2")), float(ln.get("y2")))]
    with_parent = [j for j in range(len(names)) if parents[j] >= 0]
    check(sorted(ends) == with_parent, "lines for %r" % sorted(ends))
    pts = []  # (u, v, px, py) of every line end
    for j, (a, b) in ends.items():
        for k, (px, py) in ((parents[j], a), (j, b)):
            u, v = plane(pos[k])
            pts.append((u, v, px, py))
    # The scale from the two ends farthest apart in u, then every point.
    lo = min(pts, key=lambda p: p[0])
    hi = max(pts, key=lambda p: p[0])
    check(hi[0] - lo[0] > 1e-3, "no extent along u")
    s = (hi[2] - lo[2]) / (hi[0] - lo[0])
    check(s > 0, "scale %g" % s)
    ox, oy = lo[2] - s * lo[0], lo[3] + s * lo[1]
    for u, v, px, py in pts:
        check(abs(ox + s * u - px) < 0.02 and abs(oy - s * v - py) < 0.02,
              "(%g, %g) drawn at (%g, %g), expected (%g, %g)"
              % (u, v, px, py, ox + s * u, oy - s * v))
    width = float(root.get("width"))
    for _, _, px, py in pts:
        check(0 <= px <= width and 0 <= py <= float(root.get("height")),
              "(%g, %g) outside the picture" % (px, py))


def main():
    d = Daemon("--max-frames-svg", "8")
    try:
        asset = demo_asset()
        d.json("POST", "/v1/assets", asset, expect=201)
        joints = asset["skeleton"]["joints"]
        names = [j["name"] for j in joints]
        parents = [j["parent"] for j in joints]
        q = "skeleton=e2e-rig&clip=sway&t=0.7"
        pos = model_positions(d, q)
        views = {"front": lambda p: (p[0], p[1]),
                 "side": lambda p: (p[2], p[1]),
                 "top": lambda p: (p[0], -p[2])}
        for view, plane in views.items():
            root, _ = svg_of(d, "/v1/pose?%s&format=svg&view=%s" % (q, view))
            check_projection(root, names, parents, pos, plane)
            check(sum(1 for _ in lines_of(root)) == 3, "three lines")

        # Highlighted joints: all drawn, the listed ones marked.
        root, _ = svg_of(d, "/v1/pose?%s&format=svg&joints=head,root" % q)
        check(sum(1 for _ in lines_of(root)) == 3, "joints= restricts nothing")
        marked = [ln.get("data-joint") for ln in lines_of(root)
                  if ln.get("class") == "highlight"]
        check(marked == ["head"], "highlighted lines %r" % marked)
        dots = sorted(c.get("data-highlight") for c in root.iter(NS + "circle"))
        check(dots == ["head", "root"], "dots %r" % dots)

        # A range: a grid of 5 cells, each a whole skeleton; or an overlay.
        rq = "skeleton=e2e-rig&clip=sway&from=0&to=2&fps=2&format=svg"
        root, grid_bytes = svg_of(d, "/v1/pose?" + rq)
        cells = [g for g in root.iter(NS + "g") if g.get("data-frame")]
        check(len(cells) == 5, "%d cells" % len(cells))
        for c in cells:
            check(sum(1 for _ in lines_of(c)) == 3, "a cell's lines")
        root, _ = svg_of(d, "/v1/pose?" + rq + "&layout=overlay")
        poses = [g for g in root.iter(NS + "g") if g.get("data-pose")]
        ops = [float(g.get("stroke-opacity")) for g in poses]
        check(len(ops) == 5 and ops == sorted(ops) and ops[0] < ops[-1] == 1,
              "opacities %r" % ops)

        # Over max_frames_svg (8 here): 400 too_many_frames at fps.
        st, _, body = d.request(
            "GET", "/v1/pose?skeleton=e2e-rig&clip=sway&from=0&to=2&fps=4&"
            "format=svg")
        e = error_of(body)
        check(st == 400 and e["code"] == "too_many_frames" and e["at"] == "fps",
              "%d %r" % (st, e))
        check("max_frames_svg" in e["message"], e["message"])

        info = d.json("GET", "/v1/info")
        check(info["limits"]["max_frames_svg"] == 8, "info %r" % info)

        # POST /v1/pose and HEAD.
        root, _ = svg_of(d, "/v1/pose", "POST", {
            "skeleton": "e2e-rig", "format": "svg", "view": "side",
            "layers": [{"clip": "sway", "t": 0.7}]})
        check(sum(1 for _ in lines_of(root)) == 3, "POST lines")
        check_projection(root, names, parents, pos, views["side"])
        st, h, body = d.request("HEAD", "/v1/pose?%s&format=svg" % q)
        check(st == 200 and body == b"" and h["content-type"] == SVG_TYPE
              and int(h["content-length"]) > 0, "HEAD %d %r" % (st, h))

        # Names that are XML markup survive, escaped.
        odd = '<a&"b>'
        rig = {"skeleton": {"name": "odd & rig", "joints": [
            {"name": "r", "parent": -1, "translation": [0, 0, 0],
             "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]},
            {"name": odd, "parent": 0, "translation": [0, 1, 0],
             "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]}]}}
        d.json("POST", "/v1/assets", rig, expect=201)
        root, _ = svg_of(d, "/v1/pose?skeleton=odd%20%26%20rig&t=0&format=svg")
        check([ln.get("data-joint") for ln in lines_of(root)] == [odd],
              "odd name")
        check("odd & rig" in root.find(NS + "title").text, "title")

        # animd eval prints the same bytes as the daemon.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "rig.json")
            with open(path, "w") as f:
                json.dump(asset, f)
            out = subprocess.run(
                [BIN, "eval", path, "--skeleton", "e2e-rig", "--clip", "sway",
                 "--from", "0", "--to", "2", "--fps", "2", "--format", "svg"],
                capture_output=True, timeout=60)
            check(out.returncode == 0, out.stderr.decode())
            check(out.stdout == grid_bytes, "eval differs from GET")
    finally:
        d.cleanup()
    print("ok: svg pictures")


main()
