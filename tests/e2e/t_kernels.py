#!/usr/bin/python3
"""The kernels setting (docs/operations.md, `kernels`): the daemon names
each job's kernel level on its start line; `features` picks the CPU's best
level for every job, `scalar` the portable kernels, `measured` a level the
CPU runs for each job with the measured nanoseconds of every such level;
whatever the choice, the demo's model-space pose range and skinned mesh
answer the same numbers within the kernels' tolerance (1e-5 of the
model's size) as the portable kernels; an unknown value is refused at start
with the choices named."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from animd_e2e import BIN, Daemon, check, fail  # noqa: E402

import numpy as np  # noqa: E402

LEVELS = ["scalar", "avx2", "avx512"]
JOBS = ["sampling", "local_to_model", "skinning"]


def cpu_best():
    flags = open("/proc/cpuinfo").read()
    if all(f in flags for f in ("avx512f", "avx512vl", "avx512dq",
                                "avx512bw", "avx512cd")):
        return "avx512"
    if "avx2" in flags and "fma" in flags:
        return "avx2"
    return "scalar"


def answers(d):
    out = []
    for path in ("/v1/pose?clip=wave&from=0&to=2&fps=30&space=model"
                 "&format=bin",
                 "/v1/skin?mesh=body&clip=wave&t=0.37&normals=1&format=bin"):
        status, _, body = d.request("GET", path)
        check(status == 200, "%s: %d %r" % (path, status, body[:200]))
        out.append(np.frombuffer(body, "<f4").astype(np.float64))
    return out


def start_line(d, how):
    m = re.search(r"kernels \((\w+)\)((?: \w+=\w+(?: \(ns [0-9/]+\))?)+)",
                  d.read_log())
    check(m is not None, "no kernels on the start line:\n" + d.read_log())
    check(m.group(1) == how, "kernels (%s), asked %s" % (m.group(1), how))
    got = dict(re.findall(r"(\w+)=(\w+)", m.group(2)))
    check(sorted(got) == sorted(JOBS), "jobs %r" % got)
    ns = re.findall(r"(\w+)=\w+ \(ns ([0-9/]+)\)", m.group(2))
    return got, dict(ns)


def main():
    best = cpu_best()
    results = {}
    for how in ("scalar", "features", "measured"):
        d = Daemon("--demo", "--kernels", how)
        try:
            got, ns = start_line(d, how)
            if how == "scalar":
                check(set(got.values()) == {"scalar"}, "scalar: %r" % got)
            if how == "features":
                check(set(got.values()) == {best}, "features: %r (CPU %s)"
                      % (got, best))
            if how == "measured":
                for job in JOBS:
                    times = ns.get(job, "").split("/")
                    # One figure for every level the CPU runs, all > 0.
                    check(len(times) == LEVELS.index(best) + 1 and
                          all(float(t) > 0 for t in times),
                          "measured %s: %r" % (job, ns))
                    check(LEVELS.index(got[job]) <= LEVELS.index(best),
                          "measured %s: %s" % (job, got[job]))
            results[how] = answers(d)
            print("%s: %s %s" % (how, got, ns))
        finally:
            d.stop()
            d.cleanup()
    ref = results["scalar"]
    for how in ("features", "measured"):
        for name, a, b in zip(("pose range", "skin"), ref, results[how]):
            check(a.shape == b.shape, "%s %s: shapes" % (how, name))
            size = max(1.0, float(np.max(np.abs(a))))
            err = float(np.max(np.abs(a - b))) / size
            check(err <= 1e-5, "%s %s: %.3g of the model from scalar"
                  % (how, name, err))
            print("%s %s: %.2g of the model from the portable kernels"
                  % (how, name, err))
    r = subprocess.run([BIN, "--listen", "127.0.0.1:0", "--kernels", "fast"],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode != 0, "kernels=fast started")
    check("features|measured|scalar|avx2|avx512" in r.stderr or
          "features" in r.stderr, "refusal: %r" % r.stderr)
    print("ok")


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001
        fail("%r" % e)
