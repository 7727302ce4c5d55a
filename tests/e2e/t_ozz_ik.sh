#!/usr/bin/env bash
# Our IK jobs against ozz-animation 0.16's IKTwoBoneJob and IKAimJob on
# 3,000 random chains and aims (tests/ozz/run_ik.sh; exits 77, skipped,
# without cmake, g++ or the ozz mirror; OZZ_MIRROR names the mirror).
exec "$(dirname "$0")/../ozz/run_ik.sh"
