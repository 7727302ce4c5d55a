#!/usr/bin/env bash
# tests/ozz/run_bench.sh: animd's core jobs beside ozz-animation 0.16's
# (bench_jobs.cc: two-bone and aim IK, blends of 2 and 4 layers at 67
# joints), one line each with animd's time over ozz's. make bench-ozz runs
# it. ozz and libanimd.a come from build_ozz.sh (under $OZZ_IK_DIR, default
# /tmp/animd-ozz-ik; exits 77, skipped, with a line saying why when cmake,
# g++ or the ozz mirror are missing).
set -euo pipefail
source "$(dirname "$0")/build_ozz.sh"
g++ -O2 -std=c++17 -Wall -Wno-ignored-attributes -I"$SRC/include" -Iinclude \
  -o "$DIR/bench_jobs" tests/ozz/bench_jobs.cc build/release/libanimd.a $LIBS -lm
"$DIR/bench_jobs"
