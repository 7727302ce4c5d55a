"""Assets and persistence: upload is idempotent (201 then 200, same ids),
list and describe, delete (409 while referenced, 404 after), a restart
brings back exactly what was stored, and a kill -9 in the middle of a
stream of uploads loses no acknowledged asset and loads no partial one."""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import Daemon, check, demo_asset, error_of  # noqa: E402


def chain(name, joints):
    return {"skeleton": {"name": name, "joints": [
        {"name": "j%d" % i, "parent": i - 1, "translation": [0, 0.1 * i, 0],
         "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]}
        for i in range(joints)]}}


d = Daemon()
try:
    # ---- idempotent upload -------------------------------------------------------
    a = demo_asset()
    first = d.json("POST", "/v1/assets", a, expect=201)
    again = d.json("POST", "/v1/assets", a, expect=200)
    check(first == again, "same answer on re-upload")
    sk = first["skeletons"][0]
    cl = first["clips"][0]
    me = first["meshes"][0]
    check(len(sk["id"]) == 64 and cl["skeleton"] == sk["id"] and
          me["skeleton"] == sk["id"], "ids")
    lst = d.json("GET", "/v1/assets")
    check(lst == first, "list equals the upload answer: %r" % lst)

    # ---- describe ------------------------------------------------------------------
    ds = d.json("GET", "/v1/skeletons/" + sk["id"])
    check(ds["id"] == sk["id"] and ds["name"] == "e2e-rig", "describe")
    check([j["parent"] for j in ds["joints"]] == [-1, 0, 1, 1], "parents")
    check(len(ds["inverseBindMatrices"]) == 16 * 4, "ibm count")
    check(ds["joints"][2]["scale"] == [1.2, 1, 0.8] or
          abs(ds["joints"][2]["scale"][0] - 1.2) < 1e-6, "rest scale")
    check(d.json("GET", "/v1/clips/" + cl["id"])["name"] == "sway", "clip")
    check(d.json("GET", "/v1/meshes/" + me["id"])["vertices"] == 4, "mesh")
    st, h, _ = d.request("GET", "/v1/clips/" + cl["id"])
    st2, _, b2 = d.request("GET", "/v1/clips/" + cl["id"],
                           headers={"If-None-Match": h["etag"]})
    check(st2 == 304 and b2 == b"", "describe 304")

    # ---- a clip uploaded alone onto the stored skeleton (by name) -------------------
    extra = {"clips": [{"name": "lift", "skeleton": "e2e-rig", "tracks": [
        {"joint": "arm", "path": "rotation", "interpolation": "LINEAR",
         "times": [0, 1], "values": [0, 0, 0, 1, 0.7071068, 0, 0, 0.7071068]}]}]}
    lift = d.json("POST", "/v1/assets", extra, expect=201)["clips"][0]
    check(lift["skeleton"] == sk["id"], "clip onto stored skeleton")

    # ---- delete -------------------------------------------------------------------------
    st, _, body = d.request("DELETE", "/v1/skeletons/" + sk["id"])
    check(st == 409 and error_of(body)["code"] == "conflict", "409")
    d.json("DELETE", "/v1/clips/" + lift["id"])
    st, _, body = d.request("GET", "/v1/clips/" + lift["id"])
    check(st == 404, "deleted clip is gone")
    st, _, _ = d.request("DELETE", "/v1/clips/" + lift["id"])
    check(st == 404, "second delete 404")

    # ---- restart: the same assets come back ------------------------------------------
    before = d.json("GET", "/v1/assets")
    check(d.stop() == 0, "stop")
    d.start()
    check(d.json("GET", "/v1/assets") == before, "assets after restart")
    p1 = d.json("GET", "/v1/pose?clip=%s&t=0.3" % cl["id"])
    check(p1["clip"] == cl["id"], "pose after restart")

    # ---- kill -9 in the middle of a stream of uploads ---------------------------------
    acked = {}
    lock = threading.Lock()
    stop = threading.Event()

    def uploader(k):
        i = 0
        while not stop.is_set() and i < 400:
            name = "crash-%d-%d" % (k, i)
            try:
                st, _, body = d.request("POST", "/v1/assets",
                                        chain(name, 120), timeout=5)
            except Exception:
                return
            if st in (200, 201):
                import json as _json
                sid = _json.loads(body)["skeletons"][0]["id"]
                with lock:
                    acked[sid] = name
            i += 1

    threads = [threading.Thread(target=uploader, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    deadline = time.time() + 20
    while time.time() < deadline:
        with lock:
            if len(acked) >= 25:
                break
        time.sleep(0.01)
    d.kill()  # SIGKILL by PID, uploads in flight
    stop.set()
    for t in threads:
        t.join(10)
    check(len(acked) >= 25, "uploads before the kill: %d" % len(acked))
    d.start()
    after = d.json("GET", "/v1/assets")
    ids = {s["id"]: s for s in after["skeletons"]}
    for sid, name in acked.items():
        check(sid in ids, "acknowledged %s lost" % name)
        s = d.json("GET", "/v1/skeletons/" + sid)
        check(s["name"] == name and len(s["joints"]) == 120,
              "acknowledged %s intact" % name)
    # Nothing half-written was loaded: every stored skeleton is complete.
    for s in after["skeletons"]:
        if s["name"].startswith("crash-"):
            check(s["joints"] == 120, "partial asset loaded: %r" % s)
    unacked = [s for s in after["skeletons"]
               if s["name"].startswith("crash-") and s["id"] not in acked]
    check(len(unacked) <= 3, "at most the in-flight uploads extra")
    check(d.json("GET", "/v1/clips/" + cl["id"])["name"] == "sway",
          "earlier assets survive")
    check(d.stop() == 0, "clean exit")
    print("ok: %d acknowledged uploads survived kill -9" % len(acked))
finally:
    d.cleanup()
