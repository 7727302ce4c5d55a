#!/usr/bin/env bash
# tests/ozz/run_ik.sh: our IK jobs against ozz-animation 0.16's IKTwoBoneJob
# and IKAimJob (ik_compare.cc), on random chains (default 2000, >= 1000).
#
#   tests/ozz/run_ik.sh [N] [--bench]        (from the project's root)
#
# ozz and libanimd.a come from build_ozz.sh (under $OZZ_IK_DIR, default
# /tmp/animd-ozz-ik; exits 77, skipped, with a line saying why when cmake,
# g++ or the ozz mirror are missing); the driver is built with g++.
set -euo pipefail
source "$(dirname "$0")/build_ozz.sh"
g++ -O2 -std=c++17 -Wall -Wno-ignored-attributes -I"$SRC/include" -Iinclude \
  -o "$DIR/ik_compare" tests/ozz/ik_compare.cc build/release/libanimd.a $LIBS -lm
"$DIR/ik_compare" "$@"
