#!/usr/bin/env bash
# The daemon binary runs and reports its version.
set -euo pipefail
out=$("$ANIMD_BIN" --version)
[[ "$out" =~ ^animd\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "bad version: $out"; exit 1; }
echo "ok: $out"
